//! Scratch directories a host hands its jobs (`PMIX_TMPDIR`, `PMIX_NSDIR`),
//! created fresh by this process and removed again by it.
//!
//! Open MPI 4.1, launched directly by a PMIx server, takes `PMIX_TMPDIR` /
//! `PMIX_NSDIR` as its own session directories and registers them for
//! recursive removal at finalize: pointing them at a shared directory
//! such as `/tmp` itself deletes other people's files. So every job gets
//! a directory of its own:
//!
//! - [`OwnedDir`]: a directory this process created with `mkdir` (never an
//!   existing one), mode 0700. It remembers the directory's device,
//!   inode and birth time; [`OwnedDir::remove`] (also run on drop) removes it with its
//!   contents only while the path still names that same directory — a
//!   directory removed and recreated by someone else, or replaced by a
//!   symbolic link, is left alone. Symbolic links inside are removed as
//!   links, never followed.
//! - [`JobDirs`]: a session directory (`<parent>/<prefix>.<uid>.<pid>.<random>`)
//!   and one directory per namespace under it (named after the
//!   namespace), each an [`OwnedDir`]; dropping it removes the namespace
//!   directories, then the session directory.
//!
//! A check-then-remove cannot be atomic without `openat` on the parent:
//! between the identity check and the removal, only the owner of the
//! parent directory (the sticky system temp dir: the directory's owner or
//! root; the session directory: this user) can swap the path.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use parking_lot::Mutex;
use pmix_core::{Error, Nspace, Result, Status};

/// How many names [`OwnedDir::create_unique`] tries before giving up.
const NAME_TRIES: u32 = 64;

/// What [`OwnedDir::remove`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// The directory and its contents are gone.
    Removed,
    /// Nothing was at the path any more (someone, e.g. the job itself,
    /// removed it first).
    AlreadyGone,
    /// The path names another file or directory than the one created:
    /// left alone.
    Replaced,
}

/// A directory this process created (mode 0700), removed with its
/// contents by [`remove`](Self::remove) or on drop — only while the path
/// still names the same directory.
#[derive(Debug)]
pub struct OwnedDir {
    path: PathBuf,
    dev: u64,
    ino: u64,
    /// Birth time, where the file system records one: tells a directory
    /// removed and recreated (which may get the same inode) from ours.
    born: Option<SystemTime>,
    /// Set once removed (or given up), so drop does nothing.
    done: bool,
}

impl OwnedDir {
    /// Creates `parent/name` (which must not exist) with mode 0700.
    ///
    /// # Errors
    /// `PMIX_ERR_EXISTS` when something is at that path already (it is
    /// not touched); `PMIX_ERR_BAD_PARAM` for a name that is not one path
    /// component; `PMIX_ERR_NO_PERMISSIONS` or `PMIX_ERROR` with the
    /// system's reason when `mkdir` fails otherwise.
    pub fn create(parent: &Path, name: &str) -> Result<OwnedDir> {
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
            return Err(Error::bad_param(format!(
                "{name:?} is not a directory name"
            )));
        }
        let path = parent.join(name);
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => {}
            Err(e) => return Err(io_error(&path, "cannot create", &e)),
        }
        // Exactly 0700, whatever the umask; then remember which directory
        // it is. Should either fail, the directory is still ours: remove it.
        let meta = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))
            .and_then(|()| std::fs::symlink_metadata(&path));
        match meta {
            Ok(m) => Ok(OwnedDir {
                path,
                dev: m.dev(),
                ino: m.ino(),
                born: m.created().ok(),
                done: false,
            }),
            Err(e) => {
                let _ = std::fs::remove_dir(&path);
                Err(io_error(&path, "cannot set up", &e))
            }
        }
    }

    /// Creates `parent/<prefix>.<uid>.<pid>.<random>` (mode 0700), a name
    /// no one can guess in advance; retries with another name when one is
    /// taken.
    ///
    /// # Errors
    /// As [`create`](Self::create); `PMIX_ERR_EXISTS` when every name
    /// tried was taken.
    pub fn create_unique(parent: &Path, prefix: &str) -> Result<OwnedDir> {
        let uid = std::fs::metadata("/proc/self").map_or(u32::MAX, |m| m.uid());
        let pid = std::process::id();
        let mut last = None;
        for _ in 0..NAME_TRIES {
            let name = format!("{prefix}.{uid}.{pid}.{:016x}", random_u64());
            match OwnedDir::create(parent, &name) {
                Err(e) if e.status() == Status::ERR_EXISTS => last = Some(e),
                r => return r,
            }
        }
        Err(last.unwrap_or_else(|| Error::new(Status::ERR_EXISTS)))
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory's device and inode numbers (`st_dev`, `st_ino`).
    pub fn identity(&self) -> (u64, u64) {
        (self.dev, self.ino)
    }

    /// Whether the path still names the directory this created (same
    /// device, inode and birth time, a directory, not a symbolic link).
    pub fn is_intact(&self) -> bool {
        std::fs::symlink_metadata(&self.path).is_ok_and(|m| self.same(&m))
    }

    fn same(&self, m: &std::fs::Metadata) -> bool {
        m.file_type().is_dir()
            && m.dev() == self.dev
            && m.ino() == self.ino
            && (self.born.is_none() || m.created().ok() == self.born)
    }

    /// Removes the directory and everything in it, if the path still
    /// names the directory this created; else leaves the path alone.
    ///
    /// # Errors
    /// The system's error when the directory is ours but could not be
    /// removed completely (e.g. a subdirectory without write permission).
    pub fn remove(mut self) -> io::Result<Removal> {
        self.remove_now()
    }

    fn remove_now(&mut self) -> io::Result<Removal> {
        if self.done {
            return Ok(Removal::AlreadyGone);
        }
        self.done = true;
        let m = match std::fs::symlink_metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Removal::AlreadyGone),
            Err(e) => return Err(e),
        };
        if !self.same(&m) {
            return Ok(Removal::Replaced);
        }
        // std's remove_dir_all unlinks symbolic links without following
        // them, at any depth.
        match std::fs::remove_dir_all(&self.path) {
            Ok(()) => Ok(Removal::Removed),
            // The job removed it under us.
            Err(e) if e.kind() == io::ErrorKind::NotFound && !self.path.exists() => {
                Ok(Removal::AlreadyGone)
            }
            Err(e) => Err(e),
        }
    }
}

impl Drop for OwnedDir {
    fn drop(&mut self) {
        let _ = self.remove_now();
    }
}

/// A session directory and one directory per namespace under it: the
/// `PMIX_TMPDIR` and `PMIX_NSDIR` a host gives its jobs. Dropping it (or
/// [`remove`](Self::remove)) removes every namespace directory, then the
/// session directory, each only if it is still the one created.
#[derive(Debug)]
pub struct JobDirs {
    /// The namespace directories, before `session` so they drop first.
    nspaces: Mutex<Vec<(Nspace, OwnedDir)>>,
    session: OwnedDir,
}

impl JobDirs {
    /// Creates the session directory `parent/<prefix>.<uid>.<pid>.<random>`
    /// (mode 0700).
    ///
    /// # Errors
    /// As [`OwnedDir::create_unique`].
    pub fn create(parent: &Path, prefix: &str) -> Result<JobDirs> {
        Ok(JobDirs {
            nspaces: Mutex::new(Vec::new()),
            session: OwnedDir::create_unique(parent, prefix)?,
        })
    }

    /// The session directory's path (`PMIX_TMPDIR`).
    pub fn session(&self) -> &Path {
        self.session.path()
    }

    /// The session directory.
    pub fn session_dir(&self) -> &OwnedDir {
        &self.session
    }

    /// Creates the directory of `nspace` (`PMIX_NSDIR`, mode 0700) under
    /// the session directory, named after the namespace (characters other
    /// than letters, digits, `.`, `_` and `-` become `_`; a `.N` suffix
    /// when two namespaces map to one name) and returns its path.
    ///
    /// # Errors
    /// `PMIX_ERR_EXISTS` when `nspace` has a directory already; otherwise
    /// as [`OwnedDir::create`].
    pub fn add_nspace(&self, nspace: &Nspace) -> Result<PathBuf> {
        let mut dirs = self.nspaces.lock();
        if dirs.iter().any(|(n, _)| n == nspace) {
            return Err(Error::with_context(
                Status::ERR_EXISTS,
                format!("namespace {nspace} has a directory already"),
            ));
        }
        let base = dir_name(nspace);
        let mut last = None;
        for n in 0..NAME_TRIES {
            let name = if n == 0 {
                base.clone()
            } else {
                format!("{base}.{n}")
            };
            match OwnedDir::create(self.session.path(), &name) {
                Ok(d) => {
                    let path = d.path().to_owned();
                    dirs.push((nspace.clone(), d));
                    return Ok(path);
                }
                Err(e) if e.status() == Status::ERR_EXISTS => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::new(Status::ERR_EXISTS)))
    }

    /// The directory of `nspace`, if [`add_nspace`](Self::add_nspace)
    /// made one.
    pub fn nspace_dir(&self, nspace: &Nspace) -> Option<PathBuf> {
        self.nspaces
            .lock()
            .iter()
            .find(|(n, _)| n == nspace)
            .map(|(_, d)| d.path().to_owned())
    }

    /// Removes the directory of `nspace` (see [`OwnedDir::remove`]);
    /// `None` when it has none.
    pub fn remove_nspace(&self, nspace: &Nspace) -> Option<io::Result<Removal>> {
        let dir = {
            let mut dirs = self.nspaces.lock();
            let i = dirs.iter().position(|(n, _)| n == nspace)?;
            dirs.swap_remove(i).1
        };
        Some(dir.remove())
    }

    /// Removes every namespace directory, then the session directory;
    /// returns each path whose removal failed, with the error.
    pub fn remove(self) -> Vec<(PathBuf, io::Error)> {
        let mut failed = Vec::new();
        let JobDirs { nspaces, session } = self;
        for (_, d) in nspaces.into_inner() {
            let path = d.path().to_owned();
            if let Err(e) = d.remove() {
                failed.push((path, e));
            }
        }
        let path = session.path().to_owned();
        if let Err(e) = session.remove() {
            failed.push((path, e));
        }
        failed
    }
}

/// A file name for `nspace`'s directory.
fn dir_name(nspace: &Nspace) -> String {
    let mut s: String = nspace
        .as_str()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// 64 unpredictable bits: std's hasher keys come from the OS's random
/// source (once per thread, then stepped), mixed with the time.
fn random_u64() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    if let Ok(t) = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.finish()
}

fn io_error(path: &Path, what: &str, e: &io::Error) -> Error {
    let status = match e.kind() {
        io::ErrorKind::AlreadyExists => Status::ERR_EXISTS,
        io::ErrorKind::PermissionDenied => Status::ERR_NO_PERMISSIONS,
        _ => Status::ERROR,
    };
    Error::with_context(status, format!("{what} directory {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A scratch parent directory for one test, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Scratch {
            let d = std::env::temp_dir().join(format!(
                "pmixrs-jobdir-test-{tag}-{}-{:x}",
                std::process::id(),
                random_u64()
            ));
            fs::create_dir(&d).unwrap();
            Scratch(d)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn mode(p: &Path) -> u32 {
        fs::symlink_metadata(p).unwrap().mode() & 0o7777
    }

    #[test]
    fn unique_directories_are_fresh_private_and_distinct() {
        let s = Scratch::new("unique");
        let a = OwnedDir::create_unique(&s.0, "pfx").unwrap();
        let b = OwnedDir::create_unique(&s.0, "pfx").unwrap();
        assert_ne!(a.path(), b.path());
        for d in [&a, &b] {
            assert_eq!(d.path().parent(), Some(s.0.as_path()));
            assert_eq!(mode(d.path()), 0o700);
            let name = d.path().file_name().unwrap().to_str().unwrap();
            let pid = std::process::id().to_string();
            let parts: Vec<&str> = name.split('.').collect();
            assert_eq!(parts.len(), 4, "{name}");
            assert_eq!((parts[0], parts[2]), ("pfx", pid.as_str()), "{name}");
            assert_eq!(parts[3].len(), 16, "{name}");
        }
    }

    #[test]
    fn an_existing_directory_is_never_taken_over() {
        let s = Scratch::new("exists");
        fs::create_dir(s.0.join("taken")).unwrap();
        fs::write(s.0.join("taken/keep"), b"x").unwrap();
        let e = OwnedDir::create(&s.0, "taken").unwrap_err();
        assert_eq!(e.status(), Status::ERR_EXISTS);
        assert!(s.0.join("taken/keep").exists());
        std::os::unix::fs::symlink(&s.0, s.0.join("link")).unwrap();
        let e = OwnedDir::create(&s.0, "link").unwrap_err();
        assert_eq!(e.status(), Status::ERR_EXISTS);
        for bad in ["", ".", "..", "a/b"] {
            let e = OwnedDir::create(&s.0, bad).unwrap_err();
            assert_eq!(e.status(), Status::ERR_BAD_PARAM, "{bad:?}");
        }
    }

    #[test]
    fn remove_takes_the_contents_but_follows_no_link() {
        let s = Scratch::new("remove");
        let outside = s.0.join("outside");
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("canary"), b"x").unwrap();
        let d = OwnedDir::create(&s.0, "mine").unwrap();
        fs::create_dir_all(d.path().join("a/b")).unwrap();
        fs::write(d.path().join("a/b/f"), b"y").unwrap();
        std::os::unix::fs::symlink(&outside, d.path().join("a/link")).unwrap();
        let path = d.path().to_owned();
        assert!(d.is_intact());
        assert_eq!(d.remove().unwrap(), Removal::Removed);
        assert!(!path.exists());
        assert!(outside.join("canary").exists());
    }

    #[test]
    fn a_replaced_directory_is_left_alone() {
        let s = Scratch::new("replaced");
        let d = OwnedDir::create(&s.0, "mine").unwrap();
        let path = d.path().to_owned();
        // Someone moves it away and makes another one at the same path.
        fs::rename(&path, s.0.join("moved")).unwrap();
        fs::create_dir(&path).unwrap();
        fs::write(path.join("theirs"), b"x").unwrap();
        assert!(!d.is_intact());
        assert_eq!(d.remove().unwrap(), Removal::Replaced);
        assert!(path.join("theirs").exists());

        // Or puts a symbolic link to their own directory there.
        let d = OwnedDir::create(&s.0, "mine2").unwrap();
        let path2 = d.path().to_owned();
        fs::rename(&path2, s.0.join("moved2")).unwrap();
        std::os::unix::fs::symlink(&path, &path2).unwrap();
        drop(d);
        assert!(fs::symlink_metadata(&path2)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(path.join("theirs").exists());
    }

    #[test]
    fn a_directory_already_removed_is_fine() {
        let s = Scratch::new("gone");
        let d = OwnedDir::create(&s.0, "mine").unwrap();
        fs::remove_dir(d.path()).unwrap();
        assert_eq!(d.remove().unwrap(), Removal::AlreadyGone);
    }

    #[test]
    fn drop_removes() {
        let s = Scratch::new("drop");
        let d = OwnedDir::create(&s.0, "mine").unwrap();
        let path = d.path().to_owned();
        fs::write(path.join("f"), b"x").unwrap();
        drop(d);
        assert!(!path.exists());
        assert!(s.0.exists());
    }

    #[test]
    fn job_dirs_per_namespace() {
        let s = Scratch::new("jobs");
        let dirs = JobDirs::create(&s.0, "sess").unwrap();
        let session = dirs.session().to_owned();
        assert_eq!(mode(&session), 0o700);
        let a = Nspace::new("job-1").unwrap();
        let b = Nspace::new("we/ird").unwrap();
        let c = Nspace::new("we_ird").unwrap();
        let pa = dirs.add_nspace(&a).unwrap();
        let pb = dirs.add_nspace(&b).unwrap();
        let pc = dirs.add_nspace(&c).unwrap();
        assert_eq!(pa, session.join("job-1"));
        assert_eq!(pb, session.join("we_ird"));
        assert_eq!(pc, session.join("we_ird.1"));
        assert_eq!(mode(&pa), 0o700);
        assert_eq!(dirs.nspace_dir(&b), Some(pb.clone()));
        assert_eq!(
            dirs.add_nspace(&a).unwrap_err().status(),
            Status::ERR_EXISTS
        );
        fs::write(pa.join("f"), b"x").unwrap();
        assert_eq!(dirs.remove_nspace(&a).unwrap().unwrap(), Removal::Removed);
        assert!(!pa.exists() && pb.exists());
        assert!(dirs.remove_nspace(&a).is_none());
        assert!(dirs.remove().is_empty());
        assert!(!session.exists());
        assert!(s.0.exists());
    }

    #[test]
    fn job_dirs_drop_removes_everything_it_made() {
        let s = Scratch::new("jobsdrop");
        fs::write(s.0.join("canary"), b"x").unwrap();
        let dirs = JobDirs::create(&s.0, "sess").unwrap();
        let session = dirs.session().to_owned();
        let p = dirs.add_nspace(&Nspace::new("n").unwrap()).unwrap();
        fs::write(p.join("f"), b"x").unwrap();
        fs::write(session.join("g"), b"x").unwrap();
        drop(dirs);
        assert!(!session.exists());
        assert!(s.0.join("canary").exists());
        assert_eq!(fs::read_dir(&s.0).unwrap().count(), 1);
    }

    #[test]
    fn dir_names() {
        let n = |s: &str| dir_name(&Nspace::new(s).unwrap());
        assert_eq!(n("run-12-job"), "run-12-job");
        assert_eq!(n("1070071809"), "1070071809");
        assert_eq!(n(".."), "_..");
        assert_eq!(n("a b/c"), "a_b_c");
    }
}
