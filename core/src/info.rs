//! `Info`: a key, a value and directive flags (`pmix_info_t`).

use crate::codes::InfoFlags;
use crate::proc::Key;
use crate::status::Result;
use crate::value::Value;

/// A key/value pair with directives (`pmix_info_t`): how attributes are
/// passed to every PMIx call.
///
/// # Examples
/// ```
/// use pmix_core::{Info, InfoFlags};
/// let i = Info::new("pmix.timeout", 5i32).unwrap().required();
/// assert!(i.flags.contains(InfoFlags::REQD));
/// assert_eq!(i.key, "pmix.timeout");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[doc(alias = "pmix_info_t")]
pub struct Info {
    /// The attribute or data key.
    pub key: Key,
    /// The value.
    pub value: Value,
    /// Directive flags (`PMIX_INFO_REQD`, ...).
    pub flags: InfoFlags,
}

impl Info {
    /// Builds an info with no flags, validating the key.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an invalid key (see [`Key::new`]).
    pub fn new(key: impl AsRef<str>, value: impl Into<Value>) -> Result<Info> {
        Ok(Info {
            key: Key::new(key)?,
            value: value.into(),
            flags: InfoFlags::NONE,
        })
    }

    /// A flag attribute given without a value (`PMIX_UNDEF`: true).
    ///
    /// # Errors
    /// As [`Info::new`].
    pub fn flag(key: impl AsRef<str>) -> Result<Info> {
        Info::new(key, Value::Undef)
    }

    /// The same info marked `PMIX_INFO_REQD`.
    #[must_use]
    pub fn required(mut self) -> Info {
        self.flags = self.flags.with(InfoFlags::REQD);
        self
    }

    /// `true` when marked `PMIX_INFO_REQD`.
    pub fn is_required(&self) -> bool {
        self.flags.contains(InfoFlags::REQD)
    }

    /// `true` when `key` is this info's key.
    pub fn is(&self, key: &str) -> bool {
        self.key == key
    }
}

/// Finds the first info with `key` in a list.
pub fn find<'a>(infos: &'a [Info], key: &str) -> Option<&'a Info> {
    infos.iter().find(|i| i.is(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Status;

    #[test]
    fn new_validates_the_key() {
        assert_eq!(
            Info::new("k\0", 1u8).unwrap_err().status(),
            Status::ERR_BAD_PARAM
        );
        let i = Info::flag("pmix.evfirst").unwrap();
        assert!(i.value.is_true().unwrap());
        assert!(!i.is_required());
    }

    #[test]
    fn find_returns_first_match() {
        let list = vec![
            Info::new("a", 1u8).unwrap(),
            Info::new("b", 2u8).unwrap(),
            Info::new("a", 3u8).unwrap(),
        ];
        assert_eq!(find(&list, "a").unwrap().value, Value::Uint8(1));
        assert!(find(&list, "c").is_none());
    }
}
