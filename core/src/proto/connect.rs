//! What a `CONNECT` reply carries (RFC0003), the name a server mints for a
//! connected group, and the job-store keys a group namespace is registered
//! under.
//!
//! The outcome travels as one `BYTE_OBJECT` value: `u8` has-namespace,
//! [namespace string], then the rank map as a proc list (index = new rank).

use crate::codec::{Decoder, Encoder};
use crate::{Error, Nspace, Proc, Rank, Result, Status, Value};

/// Job-store key, at `(group ns, WILDCARD)`: the group's canonical
/// participant set (`DATA_ARRAY` of `PROC`); its presence marks a
/// namespace made by a connect.
pub const GROUP_CANONICAL: &str = "pmixrs.cnct.set";
/// Job-store key, at `(group ns, r)`: the real process holding rank `r`
/// (`PROC`).
pub const GROUP_MEMBER: &str = "pmixrs.cnct.proc";
/// Job-store key, at `(group ns, WILDCARD)`: the group's rank map
/// (`DATA_ARRAY` of `PROC`, index = new rank).
pub const GROUP_MEMBERS: &str = "pmixrs.cnct.members";

/// `PMIx_Get` key, on the caller's own proc, qualified by
/// `PMIX_CONNECT_ID` (none: the connects without an id): the namespace of
/// the caller's latest completed connect (`STRING`). Lets a C caller of the
/// 4.2 `PMIx_Connect`, which returns only a status, learn the group.
pub const CONNECT_NSPACE: &str = "pmixrs.cnct.nspace";
/// As [`CONNECT_NSPACE`]: the caller's rank in that group (`PROC_RANK`).
pub const CONNECT_RANK: &str = "pmixrs.cnct.rank";

/// The outcome of a connect as one reply value.
pub fn encode_outcome(nspace: Option<&Nspace>, ranks: &[Proc]) -> Value {
    let mut e = Encoder::new();
    match nspace {
        Some(ns) => {
            e.put_u8(1);
            e.put_str(ns.as_str());
        }
        None => e.put_u8(0),
    }
    e.put_procs(ranks);
    Value::ByteObject(e.finish())
}

/// The inverse of [`encode_outcome`].
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` for a value of another shape.
pub fn decode_outcome(v: &Value) -> Result<(Option<Nspace>, Vec<Proc>)> {
    let Value::ByteObject(b) = v else {
        return Err(Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            "connect reply: not a byte object",
        ));
    };
    let mut d = Decoder::new(b);
    let ns = match d.get_u8()? {
        0 => None,
        1 => Some(Nspace::new(d.get_str()?)?),
        f => {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                format!("connect reply: bad namespace flag {f}"),
            ))
        }
    };
    let ranks = d.get_procs()?;
    d.expect_end()?;
    Ok((ns, ranks))
}

/// The namespace a server names a connected group when its host does not:
/// a function of the canonical participant set, the connect id and the
/// generation (how many connects of that set and id completed before), so
/// every node mints the same name. FNV-1a 64 over the encoded set and id.
pub fn mint_nspace(canonical: &[Proc], id: Option<&str>, generation: u64) -> Nspace {
    let mut e = Encoder::new();
    e.put_procs(canonical);
    match id {
        Some(i) => {
            e.put_u8(1);
            e.put_str(i);
        }
        None => e.put_u8(0),
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in e.finish() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Nspace::new(format!("pmixrs-cnct-{h:016x}-{generation}"))
        .expect("a short ASCII name is a valid namespace")
}

/// Expands a canonical set into the group's rank map: each wildcard
/// becomes ranks `0..size` of its namespace (`size_of` gives it; `None`:
/// unknown), explicit ranks stay; index = new rank.
///
/// # Errors
/// `PMIX_ERR_NOT_FOUND` when a wildcard's namespace size is unknown.
pub fn rank_map(canonical: &[Proc], size_of: impl Fn(&Nspace) -> Option<u32>) -> Result<Vec<Proc>> {
    let mut out = Vec::new();
    for p in canonical {
        if p.rank == Rank::WILDCARD {
            let n = size_of(&p.nspace).ok_or_else(|| {
                Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!(
                        "connect: the size of namespace {} is not known here",
                        p.nspace.as_str()
                    ),
                )
            })?;
            out.extend((0..n).map(|r| Proc::from_parts(p.nspace.clone(), Rank(r))));
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(ns, Rank(r)).unwrap()
    }

    #[test]
    fn outcome_round_trips_and_names_are_deterministic() {
        let ranks = vec![p("a", 0), p("b", 3)];
        let ns = Nspace::new("g").unwrap();
        let v = encode_outcome(Some(&ns), &ranks);
        assert_eq!(decode_outcome(&v).unwrap(), (Some(ns), ranks.clone()));
        let v = encode_outcome(None, &ranks);
        assert_eq!(decode_outcome(&v).unwrap(), (None, ranks.clone()));
        assert!(decode_outcome(&Value::Uint32(1)).is_err());
        let a = mint_nspace(&ranks, Some("x"), 0);
        assert_eq!(a, mint_nspace(&ranks, Some("x"), 0));
        assert_ne!(a, mint_nspace(&ranks, Some("y"), 0));
        assert_ne!(a, mint_nspace(&ranks, None, 0));
        assert_ne!(a, mint_nspace(&ranks, Some("x"), 1));
        assert_ne!(a, mint_nspace(&ranks[..1], Some("x"), 0));
    }

    #[test]
    fn wildcards_expand_in_canonical_order() {
        let set = vec![p("a", 1), Proc::new("b", Rank::WILDCARD).unwrap()];
        let m = rank_map(&set, |ns| (ns.as_str() == "b").then_some(2)).unwrap();
        assert_eq!(m, vec![p("a", 1), p("b", 0), p("b", 1)]);
        assert!(rank_map(&set, |_| None).is_err());
    }
}
