//! `PMIx_Job_control_nb` and `PMIx_Job_control`: cleanup registration for
//! the calling process.
//!
//! Open MPI registers its job session directory and its shared-memory
//! files for removal through `PMIx_Job_control_nb`, targeted at the
//! calling process, with a NULL callback and a stack info array (what
//! Open MPI 4.1 does in `MPI_Init`); OpenPMIx's server removes them when
//! the process ends. Here the library remembers them and removes them at
//! the last `PMIx_Finalize`, after the server acknowledged it. Only
//! entries owned by this process's effective uid are removed, symbolic
//! links are never followed, and `PMIX_CLEANUP_IGNORE` entries are left in
//! place. Any other job-control request (signals, kill, job-wide cleanup)
//! is `PMIX_ERR_NOT_SUPPORTED`.

use std::fs;
use std::os::raw::c_void;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pmix_core::{attrs, Error, Info, Result, Status, Value};

use crate::cmem::{self, Out};
use crate::convert::{directives_in, proc_in};
use crate::role;
use crate::status::status;
use crate::types::*;
use crate::worker::{defer, lock, CPtr};

/// `PMIX_CLEANUP_EMPTY`: only remove empty subdirectories.
const CLEANUP_EMPTY: &str = "pmix.clnup.empty";
/// `PMIX_CLEANUP_IGNORE`: paths (or file names) never to remove.
const CLEANUP_IGNORE: &str = "pmix.clnup.ignore";
/// `PMIX_CLEANUP_LEAVE_TOPDIR`: empty the directory but keep it.
const CLEANUP_LEAVE_TOPDIR: &str = "pmix.clnup.lvtop";

/// One registered directory.
#[derive(Debug, Clone, PartialEq)]
struct DirCleanup {
    path: PathBuf,
    recursive: bool,
    empty_only: bool,
    leave_top: bool,
}

/// Everything registered for removal at the last finalize.
#[derive(Debug, Default, PartialEq)]
struct Cleanup {
    files: Vec<PathBuf>,
    dirs: Vec<DirCleanup>,
    ignore: Vec<PathBuf>,
}

static CLEANUP: Mutex<Cleanup> = Mutex::new(Cleanup {
    files: Vec::new(),
    dirs: Vec::new(),
    ignore: Vec::new(),
});

fn not_supported(what: String) -> Error {
    Error::with_context(Status::ERR_NOT_SUPPORTED, what)
}

/// The comma-separated paths of a cleanup directive.
fn paths(i: &Info, absolute: bool) -> Result<Vec<PathBuf>> {
    let Value::String(s) = &i.value else {
        return Err(cmem::bad_param("cleanup paths must be a string"));
    };
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let path = PathBuf::from(p);
            if absolute && (!path.is_absolute() || path.parent().is_none()) {
                return Err(Error::with_context(
                    Status::ERR_BAD_PARAM,
                    format!("cleanup path {p:?} must be absolute and not /"),
                ));
            }
            Ok(path)
        })
        .collect()
}

fn flag(i: &Info) -> Result<bool> {
    i.value.is_true()
}

/// Parses cleanup directives (`PMIX_JOB_CTRL_ID` is accepted and unused).
fn parse_cleanup(infos: &[Info]) -> Result<Cleanup> {
    let mut c = Cleanup::default();
    let mut dirs = Vec::new();
    let (mut recursive, mut empty_only, mut leave_top) = (false, false, false);
    for i in infos {
        match i.key.as_str() {
            attrs::REGISTER_CLEANUP => c.files.extend(paths(i, true)?),
            attrs::REGISTER_CLEANUP_DIR => dirs.extend(paths(i, true)?),
            CLEANUP_IGNORE => c.ignore.extend(paths(i, false)?),
            attrs::CLEANUP_RECURSIVE => recursive = flag(i)?,
            CLEANUP_EMPTY => empty_only = flag(i)?,
            CLEANUP_LEAVE_TOPDIR => leave_top = flag(i)?,
            attrs::JOB_CTRL_ID => {}
            other => return Err(not_supported(format!("job control directive {other}"))),
        }
    }
    c.dirs = dirs
        .into_iter()
        .map(|path| DirCleanup {
            path,
            recursive,
            empty_only,
            leave_top,
        })
        .collect();
    if c == Cleanup::default() {
        return Err(not_supported(
            "job control without a cleanup directive".into(),
        ));
    }
    Ok(c)
}

/// Registers the cleanup directives of a job-control request.
///
/// # Safety
/// As [`PMIx_Job_control_nb`].
unsafe fn job_control(
    targets: *const pmix_proc_t,
    ntargets: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
) -> Result<()> {
    let c = role::client()?;
    if targets.is_null() || ntargets == 0 {
        return Err(not_supported(
            "job-wide job control (only this process's cleanup is supported)".into(),
        ));
    }
    // SAFETY: `ntargets` valid procs (caller guarantee).
    for t in unsafe { std::slice::from_raw_parts(targets, ntargets) } {
        if proc_in(c.proc(), t)? != *c.proc() {
            return Err(not_supported(
                "job control of other processes (only this process's cleanup is supported)".into(),
            ));
        }
    }
    // SAFETY: NULL or `ndirs` valid infos (caller guarantee).
    let infos = unsafe { directives_in(directives, ndirs) }?;
    let add = parse_cleanup(&infos)?;
    let mut all = lock(&CLEANUP);
    all.files.extend(add.files);
    all.dirs.extend(add.dirs);
    all.ignore.extend(add.ignore);
    Ok(())
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

fn ignored(p: &Path, ignore: &[PathBuf]) -> bool {
    ignore
        .iter()
        .any(|i| i == p || (i.components().count() == 1 && p.file_name() == Some(i.as_os_str())))
}

/// Removes what `dir` holds per `how`; `true` when it is empty afterwards.
fn clean_dir(dir: &Path, how: &DirCleanup, ignore: &[PathBuf], uid: u32) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let mut empty = true;
    for entry in entries.flatten() {
        let p = entry.path();
        let Ok(m) = fs::symlink_metadata(&p) else {
            empty = false;
            continue;
        };
        let removed = if ignored(&p, ignore) || m.uid() != uid {
            false
        } else if m.is_dir() {
            how.recursive && clean_dir(&p, how, ignore, uid) && fs::remove_dir(&p).is_ok()
        } else {
            !how.empty_only && fs::remove_file(&p).is_ok()
        };
        empty &= removed;
    }
    empty
}

/// Removes everything registered so far (the last finalize).
pub(super) fn run_cleanup() {
    let c = std::mem::take(&mut *lock(&CLEANUP));
    let uid = euid();
    for f in &c.files {
        let owned_file = fs::symlink_metadata(f).is_ok_and(|m| !m.is_dir() && m.uid() == uid);
        if owned_file && !ignored(f, &c.ignore) {
            let _ = fs::remove_file(f);
        }
    }
    for d in &c.dirs {
        let owned_dir = fs::symlink_metadata(&d.path).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if owned_dir
            && !ignored(&d.path, &c.ignore)
            && clean_dir(&d.path, d, &c.ignore, uid)
            && !d.leave_top
        {
            let _ = fs::remove_dir(&d.path);
        }
    }
}

/// `pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t
/// ntargets, const pmix_info_t directives[], size_t ndirs,
/// pmix_info_cbfunc_t cbfunc, void *cbdata)`: accepts cleanup
/// registrations for the calling process (`PMIX_REGISTER_CLEANUP`,
/// `PMIX_REGISTER_CLEANUP_DIR`, `PMIX_CLEANUP_RECURSIVE`,
/// `PMIX_CLEANUP_EMPTY`, `PMIX_CLEANUP_IGNORE`,
/// `PMIX_CLEANUP_LEAVE_TOPDIR`), acted on at the last `PMIx_Finalize`;
/// anything else is `PMIX_ERR_NOT_SUPPORTED`. The directives are copied
/// before it returns. With `cbfunc` it returns `PMIX_SUCCESS` and calls
/// `cbfunc(status, NULL, 0, cbdata, NULL, NULL)` on the callback thread.
///
/// # Safety
/// `targets` NULL or `ntargets` valid procs; `directives` NULL or `ndirs`
/// valid infos; `cbfunc` NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control_nb(
    targets: *const pmix_proc_t,
    ntargets: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    let r = unsafe { job_control(targets, ntargets, directives, ndirs) };
    let st = status("PMIx_Job_control_nb", &r);
    match cbfunc {
        None => st,
        Some(cb) => {
            let cbdata = CPtr::new(cbdata);
            // SAFETY: the caller's callback with its own data; no infos are
            // returned, so there is nothing to release.
            defer(move || unsafe {
                cb(
                    st,
                    std::ptr::null_mut(),
                    0,
                    cbdata.get(),
                    None,
                    std::ptr::null_mut(),
                )
            });
            PMIX_SUCCESS
        }
    }
}

/// `pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t
/// ntargets, const pmix_info_t directives[], size_t ndirs, pmix_info_t
/// **results, size_t *nresults)`: the blocking form of
/// [`PMIx_Job_control_nb`], whose answer it returns (cleanup registration
/// for the calling process; any other request is
/// `PMIX_ERR_NOT_SUPPORTED`). No results are ever returned:
/// `*results = NULL`, `*nresults = 0`.
///
/// # Safety
/// As `PMIx_Job_control_nb`; `results` and `nresults` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control(
    targets: *const pmix_proc_t,
    ntargets: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> pmix_status_t {
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        results.clear();
        nresults.clear();
    }
    // SAFETY: forwarded caller guarantee; without a callback the answer is
    // the return value and nothing is deferred.
    unsafe {
        PMIx_Job_control_nb(
            targets,
            ntargets,
            directives,
            ndirs,
            None,
            std::ptr::null_mut(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(k: &str, v: &str) -> Info {
        Info::new(k, v).unwrap()
    }

    #[test]
    fn cleanup_directives_parse_and_others_are_not_supported() {
        let c = parse_cleanup(&[
            s(attrs::REGISTER_CLEANUP_DIR, "/tmp/a,/tmp/b"),
            Info::new(attrs::CLEANUP_RECURSIVE, Value::Undef).unwrap(),
            s(attrs::REGISTER_CLEANUP, "/dev/shm/x"),
            s(CLEANUP_IGNORE, "keep.me"),
        ])
        .unwrap();
        assert_eq!(c.files, vec![PathBuf::from("/dev/shm/x")]);
        assert_eq!(c.dirs.len(), 2);
        assert!(c.dirs.iter().all(|d| d.recursive && !d.leave_top));
        assert_eq!(c.ignore, vec![PathBuf::from("keep.me")]);

        let e = parse_cleanup(&[Info::new(attrs::JOB_CTRL_KILL, true).unwrap()]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        let e = parse_cleanup(&[s(attrs::JOB_CTRL_ID, "x")]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        for bad in ["relative/dir", "/"] {
            let e = parse_cleanup(&[s(attrs::REGISTER_CLEANUP_DIR, bad)]).unwrap_err();
            assert_eq!(e.status(), Status::ERR_BAD_PARAM, "{bad}");
        }
    }

    #[test]
    fn cleaning_honours_recursion_ignore_and_symlinks() {
        let base = std::env::temp_dir().join(format!("pmix-capi-clean-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let outside = base.join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("precious"), b"x").unwrap();
        let top = base.join("top");
        fs::create_dir_all(top.join("sub/deeper")).unwrap();
        fs::write(top.join("sub/deeper/f"), b"x").unwrap();
        fs::write(top.join("keep.me"), b"x").unwrap();
        std::os::unix::fs::symlink(&outside, top.join("link")).unwrap();
        let how = DirCleanup {
            path: top.clone(),
            recursive: true,
            empty_only: false,
            leave_top: false,
        };
        let ignore = vec![PathBuf::from("keep.me")];
        assert!(!clean_dir(&top, &how, &ignore, euid()));
        assert!(top.join("keep.me").exists());
        assert!(!top.join("sub").exists());
        assert!(!top.join("link").exists());
        assert!(outside.join("precious").exists(), "a symlink was followed");

        let flat = DirCleanup {
            recursive: false,
            ..how
        };
        fs::create_dir_all(top.join("sub")).unwrap();
        fs::remove_file(top.join("keep.me")).unwrap();
        fs::write(top.join("file"), b"x").unwrap();
        assert!(!clean_dir(&top, &flat, &[], euid()));
        assert!(top.join("sub").exists() && !top.join("file").exists());
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn job_control_is_the_blocking_nb_form_without_results() {
        let mut res = std::ptr::NonNull::<pmix_info_t>::dangling().as_ptr();
        let mut nres = 7usize;
        // SAFETY: writable outputs, no targets or directives.
        let rc = unsafe {
            PMIx_Job_control(
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                &mut res,
                &mut nres,
            )
        };
        // Without a client: not initialised; with one, job-wide control is
        // not supported.
        assert!(rc == PMIX_ERR_INIT || rc == PMIX_ERR_NOT_SUPPORTED, "{rc}");
        assert!(res.is_null() && nres == 0);
    }
}
