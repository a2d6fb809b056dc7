//! The entry points OpenPMIx 4.2.2 (and 5.0: sessions, two tool calls)
//! exports (`pmix.h`, `pmix_server.h`,
//! `pmix_tool.h`, `pmix_deprecated.h`) whose feature pmix-rs does not have,
//! one file per API family, every one written with [`unsupported!`].
//!
//! Each answers `PMIX_ERR_NOT_SUPPORTED` (`PMIx_Data_compress` and
//! `PMIx_Data_decompress`: `false`) and:
//! - reads nothing the caller passes;
//! - resets the outputs the header says are set on return (`char **`,
//!   `pmix_info_t **results` with `size_t *nresults`, a credential or
//!   cpuset to fill) to NULL/0/empty when their pointer is not NULL; an
//!   in/out struct (the `pmix_topology_t` of `PMIx_Load_topology`,
//!   `pmix_fabric_t`, the `pmix_proc_t`s of the tool calls) is left as it
//!   is;
//! - never calls a callback: in the standard an error return means the
//!   callback will not come, and Open MPI's ext3x frees its callback data
//!   on that return (none of these is one of the always-call-back
//!   functions of rule T1).

/// Defines exported entry points that answer without doing anything:
///
/// ```text
/// unsupported! {
///     /// doc
///     fn PMIx_Name(arg: Type, out: *mut *mut T) => out;   // resets `*out`
///     fn PMIx_Other(arg: Type);                           // reads nothing
///     fn PMIx_Flag(arg: Type) -> bool = false;            // another answer
/// }
/// ```
///
/// The answer is `PMIX_ERR_NOT_SUPPORTED` unless `-> type = value` gives
/// another; the outputs named after `=>` are reset through
/// [`Out`](crate::cmem::Out) first.
macro_rules! unsupported {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?)
            $(-> $ret:ty = $answer:expr)?
            $(=> $($out:ident),+)?;
    )*) => {$(
        $(#[$attr])*
        ///
        /// # Safety
        /// Each output pointer reset is NULL or writable; nothing else is
        /// read.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> unsupported!(@ret $($ret)?) {
            $($(
                // SAFETY: NULL or writable (caller guarantee).
                unsafe { $crate::cmem::Out::clear($out) };
            )+)?
            let _ = ($($arg,)*);
            unsupported!(@answer $($answer)?)
        }
    )*};
    (@ret) => { $crate::types::pmix_status_t };
    (@ret $ret:ty) => { $ret };
    (@answer) => { $crate::types::PMIX_ERR_NOT_SUPPORTED };
    (@answer $answer:expr) => { $answer };
}

mod credential;
mod data_pack;
mod fabric;
mod iof;
mod query;
mod resources;
mod session;
mod spawn;
mod tool;
mod topology;

#[cfg(test)]
mod tests;

pub use credential::*;
pub use data_pack::*;
pub use fabric::*;
pub use iof::*;
pub use query::*;
pub use resources::*;
pub use session::*;
pub use spawn::*;
pub use tool::*;
pub use topology::*;
