//! `pmix_framework_names`: the data symbol OpenPMIx 5 exports and Open
//! MPI 5's `libopen-pal` reads (`char *pmix_framework_names[]`, a
//! NULL-terminated list of the library's MCA framework names). Open MPI
//! uses it to tell which MCA parameters are PMIx's, to forward them as
//! `PMIX_MCA_*` environment variables. pmix-rs has no MCA frameworks, so
//! the list is empty (just the NULL): no parameter is taken for a PMIx
//! one, and none is forwarded.

use std::os::raw::c_char;

/// A NULL-terminated array of C strings that may be shared between
/// threads: it is immutable and its strings are static.
#[repr(transparent)]
#[derive(Debug)]
pub struct FrameworkNames(pub [*const c_char; 1]);

// SAFETY: the array is never written and holds only NULL (or pointers to
// static, immutable strings), so reading it from any thread is sound.
unsafe impl Sync for FrameworkNames {}

/// `char *pmix_framework_names[]`: empty, NULL-terminated.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static pmix_framework_names: FrameworkNames = FrameworkNames([std::ptr::null()]);
