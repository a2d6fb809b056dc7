//! The job directories the library supplies when the host gives none.
//!
//! Open MPI 4.1, launched directly, takes `PMIX_TMPDIR` / `PMIX_NSDIR` as
//! its session directories and registers them for recursive removal, so a
//! job must never get a shared directory. A host that registers a
//! namespace without those keys gets fresh ones from the library:
//!
//! - `PMIx_server_init` creates a server session directory (mode 0700)
//!   `<base>/pmixrs-session.<uid>.<pid>.<random>`, where `<base>` is the
//!   host's `PMIX_SERVER_TMPDIR`, else its `PMIX_SYSTEM_TMPDIR`, else the
//!   system temp dir ([`pmix_server::JobDirs`]);
//! - `PMIx_server_register_nspace` adds what the host left out:
//!   `PMIX_TMPDIR` = the session directory, `PMIX_NSDIR` = a fresh 0700
//!   directory of the namespace in it, and `PMIX_TDIR_RMCLEAN` = true when
//!   the library supplied both (and the host did not say);
//! - `PMIx_server_deregister_nspace` (or a failed registration) removes the
//!   namespace's directory, `PMIx_server_finalize` the session directory —
//!   each only if it is still the directory the library created.
//!
//! Whatever the host gives (Open MPI's mpirun gives no directory keys;
//! Slurm gives all three) is kept as it is. Clients that run as another
//! user than the server could not enter a 0700 directory of the server's:
//! when a client of the namespace registered before it runs as another
//! uid, the library supplies nothing (the host should give its own
//! directories to such jobs).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use pmix_core::{attrs, Info, Nspace, Proc, Result, Value};
use pmix_server::JobDirs;

use crate::status::verbose;

/// Prefix of the server session directory's name.
const PREFIX: &str = "pmixrs-session";

/// The server's session directory and its namespace directories.
static DIRS: RwLock<Option<Arc<JobDirs>>> = RwLock::new(None);

/// The uid of each registered client.
static CLIENT_UIDS: Mutex<Option<HashMap<Proc, u32>>> = Mutex::new(None);

fn dirs() -> Option<Arc<JobDirs>> {
    DIRS.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// A string value of `key` in `infos`.
fn string<'a>(infos: &'a [Info], key: &str) -> Option<&'a str> {
    match infos.iter().find(|i| i.is(key)).map(|i| &i.value) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// Where the session directory goes: the host's `PMIX_SERVER_TMPDIR`,
/// else its `PMIX_SYSTEM_TMPDIR`, else the system temp dir.
pub(super) fn base(init_infos: &[Info]) -> PathBuf {
    string(init_infos, attrs::SERVER_TMPDIR)
        .or_else(|| string(init_infos, attrs::SYSTEM_TMPDIR))
        .map_or_else(std::env::temp_dir, PathBuf::from)
}

/// `PMIx_server_init`: creates the session directory under `base`.
///
/// # Errors
/// `PMIX_ERR_INIT` with the reason when it cannot be created.
pub(super) fn start(base: &Path) -> Result<()> {
    let d = JobDirs::create(base, PREFIX).map_err(|e| {
        pmix_core::Error::with_context(
            pmix_core::Status::ERR_INIT,
            format!("server session directory under {}: {e}", base.display()),
        )
    })?;
    *DIRS.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(d));
    *CLIENT_UIDS.lock().unwrap_or_else(PoisonError::into_inner) = Some(HashMap::new());
    Ok(())
}

/// `PMIx_server_finalize`: removes every directory the library created.
pub(super) fn stop() {
    CLIENT_UIDS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    let d = DIRS.write().unwrap_or_else(PoisonError::into_inner).take();
    // A call still running holds a clone: the last one removes them.
    if let Some(Ok(d)) = d.map(Arc::try_unwrap) {
        for (path, e) in d.remove() {
            if verbose() {
                eprintln!("pmix-rs capi: cannot remove {}: {e}", path.display());
            }
        }
    }
}

/// `PMIx_server_register_client`: remembers the client's uid.
pub(super) fn client_registered(proc_: &Proc, uid: u32) {
    if let Some(m) = CLIENT_UIDS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
    {
        m.insert(proc_.clone(), uid);
    }
}

/// `PMIx_server_deregister_client`.
pub(super) fn client_deregistered(proc_: &Proc) {
    if let Some(m) = CLIENT_UIDS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
    {
        m.remove(proc_);
    }
}

/// Whether `infos` has `key` at job level or in an app / node array.
fn host_gives(infos: &[Info], key: &str) -> bool {
    infos.iter().any(|i| {
        i.is(key)
            || ((i.is(attrs::APP_INFO_ARRAY) || i.is(attrs::NODE_INFO_ARRAY))
                && i.value
                    .as_info_array()
                    .is_ok_and(|inner| inner.iter().any(|x| x.is(key))))
    })
}

/// A client of `nspace` registered so far runs as another uid than this
/// process.
fn foreign_clients(nspace: &Nspace) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    CLIENT_UIDS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .is_some_and(|m| m.iter().any(|(p, uid)| p.nspace == *nspace && *uid != me))
}

/// `PMIx_server_register_nspace`: adds the directory keys the host left
/// out to `infos`. Returns whether it created the namespace's directory
/// (which [`release`] removes if the registration fails).
///
/// # Errors
/// The reason when the namespace's directory cannot be created.
pub(super) fn supply(nspace: &Nspace, infos: &mut Vec<Info>) -> Result<bool> {
    let has_tmp = host_gives(infos, attrs::TMPDIR);
    let has_ns = host_gives(infos, attrs::NSDIR);
    if has_tmp && has_ns {
        return Ok(false);
    }
    let Some(dirs) = dirs() else {
        return Ok(false);
    };
    if foreign_clients(nspace) {
        if verbose() {
            eprintln!(
                "pmix-rs capi: namespace {nspace} runs as another user: no PMIX_TMPDIR/PMIX_NSDIR supplied"
            );
        }
        return Ok(false);
    }
    let Some(session) = dirs.session().to_str().map(str::to_owned) else {
        return Ok(false);
    };
    let mut created = false;
    if !has_ns {
        // A second registration of the namespace (which the server
        // refuses) gets the first one's directory, and does not own it.
        let path = match dirs.nspace_dir(nspace) {
            Some(p) => p,
            None => {
                created = true;
                dirs.add_nspace(nspace)?
            }
        };
        let Some(path) = path.to_str().map(str::to_owned) else {
            if created {
                dirs.remove_nspace(nspace);
            }
            return Ok(false);
        };
        infos.push(Info::new(attrs::NSDIR, Value::String(path))?);
    }
    if !has_tmp {
        infos.push(Info::new(attrs::TMPDIR, Value::String(session))?);
        if !has_ns && !host_gives(infos, attrs::TDIR_RMCLEAN) {
            infos.push(Info::new(attrs::TDIR_RMCLEAN, Value::Bool(true))?);
        }
    }
    Ok(created)
}

/// `PMIx_server_deregister_nspace`: removes the namespace's directory
/// (if the library made one) and forgets its clients.
pub(super) fn nspace_deregistered(nspace: &Nspace) {
    release(nspace);
    if let Some(m) = CLIENT_UIDS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
    {
        m.retain(|p, _| p.nspace != *nspace);
    }
}

/// Removes the directory the library made for `nspace`, if any (a
/// registration that failed, or the namespace's end).
pub(super) fn release(nspace: &Nspace) {
    if let Some(Err(e)) = dirs().and_then(|d| d.remove_nspace(nspace)) {
        if verbose() {
            eprintln!("pmix-rs capi: cannot remove the directory of {nspace}: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(k: &str, v: &str) -> Info {
        Info::new(k, Value::String(v.into())).unwrap()
    }

    #[test]
    fn keys_inside_node_or_app_arrays_count() {
        let node = Info::new(
            attrs::NODE_INFO_ARRAY,
            Value::DataArray(Box::new(pmix_core::DataArray::from_infos(vec![s(
                attrs::TMPDIR,
                "/x",
            )]))),
        )
        .unwrap();
        assert!(host_gives(&[node], attrs::TMPDIR));
        assert!(host_gives(&[s(attrs::NSDIR, "/y")], attrs::NSDIR));
        assert!(!host_gives(&[s(attrs::NSDIR, "/y")], attrs::TMPDIR));
    }

    #[test]
    fn base_prefers_the_server_tmpdir() {
        let srv = s(attrs::SERVER_TMPDIR, "/srv");
        let sys = s(attrs::SYSTEM_TMPDIR, "/sys");
        assert_eq!(base(&[sys.clone(), srv]), PathBuf::from("/srv"));
        assert_eq!(base(&[sys]), PathBuf::from("/sys"));
        assert_eq!(base(&[]), std::env::temp_dir());
    }
}
