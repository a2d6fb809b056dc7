//! Process identifiers: namespaces, ranks, procs, and attribute key names.
//!
//! Names are validated at construction against the standard limits
//! (`PMIX_MAX_NSLEN` = 255 bytes, `PMIX_MAX_KEYLEN` = 511 bytes, no NUL):
//! a name that does not fit is an error, never silently truncated.

use std::fmt;
use std::sync::Arc;

use crate::status::{Error, Result};

/// `PMIX_MAX_NSLEN`: the longest namespace, in bytes (the C array adds a NUL).
pub const MAX_NSLEN: usize = 255;
/// `PMIX_MAX_KEYLEN`: the longest key, in bytes (the C array adds a NUL).
pub const MAX_KEYLEN: usize = 511;

fn check_name(what: &str, s: &str, max: usize, allow_empty: bool) -> Result<()> {
    if s.len() > max {
        return Err(Error::bad_param(format!(
            "{what} is {} bytes, the limit is {max}",
            s.len()
        )));
    }
    if s.as_bytes().contains(&0) {
        return Err(Error::bad_param(format!("{what} contains a NUL byte")));
    }
    if !allow_empty && s.is_empty() {
        return Err(Error::bad_param(format!("{what} is empty")));
    }
    Ok(())
}

/// A namespace (`pmix_nspace_t`): at most 255 bytes, no NUL. Cheap to clone.
///
/// The empty namespace is allowed: the C API uses it for "no namespace"
/// (e.g. an event from the RM has no source).
///
/// # Examples
/// ```
/// use pmix_core::Nspace;
/// let ns = Nspace::new("job-1").unwrap();
/// assert_eq!(ns.as_str(), "job-1");
/// assert!(Nspace::new("x".repeat(256)).is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[doc(alias = "pmix_nspace_t")]
pub struct Nspace(Arc<str>);

impl Nspace {
    /// Validates and builds a namespace.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when longer than [`MAX_NSLEN`] bytes or when it
    /// contains a NUL.
    pub fn new(s: impl AsRef<str>) -> Result<Self> {
        let s = s.as_ref();
        check_name("nspace", s, MAX_NSLEN, true)?;
        Ok(Nspace(Arc::from(s)))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `true` for the empty namespace.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Nspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Nspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.0)
    }
}

impl TryFrom<&str> for Nspace {
    type Error = Error;
    fn try_from(s: &str) -> Result<Self> {
        Nspace::new(s)
    }
}

/// An attribute or data key (`pmix_key_t`): at most 511 bytes, no NUL.
///
/// The empty key is representable because the event results array keys
/// each handler's status by the handler's name, which is empty for an
/// unnamed handler; the data APIs (`put`, `get`) refuse it.
///
/// # Examples
/// ```
/// use pmix_core::Key;
/// assert!(Key::new("pmix.job.size").is_ok());
/// assert!(Key::new("").unwrap().is_empty());
/// assert!(Key::new("a\0b").is_err());
/// assert!(Key::new("k".repeat(512)).is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[doc(alias = "pmix_key_t")]
pub struct Key(Arc<str>);

impl Key {
    /// Validates and builds a key.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when longer than [`MAX_KEYLEN`] bytes or
    /// containing a NUL.
    pub fn new(s: impl AsRef<str>) -> Result<Self> {
        let s = s.as_ref();
        check_name("key", s, MAX_KEYLEN, true)?;
        Ok(Key(Arc::from(s)))
    }

    /// Like [`Key::new`], and also refuses the empty key: for data keys
    /// (`put`, `get`, publish).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when empty, too long or containing a NUL.
    pub fn new_data_key(s: impl AsRef<str>) -> Result<Self> {
        let s = s.as_ref();
        check_data_key(s)?;
        Ok(Key(Arc::from(s)))
    }

    /// `true` for the empty key.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The key string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `true` for keys in the reserved `pmix.` prefix, which user `put`
    /// calls may not use.
    pub fn is_reserved(&self) -> bool {
        is_reserved_key(&self.0)
    }
}

/// Checks a key for a data operation (`put`, `get`) without building a
/// [`Key`]: the rules of [`Key::new_data_key`].
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when empty, too long or containing a NUL.
pub fn check_data_key(s: &str) -> Result<()> {
    check_name("key", s, MAX_KEYLEN, false)
}

/// `true` for keys in the reserved `pmix` prefix (see [`Key::is_reserved`]).
pub fn is_reserved_key(s: &str) -> bool {
    s.starts_with("pmix")
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.0)
    }
}

impl TryFrom<&str> for Key {
    type Error = Error;
    fn try_from(s: &str) -> Result<Self> {
        Key::new(s)
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

/// A process rank within a namespace (`pmix_rank_t`, 32 bits), with the
/// standard's special values.
///
/// # Examples
/// ```
/// use pmix_core::Rank;
/// assert_eq!(Rank::WILDCARD.0, 0xFFFF_FFFE);
/// assert!(Rank(3).is_valid());
/// assert!(!Rank::UNDEF.is_valid());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
#[doc(alias = "pmix_rank_t")]
pub struct Rank(pub u32);

impl Rank {
    /// `PMIX_RANK_UNDEF`: no particular rank (job-level data when getting).
    pub const UNDEF: Rank = Rank(0xFFFF_FFFF);
    /// `PMIX_RANK_WILDCARD`: every rank of the namespace.
    pub const WILDCARD: Rank = Rank(0xFFFF_FFFE);
    /// `PMIX_RANK_LOCAL_NODE`: every rank of the namespace on this node.
    pub const LOCAL_NODE: Rank = Rank(0xFFFF_FFFD);
    /// `PMIX_RANK_INVALID`.
    pub const INVALID: Rank = Rank(0xFFFF_FFFC);
    /// `PMIX_RANK_LOCAL_PEERS`: the local peers of the caller.
    pub const LOCAL_PEERS: Rank = Rank(0xFFFF_FFFB);
    /// `PMIX_RANK_VALID`: ranks at or below this value are real ranks.
    pub const VALID: Rank = Rank(0xFFFF_FFCD);

    /// `true` for a real rank (not one of the special values).
    pub fn is_valid(self) -> bool {
        self.0 <= Rank::VALID.0
    }

    /// The standard name of a special rank, if this is one.
    pub fn special_name(self) -> Option<&'static str> {
        Some(match self {
            Rank::UNDEF => "PMIX_RANK_UNDEF",
            Rank::WILDCARD => "PMIX_RANK_WILDCARD",
            Rank::LOCAL_NODE => "PMIX_RANK_LOCAL_NODE",
            Rank::INVALID => "PMIX_RANK_INVALID",
            Rank::LOCAL_PEERS => "PMIX_RANK_LOCAL_PEERS",
            _ => return None,
        })
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.special_name() {
            Some(n) => f.write_str(n),
            None => write!(f, "{}", self.0),
        }
    }
}

impl fmt::Debug for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<u32> for Rank {
    fn from(r: u32) -> Self {
        Rank(r)
    }
}

/// A process name (`pmix_proc_t`): namespace and rank.
///
/// # Examples
/// ```
/// use pmix_core::{Proc, Rank};
/// let p = Proc::new("job-1", 3).unwrap();
/// assert_eq!(p.rank, Rank(3));
/// assert_eq!(p.to_string(), "job-1:3");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[doc(alias = "pmix_proc_t")]
pub struct Proc {
    /// The namespace.
    pub nspace: Nspace,
    /// The rank within it.
    pub rank: Rank,
}

impl Default for Rank {
    fn default() -> Self {
        Rank::UNDEF
    }
}

impl Proc {
    /// Builds a proc, validating the namespace.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an invalid namespace (see [`Nspace::new`]).
    pub fn new(nspace: impl AsRef<str>, rank: impl Into<Rank>) -> Result<Self> {
        Ok(Proc {
            nspace: Nspace::new(nspace)?,
            rank: rank.into(),
        })
    }

    /// A proc from an already validated namespace.
    pub fn from_parts(nspace: Nspace, rank: Rank) -> Self {
        Proc { nspace, rank }
    }

    /// `true` when `self` names `other`, taking `PMIX_RANK_WILDCARD` in
    /// `self` as "any rank of the namespace".
    pub fn matches(&self, other: &Proc) -> bool {
        self.nspace == other.nspace && (self.rank == Rank::WILDCARD || self.rank == other.rank)
    }
}

impl fmt::Display for Proc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.nspace, self.rank)
    }
}

impl fmt::Debug for Proc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Proc({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::Status;

    #[test]
    fn nspace_limits_are_enforced_not_truncated() {
        assert!(Nspace::new("a".repeat(255)).is_ok());
        let e = Nspace::new("a".repeat(256)).unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        assert!(Nspace::new("a\0").is_err());
        assert!(Nspace::new("").unwrap().is_empty());
    }

    #[test]
    fn key_limits_are_enforced() {
        assert!(Key::new("k".repeat(511)).is_ok());
        assert!(Key::new("k".repeat(512)).is_err());
        assert!(Key::new("").unwrap().is_empty());
        assert!(Key::new_data_key("").is_err());
        assert!(Key::new("pmix.job.size").unwrap().is_reserved());
        assert!(!Key::new("my.card").unwrap().is_reserved());
    }

    #[test]
    fn special_ranks_have_standard_values() {
        assert_eq!(Rank::UNDEF.0, u32::MAX);
        assert_eq!(Rank::WILDCARD.0, u32::MAX - 1);
        assert_eq!(Rank::LOCAL_NODE.0, u32::MAX - 2);
        assert_eq!(Rank::INVALID.0, u32::MAX - 3);
        assert_eq!(Rank::LOCAL_PEERS.0, u32::MAX - 4);
        assert!(Rank(0).is_valid() && Rank::VALID.is_valid());
        assert!(!Rank::LOCAL_PEERS.is_valid());
        assert_eq!(Rank::WILDCARD.to_string(), "PMIX_RANK_WILDCARD");
    }

    #[test]
    fn wildcard_proc_matches_any_rank() {
        let w = Proc::new("ns", Rank::WILDCARD).unwrap();
        assert!(w.matches(&Proc::new("ns", 5).unwrap()));
        assert!(!w.matches(&Proc::new("other", 5).unwrap()));
        assert!(!Proc::new("ns", 1)
            .unwrap()
            .matches(&Proc::new("ns", 2).unwrap()));
    }
}
