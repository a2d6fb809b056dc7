//! `pmixrun --pset NAME:RANKS`: a process set defined before the job
//! starts. `RANKS` is a comma-separated list of ranks and inclusive
//! ranges (`0,2-3`), or `all` / `*` for the whole job.

use std::fmt;

/// One `--pset` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PsetArg {
    /// The set's name.
    pub name: String,
    /// Its ranks, ascending, without duplicates; `None`: every rank.
    pub ranks: Option<Vec<u32>>,
}

/// Why a `--pset` argument is malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PsetError(pub String);

impl fmt::Display for PsetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad(v: &str, why: &str) -> PsetError {
    PsetError(format!(
        "--pset {v:?}: {why} (expected NAME:RANKS, RANKS like 0,2-3 or all)"
    ))
}

/// Parses `NAME:RANKS`.
///
/// # Errors
/// A message naming what is wrong: no `:`, an empty name, an empty or
/// non-numeric rank, a range whose end is before its start.
pub fn parse(v: &str) -> Result<PsetArg, PsetError> {
    let (name, ranks) = v.rsplit_once(':').ok_or_else(|| bad(v, "no ':'"))?;
    if name.is_empty() || name.contains(',') {
        return Err(bad(v, "the name is empty or holds a ','"));
    }
    if ranks == "all" || ranks == "*" {
        return Ok(PsetArg {
            name: name.to_owned(),
            ranks: None,
        });
    }
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| bad(v, "not a rank"));
    let mut out = Vec::new();
    for part in ranks.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if b < a {
                    return Err(bad(v, "a range ends before it starts"));
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(PsetArg {
        name: name.to_owned(),
        ranks: Some(out),
    })
}

impl PsetArg {
    /// The ranks of a job of `np` processes, or a message when some rank
    /// is not in it.
    ///
    /// # Errors
    /// A rank at or beyond `np`.
    pub fn ranks_in(&self, np: u32) -> Result<Vec<u32>, PsetError> {
        match &self.ranks {
            None => Ok((0..np).collect()),
            Some(r) => match r.iter().find(|&&x| x >= np) {
                Some(x) => Err(PsetError(format!(
                    "--pset {}: rank {x} is not in a job of {np} processes",
                    self.name
                ))),
                None => Ok(r.clone()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_lists_ranges_and_all() {
        let p = parse("even:0,2-4,2").unwrap();
        assert_eq!(p.name, "even");
        assert_eq!(p.ranks, Some(vec![0, 2, 3, 4]));
        assert_eq!(parse("w:all").unwrap().ranks, None);
        assert_eq!(parse("w:*").unwrap().ranks_in(3).unwrap(), vec![0, 1, 2]);
        assert!(parse("a:0,5").unwrap().ranks_in(3).is_err());
        for b in ["nocolon", ":1", "a:", "a:x", "a:3-1", "a,b:1"] {
            assert!(parse(b).is_err(), "{b}");
        }
    }
}
