//! Relative locality of two processes from their locality strings
//! (`PMIX_LOCALITY_STRING`, `PMIx_Get_relative_locality`).
//!
//! A locality string is fields separated by `:`, each a two-letter level
//! (`SK` package, `NM` NUMA domain, `L3`/`L2`/`L1` caches, `CR` core, `HT`
//! hardware thread) followed by the list of that level's indexes the
//! process is bound to, in hwloc's list syntax (`0-3,5`; empty: none),
//! optionally after a `hwloc:` prefix. Two processes on the same node
//! share a level when their index lists for it intersect; they always
//! share the node.

use crate::{Error, Result};

/// `PMIX_LOCALITY_SHARE_HWTHREAD` … `PMIX_LOCALITY_SHARE_NODE` (`pmix_locality_t`).
pub mod share {
    /// Same hardware thread.
    pub const HWTHREAD: u16 = 0x0001;
    /// Same core.
    pub const CORE: u16 = 0x0002;
    /// Same L1 cache.
    pub const L1CACHE: u16 = 0x0004;
    /// Same L2 cache.
    pub const L2CACHE: u16 = 0x0008;
    /// Same L3 cache.
    pub const L3CACHE: u16 = 0x0010;
    /// Same package (socket).
    pub const PACKAGE: u16 = 0x0020;
    /// Same NUMA domain.
    pub const NUMA: u16 = 0x0040;
    /// Same node.
    pub const NODE: u16 = 0x4000;
}

/// Largest index a list may name (a bound on what a peer's string makes
/// this side allocate).
const MAX_INDEX: u32 = 1 << 20;

/// The level bit of a field's two-letter prefix.
fn level(prefix: &str) -> Option<u16> {
    Some(match prefix {
        "HT" => share::HWTHREAD,
        "CR" => share::CORE,
        "L1" => share::L1CACHE,
        "L2" => share::L2CACHE,
        "L3" => share::L3CACHE,
        "SK" => share::PACKAGE,
        "NM" => share::NUMA,
        _ => return None,
    })
}

/// Index ranges, inclusive, sorted by their start.
type Ranges = Vec<(u32, u32)>;

/// Parses an hwloc list (`0-3,5`) into sorted ranges.
fn ranges(list: &str) -> Result<Ranges> {
    let bad = || Error::bad_param(format!("locality: bad index list {list:?}"));
    let mut v = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, b),
            None => (part, part),
        };
        let a: u32 = a.trim().parse().map_err(|_| bad())?;
        let b: u32 = b.trim().parse().map_err(|_| bad())?;
        if a > b || b > MAX_INDEX {
            return Err(bad());
        }
        v.push((a, b));
    }
    v.sort_unstable();
    Ok(v)
}

fn intersects(x: &[(u32, u32)], y: &[(u32, u32)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        if x[i].1 < y[j].0 {
            i += 1;
        } else if y[j].1 < x[i].0 {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// The fields of a locality string: (level bit, index ranges).
fn fields(s: &str) -> Result<Vec<(u16, Ranges)>> {
    let body = s
        .get(..6)
        .filter(|p| p.eq_ignore_ascii_case("hwloc:"))
        .map_or(s, |_| &s[6..]);
    let mut out = Vec::new();
    for f in body.split(':').filter(|f| !f.is_empty()) {
        let (prefix, list) = (f.get(..2), f.get(2..));
        let bit = prefix.and_then(level).ok_or_else(|| {
            Error::bad_param(format!("locality: unknown level in {f:?} of {s:?}"))
        })?;
        out.push((bit, ranges(list.unwrap_or(""))?));
    }
    if out.is_empty() {
        return Err(Error::bad_param(format!("locality: {s:?} names no level")));
    }
    Ok(out)
}

/// The `PMIX_LOCALITY_SHARE_*` bits two processes of one node share,
/// given their locality strings (`PMIX_LOCALITY_SHARE_NODE` at least).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a string that is not a locality string.
pub fn relative(a: &str, b: &str) -> Result<u16> {
    let (fa, fb) = (fields(a)?, fields(b)?);
    let mut shared = share::NODE;
    for (bit, ra) in &fa {
        if let Some((_, rb)) = fb.iter().find(|(x, _)| x == bit) {
            if intersects(ra, rb) {
                shared |= bit;
            }
        }
    }
    Ok(shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unbound_ranks_share_everything_they_list() {
        let whole = "SK0:L30:L20-1:L10-1:CR0-1:HT0-1";
        let all = share::NODE
            | share::PACKAGE
            | share::L3CACHE
            | share::L2CACHE
            | share::L1CACHE
            | share::CORE
            | share::HWTHREAD;
        assert_eq!(relative(whole, whole).unwrap(), all);
        // the prefix OpenPMIx's reader expects is accepted too
        assert_eq!(relative(&format!("hwloc:{whole}"), whole).unwrap(), all);
    }

    #[test]
    fn bound_ranks_share_only_the_levels_that_intersect() {
        let a = "SK0:NM0:L30:L20:L10:CR0:HT0-1";
        let b = "SK0:NM0:L30:L21:L11:CR1:HT2-3";
        assert_eq!(
            relative(a, b).unwrap(),
            share::NODE | share::PACKAGE | share::NUMA | share::L3CACHE
        );
        let c = "SK1:NM1:L31:L22:L12:CR2:HT4";
        assert_eq!(relative(a, c).unwrap(), share::NODE);
        // a level only one side lists is not shared
        assert_eq!(relative("SK0", "CR0").unwrap(), share::NODE);
    }

    #[test]
    fn bad_strings_are_refused() {
        for bad in ["", "XX0", "SK0-", "SK3-1", "SKa", "SK99999999", "hwloc:"] {
            assert!(relative(bad, "SK0").is_err(), "{bad:?}");
        }
    }
}
