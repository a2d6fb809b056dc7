//! Debugger daemons co-launched through spawn (use case "Debugging:
//! Direct-Launch Debugger Tool"): a spawn whose job info holds
//! `PMIX_DEBUGGER_DAEMONS` starts daemons for the job named by
//! `PMIX_DEBUG_TARGET` (a proc of a job of this pmixrun; a wildcard rank:
//! every rank of it), placed by `PMIX_DEBUG_DAEMONS_PER_PROC` (n daemons
//! per target process) or `PMIX_DEBUG_DAEMONS_PER_NODE` (n daemons on each
//! node hosting a target: pmixrun has one node). Either replaces the one
//! app's `maxprocs`; with neither the app's own count runs. The daemons'
//! job data carries `PMIX_DEBUGGER_DAEMONS`, `PMIX_DEBUG_TARGET` and the
//! placement attribute given; with `PER_PROC` n, daemon rank r serves the
//! target's r / n-th process (in rank order).

use pmix_core::{attrs, Error, Info, Nspace, Rank, Result, Status, Value};

/// Where a daemon spawn's processes go.
#[derive(Debug)]
pub(crate) struct Placement {
    /// How many daemons, when placement decides it.
    pub count: Option<u32>,
    /// The job data the daemons get besides the usual.
    pub infos: Vec<Info>,
}

/// A positive count attribute, if given.
fn count(job_info: &[Info], key: &str) -> Result<Option<u32>> {
    let Some(i) = pmix_core::info::find(job_info, key) else {
        return Ok(None);
    };
    match i.value.to_i64() {
        Ok(n) if (1..=i64::from(u16::MAX)).contains(&n) => Ok(Some(n as u32)),
        _ => Err(Error::bad_param(format!(
            "spawn: {key} must be a count of at least 1, not {:?}",
            i.value
        ))),
    }
}

/// The processes the daemons serve: `PMIX_DEBUG_TARGET` as a proc, or as
/// a namespace string (every rank), or the deprecated `PMIX_DEBUG_JOB`
/// namespace that OpenPMIx 4.2's debugger example still sends.
fn target(job_info: &[Info]) -> Result<pmix_core::Proc> {
    let find = |k: &str| pmix_core::info::find(job_info, k).map(|i| &i.value);
    let whole = |ns: &str| {
        Ok(pmix_core::Proc::from_parts(
            Nspace::new(ns)?,
            Rank::WILDCARD,
        ))
    };
    match (find(attrs::DEBUG_TARGET), find(attrs::DEBUG_JOB)) {
        (Some(Value::Proc(p)), _) => Ok(p.clone()),
        (Some(Value::String(ns)), _) | (None, Some(Value::String(ns))) => whole(ns),
        (other, job) => Err(Error::bad_param(format!(
            "spawn: PMIX_DEBUGGER_DAEMONS needs PMIX_DEBUG_TARGET naming a proc or a namespace, \
             or PMIX_DEBUG_JOB naming a namespace (got {:?})",
            other.or(job)
        ))),
    }
}

/// `ppr:N:node` in a `PMIX_MAPBY` directive: N per node.
fn per_node_mapping(job_info: &[Info]) -> Option<u32> {
    let Some(Value::String(m)) = pmix_core::info::find(job_info, attrs::MAPBY).map(|i| &i.value)
    else {
        return None;
    };
    let rest = m.to_ascii_lowercase();
    let n = rest
        .strip_prefix("ppr:")?
        .strip_suffix(":node")?
        .parse::<u32>()
        .ok()?;
    (1..=u32::from(u16::MAX)).contains(&n).then_some(n)
}

/// The placement of a debugger-daemon spawn (`None` for any other
/// spawn); `jobs` are this pmixrun's jobs and their sizes.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for no `PMIX_DEBUG_TARGET`, a rank outside the
/// target job, both placement attributes, or placement with several apps;
/// `PMIX_ERR_NOT_FOUND` for a target namespace pmixrun does not run.
pub(crate) fn placement(
    job_info: &[Info],
    napps: usize,
    jobs: &[(Nspace, u32)],
) -> Result<Option<Placement>> {
    let daemons = pmix_core::info::find(job_info, attrs::DEBUGGER_DAEMONS)
        .is_some_and(|i| !matches!(i.value, Value::Bool(false)));
    if !daemons {
        return Ok(None);
    }
    let target = target(job_info)?;
    let Some((_, size)) = jobs.iter().find(|(ns, _)| *ns == target.nspace) else {
        return Err(Error::with_context(
            Status::ERR_NOT_FOUND,
            format!(
                "spawn: debug target {} is not a job of this pmixrun",
                target.nspace.as_str()
            ),
        ));
    };
    let ntargets = if target.rank == Rank::WILDCARD {
        *size
    } else if target.rank.0 < *size {
        1
    } else {
        return Err(Error::bad_param(format!(
            "spawn: debug target {target:?} is outside its job of {size} processes"
        )));
    };
    let per_proc = count(job_info, attrs::DEBUG_DAEMONS_PER_PROC)?;
    let per_node = match count(job_info, attrs::DEBUG_DAEMONS_PER_NODE)? {
        Some(n) => Some(n),
        // one node: `ppr:N:node` places N daemons, as PER_NODE N
        None if per_proc.is_none() => per_node_mapping(job_info),
        None => None,
    };
    let mut infos = vec![
        Info::new(attrs::DEBUGGER_DAEMONS, Value::Bool(true))?,
        Info::new(attrs::DEBUG_TARGET, Value::Proc(target))?,
    ];
    let count =
        match (per_proc, per_node) {
            (Some(_), Some(_)) => return Err(Error::bad_param(
                "spawn: give PMIX_DEBUG_DAEMONS_PER_PROC or PMIX_DEBUG_DAEMONS_PER_NODE, not both",
            )),
            (Some(n), None) => {
                infos.push(Info::new(
                    attrs::DEBUG_DAEMONS_PER_PROC,
                    Value::Uint16(n as u16),
                )?);
                Some(n * ntargets)
            }
            (None, Some(n)) => {
                infos.push(Info::new(
                    attrs::DEBUG_DAEMONS_PER_NODE,
                    Value::Uint16(n as u16),
                )?);
                Some(n)
            }
            (None, None) => None,
        };
    if count.is_some() && napps != 1 {
        return Err(Error::bad_param(format!(
            "spawn: daemon placement needs exactly one app, not {napps}"
        )));
    }
    Ok(Some(Placement { count, infos }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Proc;

    fn i(k: &str, v: Value) -> Info {
        Info::new(k, v).unwrap()
    }

    #[test]
    fn per_proc_multiplies_the_targets_and_per_node_is_one_node() {
        let ns = Nspace::new("job").unwrap();
        let jobs = [(ns.clone(), 3)];
        let all = Value::Proc(Proc::from_parts(ns.clone(), Rank::WILDCARD));
        let base = vec![
            i(attrs::DEBUGGER_DAEMONS, Value::Bool(true)),
            i(attrs::DEBUG_TARGET, all),
        ];
        let mut pp = base.clone();
        pp.push(i(attrs::DEBUG_DAEMONS_PER_PROC, Value::Uint16(2)));
        assert_eq!(placement(&pp, 1, &jobs).unwrap().unwrap().count, Some(6));
        let mut pn = base.clone();
        pn.push(i(attrs::DEBUG_DAEMONS_PER_NODE, Value::Uint16(1)));
        assert_eq!(placement(&pn, 1, &jobs).unwrap().unwrap().count, Some(1));
        assert_eq!(placement(&base, 2, &jobs).unwrap().unwrap().count, None);
        let mut both = pp.clone();
        both.push(i(attrs::DEBUG_DAEMONS_PER_NODE, Value::Uint16(1)));
        assert_eq!(
            placement(&both, 1, &jobs).unwrap_err().status(),
            Status::ERR_BAD_PARAM
        );
        assert!(placement(&[], 1, &jobs).unwrap().is_none());
        let none = [i(attrs::DEBUGGER_DAEMONS, Value::Bool(true))];
        assert_eq!(
            placement(&none, 1, &jobs).unwrap_err().status(),
            Status::ERR_BAD_PARAM
        );
        let other = [
            i(attrs::DEBUGGER_DAEMONS, Value::Bool(true)),
            i(
                attrs::DEBUG_TARGET,
                Value::Proc(Proc::from_parts(Nspace::new("nope").unwrap(), Rank(0))),
            ),
        ];
        assert_eq!(
            placement(&other, 1, &jobs).unwrap_err().status(),
            Status::ERR_NOT_FOUND
        );
    }

    #[test]
    fn the_target_may_be_a_namespace_and_ppr_per_node_places_the_daemons() {
        let ns = Nspace::new("job").unwrap();
        let jobs = [(ns.clone(), 3)];
        let whole = Proc::from_parts(ns.clone(), Rank::WILDCARD);
        // OpenPMIx 4.2's debugger example: the deprecated PMIX_DEBUG_JOB
        // namespace and PMIX_MAPBY "ppr:1:node"
        let example = [
            i(attrs::MAPBY, Value::String("ppr:1:node".into())),
            i(attrs::DEBUGGER_DAEMONS, Value::Bool(true)),
            i(attrs::DEBUG_JOB, Value::String("job".into())),
        ];
        let p = placement(&example, 1, &jobs).unwrap().unwrap();
        assert_eq!(p.count, Some(1));
        assert!(p
            .infos
            .iter()
            .any(|x| x.is(attrs::DEBUG_TARGET) && x.value == Value::Proc(whole.clone())));
        let by_string = [
            i(attrs::DEBUGGER_DAEMONS, Value::Bool(true)),
            i(attrs::DEBUG_TARGET, Value::String("job".into())),
            i(attrs::MAPBY, Value::String("ppr:2:node".into())),
        ];
        assert_eq!(
            placement(&by_string, 1, &jobs).unwrap().unwrap().count,
            Some(2)
        );
        let bad_map = [
            i(attrs::DEBUGGER_DAEMONS, Value::Bool(true)),
            i(attrs::DEBUG_JOB, Value::String("job".into())),
            i(attrs::MAPBY, Value::String("slot".into())),
        ];
        assert_eq!(placement(&bad_map, 1, &jobs).unwrap().unwrap().count, None);
    }
}
