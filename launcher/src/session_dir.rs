//! pmixrun's scratch directories: a session directory of its own,
//! `$TMPDIR/pmixrun.<uid>.<pid>.<random>` (mode 0700, registered as
//! `PMIX_TMPDIR`), and in it the job's directory named after its
//! namespace (mode 0700, `PMIX_NSDIR`), registered with
//! `PMIX_TDIR_RMCLEAN` true. Never the system temp dir itself: Open MPI
//! launched directly removes the directories it is given, recursively.
//!
//! [`SessionDir::remove`] (or drop) removes both, each only while its path
//! still names the directory pmixrun created ([`pmix_server::OwnedDir`]).
//! When pmixrun dies by a signal, the watchdog removes the session
//! directory instead, checking its device and inode
//! ([`SessionDir::identity`]) first.

use std::path::{Path, PathBuf};

use pmix_core::Nspace;
use pmix_server::JobDirs;

/// Prefix of the session directory's name.
pub(crate) const PREFIX: &str = "pmixrun";

/// pmixrun's session directory and the job's directory in it.
#[derive(Debug)]
pub(crate) struct SessionDir {
    dirs: JobDirs,
    nsdir: PathBuf,
}

impl SessionDir {
    /// Creates the session directory under `parent` (made absolute: the
    /// ranks may change directory) and the directory of job `nspace` in
    /// it.
    ///
    /// # Errors
    /// A message naming the directory and the system's reason; nothing is
    /// left behind.
    pub(crate) fn create(parent: &Path, nspace: &Nspace) -> Result<SessionDir, String> {
        let parent = std::path::absolute(parent)
            .map_err(|e| format!("temporary directory {}: {e}", parent.display()))?;
        let dirs = JobDirs::create(&parent, PREFIX).map_err(|e| {
            format!(
                "cannot create a session directory under {}: {e}",
                parent.display()
            )
        })?;
        let nsdir = dirs
            .add_nspace(nspace)
            .map_err(|e| format!("cannot create the job's directory: {e}"))?;
        let s = SessionDir { dirs, nsdir };
        // The job data carries them as strings.
        for p in [s.path(), s.nsdir.as_path()] {
            if p.to_str().is_none() {
                return Err(format!(
                    "temporary directory {} is not valid UTF-8; set TMPDIR",
                    p.display()
                ));
            }
        }
        Ok(s)
    }

    /// The session directory.
    pub(crate) fn path(&self) -> &Path {
        self.dirs.session()
    }

    /// `PMIX_TMPDIR`: the session directory.
    pub(crate) fn tmpdir(&self) -> &str {
        self.path().to_str().unwrap_or_default()
    }

    /// `PMIX_NSDIR`: the job's directory.
    pub(crate) fn nsdir(&self) -> &str {
        self.nsdir.to_str().unwrap_or_default()
    }

    /// Creates the directory of a further job `nspace` (a spawned one) in
    /// the session directory and returns it (`PMIX_NSDIR`); removed with
    /// the session directory.
    ///
    /// # Errors
    /// A message naming the namespace and the system's reason.
    pub(crate) fn add_job(&self, nspace: &Nspace) -> Result<String, String> {
        let d = self
            .dirs
            .add_nspace(nspace)
            .map_err(|e| format!("cannot create the directory of job {nspace}: {e}"))?;
        d.into_os_string()
            .into_string()
            .map_err(|d| format!("job directory {d:?} is not valid UTF-8"))
    }

    /// Removes the directory of job `nspace` again (a spawn that failed);
    /// what cannot be removed goes with the session directory.
    pub(crate) fn remove_job(&self, nspace: &Nspace) {
        let _ = self.dirs.remove_nspace(nspace);
    }

    /// The session directory's `<device>:<inode>`, as `stat -c %d:%i`
    /// prints it.
    pub(crate) fn identity(&self) -> String {
        let (dev, ino) = self.dirs.session_dir().identity();
        format!("{dev}:{ino}")
    }

    /// Removes the job's directory and the session directory (only the
    /// ones pmixrun created, see [`pmix_server::OwnedDir::remove`]);
    /// returns a message for each that could not be removed.
    pub(crate) fn remove(self) -> Vec<String> {
        self.dirs
            .remove()
            .into_iter()
            .map(|(p, e)| format!("cannot remove {}: {e}", p.display()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn scratch(tag: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("pmixrs-session-test-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir(&d).unwrap();
        d
    }

    #[test]
    fn fresh_private_directories_removed_at_the_end() {
        let parent = scratch("fresh");
        fs::write(parent.join("canary"), b"x").unwrap();
        let ns = Nspace::new("run-1-job").unwrap();
        let s = SessionDir::create(&parent, &ns).unwrap();
        let session = s.path().to_owned();
        let name = session.file_name().unwrap().to_str().unwrap().to_owned();
        let uid = fs::metadata("/proc/self").unwrap().uid();
        let want = format!("{PREFIX}.{uid}.{}.", std::process::id());
        assert!(name.starts_with(&want), "{name}");
        assert_eq!(session.parent(), Some(parent.as_path()));
        assert_eq!(s.tmpdir(), session.to_str().unwrap());
        assert_eq!(Path::new(s.nsdir()), session.join("run-1-job"));
        for d in [s.tmpdir(), s.nsdir()] {
            let m = fs::symlink_metadata(d).unwrap();
            assert!(m.is_dir());
            assert_eq!(m.permissions().mode() & 0o7777, 0o700, "{d}");
        }
        let m = fs::metadata(&session).unwrap();
        assert_eq!(s.identity(), format!("{}:{}", m.dev(), m.ino()));
        // What the job leaves there goes with it.
        fs::create_dir(Path::new(s.nsdir()).join("sub")).unwrap();
        fs::write(session.join("f"), b"x").unwrap();
        assert!(s.remove().is_empty());
        assert!(!session.exists());
        let left: Vec<_> = fs::read_dir(&parent).unwrap().collect();
        assert_eq!(left.len(), 1);
        assert!(parent.join("canary").exists());
        fs::remove_dir_all(&parent).unwrap();
    }

    #[test]
    fn an_unusable_parent_is_reported() {
        let e = SessionDir::create(Path::new("/nonexistent/pmixrs"), &Nspace::new("j").unwrap())
            .unwrap_err();
        assert!(e.contains("/nonexistent/pmixrs"), "{e}");
    }
}
