//! What a handler registration asks for: its category, its placement in the
//! chain, and the filters that decide which events reach it. Parsed from the
//! codes and infos given to `register_event_handler`; every rule that can
//! be checked without the chain is checked here.
//!
//! # References
//! The Extend the Event Notification RFC and the Event Notification design
//! (`docs/SOURCES.md`).

use crate::attrs;
use crate::{DataRange, Error, Info, Proc, Result, Status};

/// The three categories of the chain (the event design: single-code
/// handlers are called first, then multi-code, then default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Registered against exactly one status code.
    Single,
    /// Registered against two or more status codes.
    Multi,
    /// Registered against no code: receives every event not marked
    /// `PMIX_EVENT_NON_DEFAULT`.
    Default,
}

impl Category {
    /// The category of a registration for `codes`.
    pub fn of(codes: &[Status]) -> Category {
        match codes.len() {
            0 => Category::Default,
            1 => Category::Single,
            _ => Category::Multi,
        }
    }

    /// Index 0..3 in dispatch order.
    pub fn index(self) -> usize {
        match self {
            Category::Single => 0,
            Category::Multi => 1,
            Category::Default => 2,
        }
    }
}

/// Where a handler goes in the chain (at most one per registration).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Front of its category, behind a FIRST_IN_CATEGORY handler (the
    /// default, and `PMIX_EVENT_HDLR_PREPEND`).
    Prepend,
    /// End of its category, in front of a LAST_IN_CATEGORY handler
    /// (`PMIX_EVENT_HDLR_APPEND`).
    Append,
    /// Before every handler of every category (`PMIX_EVENT_HDLR_FIRST`).
    First,
    /// After every handler of every category (`PMIX_EVENT_HDLR_LAST`).
    Last,
    /// First of its category (`PMIX_EVENT_HDLR_FIRST_IN_CATEGORY`).
    FirstInCategory,
    /// Last of its category (`PMIX_EVENT_HDLR_LAST_IN_CATEGORY`).
    LastInCategory,
    /// Immediately before the named handler of the same category
    /// (`PMIX_EVENT_HDLR_BEFORE`).
    Before(String),
    /// Immediately after the named handler of the same category
    /// (`PMIX_EVENT_HDLR_AFTER`).
    After(String),
}

/// Which events a handler accepts, beyond its codes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    /// `PMIX_EVENT_JOB_LEVEL` (the event design): only job-specific events.
    pub job_level: bool,
    /// `PMIX_EVENT_ENVIRO_LEVEL` (the event design): only environment events.
    pub enviro_level: bool,
    /// `PMIX_RANGE` on registration: the range of sources accepted (the
    /// event RFC: no range, no filter).
    pub range: Option<DataRange>,
    /// `PMIX_EVENT_CUSTOM_RANGE`: the accepted sources under
    /// `PMIX_RANGE_CUSTOM`.
    pub custom_range: Vec<Proc>,
    /// `PMIX_EVENT_AFFECTED_PROC(S)`: only events affecting one of these.
    pub affected: Vec<Proc>,
}

/// A validated registration request.
#[derive(Clone, Debug, PartialEq)]
pub struct RegistrationSpec {
    /// The codes (empty: default handler).
    pub codes: Vec<Status>,
    /// Its category.
    pub category: Category,
    /// `PMIX_EVENT_HDLR_NAME`, if given.
    pub name: Option<String>,
    /// Where it goes.
    pub placement: Placement,
    /// Which events it accepts.
    pub filters: Filters,
}

/// A `PMIX_ERR_EVENT_REGISTRATION` error with context.
pub(crate) fn registration_error(msg: impl Into<String>) -> Error {
    Error::with_context(Status::ERR_EVENT_REGISTRATION, msg)
}

/// Reads a proc or an array of procs from a proc-list attribute.
pub(crate) fn procs_of(info: &Info) -> Result<Vec<Proc>> {
    match &info.value {
        crate::Value::Proc(p) => Ok(vec![p.clone()]),
        crate::Value::DataArray(a) => Ok(a.procs()?.into_iter().cloned().collect()),
        other => Err(Error::with_context(
            Status::ERR_TYPE_MISMATCH,
            format!(
                "{} takes a PMIX_PROC or an array of them, got {}",
                info.key,
                other.data_type()
            ),
        )),
    }
}

impl RegistrationSpec {
    /// Parses and checks a registration.
    ///
    /// # Errors
    /// - `PMIX_ERR_TYPE_MISMATCH`: an attribute of the wrong type
    ///   (`PMIX_EVENT_HDLR_FIRST = "yes"`).
    /// - `PMIX_ERR_BAD_PARAM`: two placements in one registration, an
    ///   empty name, a custom proc list with a range other than CUSTOM, a
    ///   duplicated code.
    pub fn parse(codes: &[Status], infos: &[Info]) -> Result<RegistrationSpec> {
        attrs::check_all(infos)?;
        let mut name = None;
        let mut placements = Vec::new();
        let mut filters = Filters::default();
        let mut custom_given = false;
        for i in infos {
            let key = i.key.as_str();
            let flag = || i.value.is_true();
            match key {
                k if k == attrs::EVENT_HDLR_NAME => {
                    let n = i.value.as_str()?;
                    if n.is_empty() {
                        return Err(Error::bad_param("PMIX_EVENT_HDLR_NAME is empty"));
                    }
                    // The name keys the handler's entry in the results
                    // array, so it must be a valid key.
                    crate::Key::new(n)?;
                    name = Some(n.to_owned());
                }
                k if k == attrs::EVENT_HDLR_FIRST && flag()? => placements.push(Placement::First),
                k if k == attrs::EVENT_HDLR_LAST && flag()? => placements.push(Placement::Last),
                k if k == attrs::EVENT_HDLR_FIRST_IN_CATEGORY && flag()? => {
                    placements.push(Placement::FirstInCategory)
                }
                k if k == attrs::EVENT_HDLR_LAST_IN_CATEGORY && flag()? => {
                    placements.push(Placement::LastInCategory)
                }
                k if k == attrs::EVENT_HDLR_PREPEND && flag()? => {
                    placements.push(Placement::Prepend)
                }
                k if k == attrs::EVENT_HDLR_APPEND && flag()? => placements.push(Placement::Append),
                k if k == attrs::EVENT_HDLR_BEFORE => {
                    placements.push(Placement::Before(i.value.as_str()?.to_owned()))
                }
                k if k == attrs::EVENT_HDLR_AFTER => {
                    placements.push(Placement::After(i.value.as_str()?.to_owned()))
                }
                k if k == attrs::EVENT_JOB_LEVEL => filters.job_level = flag()?,
                k if k == attrs::EVENT_ENVIRO_LEVEL => filters.enviro_level = flag()?,
                k if k == attrs::RANGE => filters.range = Some(i.value.as_data_range()?),
                k if k == attrs::EVENT_CUSTOM_RANGE => {
                    custom_given = true;
                    filters.custom_range = procs_of(i)?;
                }
                k if k == attrs::EVENT_AFFECTED_PROC || k == attrs::EVENT_AFFECTED_PROCS => {
                    filters.affected.extend(procs_of(i)?);
                }
                _ => {}
            }
        }
        if placements.len() > 1 {
            return Err(Error::bad_param(format!(
                "conflicting placement directives: {placements:?}"
            )));
        }
        if custom_given {
            match filters.range {
                None => filters.range = Some(DataRange::CUSTOM),
                Some(DataRange::CUSTOM) => {}
                Some(r) => {
                    return Err(Error::bad_param(format!(
                        "PMIX_EVENT_CUSTOM_RANGE given with range {r}"
                    )))
                }
            }
        }
        if let Some(DataRange::UNDEF) = filters.range {
            filters.range = None;
        }
        for (i, c) in codes.iter().enumerate() {
            if codes[..i].contains(c) {
                return Err(Error::bad_param(format!("code {c} given twice")));
            }
        }
        Ok(RegistrationSpec {
            codes: codes.to_vec(),
            category: Category::of(codes),
            name,
            placement: placements.pop().unwrap_or(Placement::Prepend),
            filters,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_follows_the_number_of_codes() {
        assert_eq!(Category::of(&[]), Category::Default);
        assert_eq!(Category::of(&[Status::ERR_TIMEOUT]), Category::Single);
        assert_eq!(
            Category::of(&[Status::ERR_TIMEOUT, Status::ERR_NOT_FOUND]),
            Category::Multi
        );
    }

    #[test]
    fn default_placement_is_prepend() {
        let s = RegistrationSpec::parse(&[Status::ERR_TIMEOUT], &[]).unwrap();
        assert_eq!(s.placement, Placement::Prepend);
        assert_eq!(s.name, None);
    }

    #[test]
    fn wrongly_typed_directive_is_refused() {
        let i = Info::new(attrs::EVENT_HDLR_FIRST, "yes").unwrap();
        let e = RegistrationSpec::parse(&[], &[i]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_TYPE_MISMATCH);
    }

    #[test]
    fn two_placements_are_refused() {
        let e = RegistrationSpec::parse(
            &[],
            &[
                Info::flag(attrs::EVENT_HDLR_FIRST).unwrap(),
                Info::new(attrs::EVENT_HDLR_LAST, true).unwrap(),
            ],
        )
        .unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    }

    #[test]
    fn false_flags_are_ignored() {
        let s = RegistrationSpec::parse(&[], &[Info::new(attrs::EVENT_HDLR_FIRST, false).unwrap()])
            .unwrap();
        assert_eq!(s.placement, Placement::Prepend);
    }

    #[test]
    fn custom_range_implies_custom_and_conflicts_with_others() {
        let p = Proc::new("ns", 1).unwrap();
        let s = RegistrationSpec::parse(
            &[],
            &[Info::new(attrs::EVENT_CUSTOM_RANGE, p.clone()).unwrap()],
        )
        .unwrap();
        assert_eq!(s.filters.range, Some(DataRange::CUSTOM));
        assert_eq!(s.filters.custom_range, vec![p.clone()]);
        let e = RegistrationSpec::parse(
            &[],
            &[
                Info::new(attrs::EVENT_CUSTOM_RANGE, p).unwrap(),
                Info::new(attrs::RANGE, DataRange::LOCAL).unwrap(),
            ],
        )
        .unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    }
}
