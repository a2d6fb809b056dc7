//! `PMIx_Job_control_nb` (cleanup registration only) and `PMIx_Log(_nb)`.
//!
//! Open MPI registers its job session directory and its shared-memory
//! files for removal through `PMIx_Job_control_nb`, targeted at the
//! calling process, with a NULL callback and a stack info array (CAPI.md
//! §6.3); OpenPMIx's server removes them when the process ends. Here the
//! library remembers them and removes them at the last `PMIx_Finalize`,
//! after the server acknowledged it. Only entries owned by this process's
//! effective uid are removed, symbolic links are never followed, and
//! `PMIX_CLEANUP_IGNORE` entries are left in place. Any other job-control
//! request (signals, kill, job-wide cleanup) is `PMIX_ERR_NOT_SUPPORTED`.
//!
//! `PMIx_Log(_nb)` hands the data to the host through the server (Open
//! MPI's `MPI_Abort` banner is printed by mpirun). Outside a client, or
//! when the host does not log, the process writes `PMIX_LOG_MSG` and
//! `PMIX_LOG_STDERR` to its stderr and `PMIX_LOG_STDOUT` to its stdout
//! ([`pmix_client::log_to_stdio`]); other channels are then
//! `PMIX_ERR_NOT_SUPPORTED` (the supported entries are still written).

use std::fs;
use std::os::raw::c_void;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pmix_core::{attrs, Error, Info, Result, Status, Value};

use super::worker::{defer, lock, CPtr};
use super::{current, directives_in, proc_in, status};
use crate::cmem;
use crate::types::*;

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
    let c = current()?;
    if targets.is_null() || ntargets == 0 {
        return Err(not_supported(
            "job-wide job control (only this process's cleanup is supported)".into(),
        ));
    }
    // SAFETY: `ntargets` valid procs (caller guarantee).
    for t in unsafe { std::slice::from_raw_parts(targets, ntargets) } {
        if proc_in(&c, t)? != *c.proc() {
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

/// Logs `data`: through the server to the host when this process is a
/// connected client (the host decides where each channel goes: Open MPI's
/// ORTE prints its `MPI_Abort` banner); written by this process itself
/// (stdout/stderr channels) when it is not, or when the host does not log.
/// `done` gets the outcome, on the client's reader thread or here.
///
/// # Safety
/// `data` NULL or `ndata` valid infos; `directives` NULL or `ndirs` valid
/// infos.
unsafe fn log_any(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    done: impl FnOnce(Result<()>) + Send + 'static,
) {
    // SAFETY: forwarded caller guarantee.
    let args = unsafe { directives_in(data, ndata) }
        // SAFETY: as above.
        .and_then(|d| Ok((d, unsafe { directives_in(directives, ndirs) }?)));
    let (infos, dirs) = match args {
        Ok(a) => a,
        Err(e) => return done(Err(e)),
    };
    match current() {
        Ok(c) => c.log_nb(&infos.clone(), &dirs, move |r| match r {
            Err(e) if e.status() == Status::ERR_NOT_SUPPORTED => {
                done(pmix_client::log_to_stdio(&infos))
            }
            r => done(r),
        }),
        Err(_) => done(pmix_client::log_to_stdio(&infos)),
    }
}

/// `pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
/// const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
/// void *cbdata)`: hands `data` (`PMIX_LOG_MSG`, `PMIX_LOG_STDERR`,
/// `PMIX_LOG_STDOUT`, …) with `directives` to the host through the server;
/// without a host that logs (or outside a client) this process writes the
/// stdout/stderr channels itself and other channels are
/// `PMIX_ERR_NOT_SUPPORTED`. With `cbfunc` it returns `PMIX_SUCCESS` and
/// calls `cbfunc(status, cbdata)` on the callback thread.
///
/// # Safety
/// `data` NULL or `ndata` valid infos; `directives` NULL or `ndirs` valid
/// infos; `cbfunc` NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log_nb(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let Some(cb) = cbfunc else {
        // SAFETY: forwarded caller guarantee.
        return unsafe { PMIx_Log(data, ndata, directives, ndirs) };
    };
    let cbdata = CPtr::new(cbdata);
    let done = move |r: Result<()>| {
        let st = status("PMIx_Log_nb", &r);
        // SAFETY: the caller's callback with its own data.
        defer(move || unsafe { cb(st, cbdata.get()) });
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { log_any(data, ndata, directives, ndirs, done) };
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata, const
/// pmix_info_t directives[], size_t ndirs)`: as [`PMIx_Log_nb`], blocking
/// until the host (or this process) logged.
///
/// # Safety
/// As [`PMIx_Log_nb`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
) -> pmix_status_t {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let done = move |r| {
        let _ = tx.send(r);
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { log_any(data, ndata, directives, ndirs, done) };
    let r = rx.recv().unwrap_or_else(|_| {
        Err(Error::with_context(
            Status::ERR_LOST_CONNECTION,
            "no answer to the log request",
        ))
    });
    status("PMIx_Log", &r)
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
}
