//! PMIx Groups on the wire: what a `GROUP_CONSTRUCT` reply carries, and
//! the job-store key under which a value stored with qualifiers
//! (`PMIX_INFO_QUALIFIER`) lives.
//!
//! The outcome travels as one `BYTE_OBJECT` value: `u8` partial (some
//! members were dropped: `PMIX_GROUP_OPTIONAL`), `u8` has-context-id,
//! [`u64` context id], then the membership as a proc list (index = group
//! rank).
//!
//! A group is registered in the job store under its id like a connected
//! group (`proto::connect::GROUP_MEMBERS` at `(id, WILDCARD)`), so the
//! clients' group addressing (`(id, WILDCARD)`, `(id, r)`) is the same for
//! both.

use crate::codec::{Decoder, Encoder};
use crate::{Error, Info, InfoFlags, Proc, Result, Status, Value};

/// `pmix_group_operation_t`: the `op` of the host's group up-call.
pub mod op {
    /// `PMIX_GROUP_CONSTRUCT`.
    pub const CONSTRUCT: u8 = 0;
    /// `PMIX_GROUP_DESTRUCT`.
    pub const DESTRUCT: u8 = 1;
}

/// What a participant's handlers decided about a group failure event
/// ([`msg::GROUP_DECIDE`](super::msg::GROUP_DECIDE)).
pub mod decision {
    /// No handler asked for anything.
    pub const NONE: u8 = 0;
    /// A handler returned `PMIX_GROUP_LEADER` (true): the participant
    /// claims the lead.
    pub const LEADER: u8 = 1;
    /// A handler returned `PMIX_GROUP_CONSTRUCT_ABORT`.
    pub const ABORT: u8 = 2;
    /// A handler returned `PMIX_GROUP_OPTIONAL` (true): go on without the
    /// failed member (the leader, on `PMIX_GROUP_INVITE_FAILED`).
    pub const CONTINUE: u8 = 3;
}

/// The outcome of a group construct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Members were dropped (`PMIX_GROUP_OPTIONAL`): the caller gets
    /// `PMIX_ERR_PARTIAL_SUCCESS` with the reduced membership.
    pub partial: bool,
    /// `PMIX_GROUP_CONTEXT_ID`, when `PMIX_GROUP_ASSIGN_CONTEXT_ID` asked.
    pub context_id: Option<u64>,
    /// The members (index = group rank).
    pub members: Vec<Proc>,
}

/// The outcome as one reply value.
pub fn encode_outcome(o: &Outcome) -> Value {
    let mut e = Encoder::new();
    e.put_u8(u8::from(o.partial));
    match o.context_id {
        Some(c) => {
            e.put_u8(1);
            e.put_u64(c);
        }
        None => e.put_u8(0),
    }
    e.put_procs(&o.members);
    Value::ByteObject(e.finish())
}

/// The inverse of [`encode_outcome`].
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` for a value of another shape.
pub fn decode_outcome(v: &Value) -> Result<Outcome> {
    let Value::ByteObject(b) = v else {
        return Err(Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            "group construct reply: not a byte object",
        ));
    };
    let mut d = Decoder::new(b);
    let partial = d.get_u8()? != 0;
    let context_id = match d.get_u8()? {
        0 => None,
        _ => Some(d.get_u64()?),
    };
    let members = d.get_procs()?;
    d.expect_end()?;
    Ok(Outcome {
        partial,
        context_id,
        members,
    })
}

/// The text of a qualifier's value in a qualified key: integers in
/// decimal (whatever their width, so a `SIZE` and a `UINT64` qualify
/// alike), strings as they are, anything else by its debug form.
fn qualifier_text(v: &Value) -> String {
    if let Ok(n) = v.to_u64() {
        return n.to_string();
    }
    if let Ok(s) = v.as_str() {
        return s.to_owned();
    }
    format!("{v:?}")
}

/// The job-store key of `key` stored under `qualifiers` (key, value):
/// `key` followed by `#q:` and the qualifiers sorted by key,
/// `qkey=value` separated by `;`. A `get` whose directives carry the same
/// qualifiers (`PMIX_INFO_QUALIFIER`) reads this key, so several values of
/// one key live side by side, selected by their qualifiers.
pub fn qualified_key(key: &str, qualifiers: &[(&str, &Value)]) -> String {
    let mut q: Vec<(&str, String)> = qualifiers
        .iter()
        .map(|(k, v)| (*k, qualifier_text(v)))
        .collect();
    q.sort();
    let mut s = format!("{key}#q:");
    for (i, (k, v)) in q.iter().enumerate() {
        if i > 0 {
            s.push(';');
        }
        s.push_str(k);
        s.push('=');
        s.push_str(v);
    }
    s
}

/// The qualifiers among a `get`'s directives (those flagged
/// `PMIX_INFO_QUALIFIER`), as [`qualified_key`] takes them; empty when
/// none.
pub fn qualifiers_of(info: &[Info]) -> Vec<(&str, &Value)> {
    info.iter()
        .filter(|i| i.flags.contains(InfoFlags::QUALIFIER))
        .map(|i| (i.key.as_str(), &i.value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Rank};

    #[test]
    fn outcome_round_trips() {
        let ns = Nspace::new("job").unwrap();
        let o = Outcome {
            partial: true,
            context_id: Some(7),
            members: vec![
                Proc::from_parts(ns.clone(), Rank(2)),
                Proc::from_parts(ns, Rank(0)),
            ],
        };
        assert_eq!(decode_outcome(&encode_outcome(&o)).unwrap(), o);
        assert!(decode_outcome(&Value::Uint32(1)).is_err());
    }

    #[test]
    fn qualified_keys_ignore_order_and_integer_width() {
        let a = qualified_key(
            "k",
            &[
                ("pmix.grp.ctxid", &Value::Size(5)),
                ("z", &Value::String("x".into())),
            ],
        );
        let b = qualified_key(
            "k",
            &[
                ("z", &Value::String("x".into())),
                ("pmix.grp.ctxid", &Value::Uint64(5)),
            ],
        );
        assert_eq!(a, b);
        assert_eq!(a, "k#q:pmix.grp.ctxid=5;z=x");
        assert_ne!(
            a,
            qualified_key("k", &[("pmix.grp.ctxid", &Value::Size(6))])
        );
    }
}
