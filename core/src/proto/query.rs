//! What a `QUERY` request and its reply carry (`PMIx_Query_info`).
//!
//! The request is a count-prefixed list of `PMIX_QUERY` values (keys and
//! qualifiers as the caller gave them). The reply's status is `SUCCESS`
//! (every key answered), `PMIX_ERR_PARTIAL_SUCCESS` (some answered: the
//! answers travel), or an error (`PMIX_ERR_NOT_FOUND` when nothing could be
//! answered, `PMIX_ERR_BAD_PARAM` for a key missing its required
//! qualifier); its value is a `DATA_ARRAY` of `PMIX_INFO`, one info per
//! answered key, keyed by the query key, in the order asked — the flat
//! result array OpenPMIx 4.2 hands to a C caller.

use crate::codec::{Decoder, Encoder};
use crate::{attrs, DataArray, Error, Info, Query, Result, Status, Value};

/// Writes `queries` (a count, then each as a `PMIX_QUERY` value).
pub fn encode_queries(e: &mut Encoder, queries: &[Query]) {
    e.put_u32(u32::try_from(queries.len()).unwrap_or(u32::MAX));
    for q in queries {
        e.put_value(&Value::Query(Box::new(q.clone())));
    }
}

/// The inverse of [`encode_queries`].
///
/// # Errors
/// The decoder's errors; `PMIX_ERR_UNPACK_FAILURE` for an element that is
/// not a query.
pub fn decode_queries(d: &mut Decoder<'_>) -> Result<Vec<Query>> {
    // a type tag and two empty counts at least
    let n = d.get_count("query list", 10)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        match d.get_value()? {
            Value::Query(q) => out.push(*q),
            other => {
                return Err(Error::with_context(
                    Status::ERR_UNPACK_FAILURE,
                    format!("query list holds a {}", other.data_type()),
                ))
            }
        }
    }
    Ok(out)
}

/// The answers as one reply value.
pub fn encode_results(results: &[Info]) -> Value {
    Value::DataArray(Box::new(DataArray::from_infos(results.to_vec())))
}

/// The inverse of [`encode_results`] (no value: no answers).
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` for a value of another shape.
pub fn decode_results(v: Option<&Value>) -> Result<Vec<Info>> {
    match v {
        None => Ok(Vec::new()),
        Some(v) => v
            .as_info_array()
            .map(|l| l.into_iter().cloned().collect())
            .map_err(|_| {
                Error::with_context(
                    Status::ERR_UNPACK_FAILURE,
                    "query reply: not an array of infos",
                )
            }),
    }
}

/// The qualifier a query key cannot be answered without, if any:
/// `PMIX_NSPACE` for the proc tables and job status, `PMIX_PSET_NAME` for
/// a set's membership, `PMIX_GROUP_ID` for a group's.
pub fn required_qualifier(key: &str) -> Option<&'static str> {
    match key {
        attrs::QUERY_PROC_TABLE | attrs::QUERY_LOCAL_PROC_TABLE | attrs::QUERY_JOB_STATUS => {
            Some(attrs::NSPACE)
        }
        attrs::QUERY_PSET_MEMBERSHIP => Some(attrs::PSET_NAME),
        attrs::QUERY_GROUP_MEMBERSHIP => Some(attrs::GROUP_ID),
        _ => None,
    }
}

/// Checks `queries` before anything is sent: some key at all, and each
/// key's required qualifier present.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` naming the key and the qualifier it lacks.
pub fn check_queries(queries: &[Query]) -> Result<()> {
    if queries.iter().all(|q| q.keys.is_empty()) {
        return Err(Error::bad_param("query: no keys"));
    }
    for q in queries {
        for k in &q.keys {
            if let Some(need) = required_qualifier(k) {
                if !q.qualifiers.iter().any(|i| i.is(need)) {
                    return Err(Error::bad_param(format!(
                        "query {k} needs a {need} qualifier"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The overall status of a query given how many keys were asked and how
/// many answered: all → `SUCCESS`, some → `PMIX_ERR_PARTIAL_SUCCESS`,
/// none → `PMIX_ERR_NOT_FOUND`.
pub fn overall_status(asked: usize, answered: usize) -> Status {
    if answered == 0 {
        Status::ERR_NOT_FOUND
    } else if answered < asked {
        Status::ERR_PARTIAL_SUCCESS
    } else {
        Status::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_results_round_trip() {
        let qs = vec![
            Query {
                keys: vec!["pmix.qry.ns".into(), "pmix.qry.psets".into()],
                qualifiers: vec![],
            },
            Query {
                keys: vec!["pmix.qry.ptable".into()],
                qualifiers: vec![Info::new("pmix.nspace", Value::String("a".into())).unwrap()],
            },
        ];
        let mut e = Encoder::new();
        encode_queries(&mut e, &qs);
        let b = e.finish();
        let mut d = Decoder::new(&b);
        assert_eq!(decode_queries(&mut d).unwrap(), qs);
        d.expect_end().unwrap();
        let mut d = Decoder::new(&[0xff, 0xff, 0xff, 0x7f]);
        assert!(decode_queries(&mut d).is_err());
        let res = vec![Info::new("pmix.qry.ns", Value::String("a,b".into())).unwrap()];
        assert_eq!(decode_results(Some(&encode_results(&res))).unwrap(), res);
        assert!(decode_results(Some(&Value::Uint8(1))).is_err());
        assert_eq!(overall_status(2, 2), Status::SUCCESS);
        assert_eq!(overall_status(2, 1), Status::ERR_PARTIAL_SUCCESS);
        assert_eq!(overall_status(2, 0), Status::ERR_NOT_FOUND);
        let bare = Query {
            keys: vec![attrs::QUERY_PROC_TABLE.into()],
            qualifiers: vec![],
        };
        let e = check_queries(&[bare]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        assert!(check_queries(&qs).is_ok());
        assert!(check_queries(&[Query::default()]).is_err());
    }
}
