//! `get` with no key: every value this process can see of a proc, as
//! `PMIx_Get` with a NULL key returns it.

use pmix_core::proto::{self, keys};
use pmix_core::{codec, Error, Info, Proc, Rank, Result, Scope, Status};

use crate::{peers, Inner};

/// Adds `info` unless `out` already has its key (the first source wins).
fn add(out: &mut Vec<Info>, info: Info) {
    if !out.iter().any(|o| o.key == info.key) {
        out.push(info);
    }
}

/// Every value of `proc` in this process, without waiting: the values
/// stored with `store_internal`; this process's own puts (committed or
/// not) when `proc` is this process; a local peer's committed card (scope
/// LOCAL or GLOBAL); then the job store's entries of the rank (the
/// registered job data, remote cards a fence brought) — for `WILDCARD`,
/// the job-level data. A key appears once, from the first of those.
pub(crate) fn get_all(inner: &Inner, proc: &Proc) -> Result<Vec<Info>> {
    if proc.rank == Rank::UNDEF {
        return Err(Error::bad_param(
            "get with a NULL key: rank UNDEF names no single proc",
        ));
    }
    let (ns, rank) = (proc.nspace.as_str(), proc.rank.0);
    let mut out = Vec::new();
    for (p, k, v) in inner.internal.lock().iter().rev() {
        if p == proc {
            add(&mut out, Info::new(k, v.clone())?);
        }
    }
    if proc == &inner.me {
        for p in inner.puts.lock().iter() {
            add(&mut out, Info::new(&p.key, p.value.clone())?);
        }
    } else if let Some(slot) = peers::slot_of(inner, proc) {
        if let Some(store) = peers::store(inner, slot) {
            if let Ok(t) = store.pin() {
                for (k, b) in t.keys_for(ns, rank) {
                    match proto::decode_modex_value(b) {
                        Ok((scope, v)) if scope != Scope::REMOTE => add(&mut out, Info::new(k, v)?),
                        _ => {}
                    }
                }
            }
        }
    }
    if let Ok(t) = inner.job.pin() {
        for (k, b) in t.keys_for(ns, rank) {
            if k.starts_with(keys::PRIVATE_PREFIX) {
                continue;
            }
            if let Ok(v) = codec::decode_value(b) {
                add(&mut out, Info::new(k, v)?);
            }
        }
    }
    if out.is_empty() {
        return Err(Error::with_context(
            Status::ERR_NOT_FOUND,
            format!("no value of {proc:?} is known to this process"),
        ));
    }
    Ok(out)
}
