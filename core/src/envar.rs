//! Environment-variable directives (`PMIX_SET_ENVAR`, `PMIX_ADD_ENVAR`,
//! `PMIX_UNSET_ENVAR`, `PMIX_PREPEND_ENVAR`, `PMIX_APPEND_ENVAR`,
//! `PMIX_FIRST_ENVAR`) and the rules that apply them to a process's
//! environment, as a launcher does for a spawned application.
//!
//! # Rules
//! - The job-level directives apply first, then the application's own,
//!   each list in the order given ([`EnvEdits::for_app`]); a later
//!   directive sees what the earlier ones did.
//! - `SET` overwrites; `ADD` sets only when the variable is not set (an
//!   empty value counts as set); `UNSET` removes.
//! - `PREPEND` / `APPEND` put the value before / after the current value,
//!   joined by the separator; when the variable is missing or empty they
//!   create it with the value alone (no dangling separator, which in a
//!   `PATH` would mean the current directory). `FIRST` removes every
//!   element equal to the value and then prepends it.
//! - A separator of 0 joins without a character in between.
//! - Malformed directives are `PMIX_ERR_BAD_PARAM` and nothing applies:
//!   an empty name, a name with `=` or NUL, a value with NUL, a
//!   non-ASCII separator, or a value of the wrong type.
//!
//! The result is a set of edits ([`EnvEdits`]) over a base environment the
//! caller reads through a lookup function, so a launcher can apply them to
//! a `Command` (set or remove) without copying or re-encoding its own
//! environment.

use std::collections::BTreeMap;

use crate::attrs;
use crate::info::Info;
use crate::status::{Error, Result};
use crate::value::{Envar, Value};

/// One directive, as a spawn's job info or an application's info carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvDirective {
    /// `PMIX_SET_ENVAR`: set, overwriting.
    Set(Envar),
    /// `PMIX_ADD_ENVAR`: set unless already set.
    Add(Envar),
    /// `PMIX_UNSET_ENVAR`: remove the named variable.
    Unset(String),
    /// `PMIX_PREPEND_ENVAR`: value, separator, old value.
    Prepend(Envar),
    /// `PMIX_APPEND_ENVAR`: old value, separator, value.
    Append(Envar),
    /// `PMIX_FIRST_ENVAR`: the value becomes the first element.
    First(Envar),
}

fn bad(msg: String) -> Error {
    Error::bad_param(msg)
}

fn check_name(key: &str, name: &str) -> Result<()> {
    if name.is_empty() || name.contains('=') || name.contains('\0') {
        return Err(bad(format!(
            "{key}: {name:?} is not an environment variable name"
        )));
    }
    Ok(())
}

fn check_envar(key: &str, e: &Envar) -> Result<()> {
    check_name(key, &e.envar)?;
    if e.value.contains('\0') {
        return Err(bad(format!("{key}: the value of {} holds a NUL", e.envar)));
    }
    if !e.separator.is_ascii() {
        return Err(bad(format!(
            "{key}: the separator of {} is not an ASCII character ({:#04x})",
            e.envar, e.separator
        )));
    }
    Ok(())
}

impl EnvDirective {
    /// The directive `info` carries, `None` when its key is not one of the
    /// environment directives.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a directive key with a malformed value (see
    /// the module documentation).
    pub fn from_info(info: &Info) -> Option<Result<EnvDirective>> {
        let key = info.key.as_str();
        let envar = |make: fn(Envar) -> EnvDirective| -> Result<EnvDirective> {
            match &info.value {
                Value::Envar(e) => {
                    check_envar(key, e)?;
                    Ok(make(e.clone()))
                }
                v => Err(bad(format!(
                    "{key} takes a PMIX_ENVAR, not a {}",
                    v.data_type()
                ))),
            }
        };
        Some(match key {
            k if k == attrs::SET_ENVAR => envar(EnvDirective::Set),
            k if k == attrs::ADD_ENVAR => envar(EnvDirective::Add),
            k if k == attrs::PREPEND_ENVAR => envar(EnvDirective::Prepend),
            k if k == attrs::APPEND_ENVAR => envar(EnvDirective::Append),
            k if k == attrs::FIRST_ENVAR => envar(EnvDirective::First),
            k if k == attrs::UNSET_ENVAR => match &info.value {
                Value::String(name) => {
                    check_name(k, name).map(|()| EnvDirective::Unset(name.clone()))
                }
                // Some callers pass the name in a pmix_envar_t.
                Value::Envar(e) => {
                    check_name(k, &e.envar).map(|()| EnvDirective::Unset(e.envar.clone()))
                }
                v => Err(bad(format!(
                    "{k} takes a PMIX_STRING, not a {}",
                    v.data_type()
                ))),
            },
            _ => return None,
        })
    }

    /// The directives among `infos`, in order; other infos are skipped.
    ///
    /// # Errors
    /// The first malformed directive's error.
    pub fn collect(infos: &[Info]) -> Result<Vec<EnvDirective>> {
        infos.iter().filter_map(EnvDirective::from_info).collect()
    }

    /// The info carrying this directive.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when the directive is malformed.
    pub fn to_info(&self) -> Result<Info> {
        let (key, value) = match self {
            EnvDirective::Set(e) => (attrs::SET_ENVAR, Value::Envar(e.clone())),
            EnvDirective::Add(e) => (attrs::ADD_ENVAR, Value::Envar(e.clone())),
            EnvDirective::Prepend(e) => (attrs::PREPEND_ENVAR, Value::Envar(e.clone())),
            EnvDirective::Append(e) => (attrs::APPEND_ENVAR, Value::Envar(e.clone())),
            EnvDirective::First(e) => (attrs::FIRST_ENVAR, Value::Envar(e.clone())),
            EnvDirective::Unset(n) => (attrs::UNSET_ENVAR, Value::String(n.clone())),
        };
        let info = Info::new(key, value)?;
        // Round-trip through the checks.
        EnvDirective::from_info(&info).transpose()?;
        Ok(info)
    }

    /// The variable this directive changes.
    pub fn name(&self) -> &str {
        match self {
            EnvDirective::Set(e)
            | EnvDirective::Add(e)
            | EnvDirective::Prepend(e)
            | EnvDirective::Append(e)
            | EnvDirective::First(e) => &e.envar,
            EnvDirective::Unset(n) => n,
        }
    }
}

/// `a`, the separator (when not 0), `b`.
fn join(a: &str, sep: u8, b: &str) -> String {
    let mut s = String::with_capacity(a.len() + b.len() + 1);
    s.push_str(a);
    if sep != 0 {
        s.push(char::from(sep));
    }
    s.push_str(b);
    s
}

/// Changes to a base environment: each changed variable's new value, or
/// `None` when it is removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvEdits {
    changes: BTreeMap<String, Option<String>>,
}

impl EnvEdits {
    /// No changes.
    pub fn new() -> Self {
        EnvEdits::default()
    }

    /// The edits of `job` directives then `app` directives (each in order)
    /// over the base environment `base` reads.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a malformed directive in either list;
    /// nothing is applied then.
    pub fn for_app(
        job: &[Info],
        app: &[Info],
        base: impl Fn(&str) -> Option<String>,
    ) -> Result<EnvEdits> {
        EnvEdits::new().with_directives(job, app, base)
    }

    /// These edits followed by the `job` directives then the `app`
    /// directives (a launcher's own settings first, then a spawn's).
    ///
    /// # Errors
    /// As [`for_app`](Self::for_app); nothing is applied then.
    pub fn with_directives(
        mut self,
        job: &[Info],
        app: &[Info],
        base: impl Fn(&str) -> Option<String>,
    ) -> Result<EnvEdits> {
        let job = EnvDirective::collect(job)?;
        let app = EnvDirective::collect(app)?;
        for d in job.iter().chain(&app) {
            self.apply(d, &base);
        }
        Ok(self)
    }

    /// The current value of `name`: the edited one, else the base's.
    pub fn get(&self, name: &str, base: impl Fn(&str) -> Option<String>) -> Option<String> {
        match self.changes.get(name) {
            Some(v) => v.clone(),
            None => base(name),
        }
    }

    /// Sets `name` to `value` (a plain assignment, as an app's `NAME=VALUE`
    /// environment entry).
    pub fn set(&mut self, name: &str, value: &str) {
        self.changes.insert(name.to_owned(), Some(value.to_owned()));
    }

    /// Applies one directive over `base`.
    pub fn apply(&mut self, d: &EnvDirective, base: impl Fn(&str) -> Option<String>) {
        let current = self.get(d.name(), &base);
        let present = current.as_deref().filter(|v| !v.is_empty());
        let new = match d {
            EnvDirective::Set(e) => Some(e.value.clone()),
            EnvDirective::Add(e) => match current {
                Some(_) => return,
                None => Some(e.value.clone()),
            },
            EnvDirective::Unset(_) => None,
            EnvDirective::Prepend(e) => Some(match present {
                Some(old) => join(&e.value, e.separator, old),
                None => e.value.clone(),
            }),
            EnvDirective::Append(e) => Some(match present {
                Some(old) => join(old, e.separator, &e.value),
                None => e.value.clone(),
            }),
            EnvDirective::First(e) => Some(match present {
                Some(old) if e.separator != 0 => {
                    let sep = char::from(e.separator);
                    let rest: Vec<&str> = old.split(sep).filter(|x| *x != e.value).collect();
                    if rest.is_empty() {
                        e.value.clone()
                    } else {
                        join(&e.value, e.separator, &rest.join(&sep.to_string()))
                    }
                }
                Some(old) if !old.starts_with(e.value.as_str()) => join(&e.value, 0, old),
                Some(old) => old.to_owned(),
                None => e.value.clone(),
            }),
        };
        self.changes.insert(d.name().to_owned(), new);
    }

    /// Every change, by name: `Some(value)` to set, `None` to remove.
    pub fn changes(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        self.changes.iter().map(|(k, v)| (k.as_str(), v.as_deref()))
    }

    /// Whether nothing changes.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

#[cfg(test)]
mod tests;
