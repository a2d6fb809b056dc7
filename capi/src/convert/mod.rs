//! Conversions between the C data of the API (`pmix_value_t`,
//! `pmix_info_t[]`, `pmix_proc_t`, apps, queries, call arguments) and the
//! Rust data model of `pmix-core`. Every C → Rust conversion of the crate
//! is here.
//!
//! - `names`: namespaces, keys, procs;
//! - `args`: the arguments of C calls (keys, procs relative to this
//!   process, namespace arguments, key lists, status codes);
//! - `value`: values and the recursive types they hold (data arrays,
//!   infos, apps, queries);
//! - `infos`: info arrays as directives, lossy inputs and C copies;
//! - `pdata`: what a host hands back (published data, byte blobs).
//!
//! C → Rust always deep-copies: the caller may release its C data as soon
//! as the call returns. Rust → C allocates with libc only (rule R1 of
//! docs/CAPI.md), so C code releases the result with `free`,
//! `PMIX_VALUE_FREE`, `PMIX_INFO_FREE` and friends.
//!
//! Mapping notes:
//! - A C string that is NULL reads as `""` (`Value::String` has no NULL);
//!   `""` is written back as an empty C string for string values and as
//!   NULL for optional fields (`cwd`, `hostname`, `executable_name`).
//! - C strings must be UTF-8 (`PMIX_ERR_BAD_PARAM` otherwise); Rust strings
//!   are cut at an embedded NUL on the way to C.
//! - Types `pmix-core` does not model (`PMIX_POINTER`, `PMIX_COORD`,
//!   `PMIX_TOPO`, the stats, ...) and arrays of `PMIX_VALUE`/`PMIX_PDATA`
//!   are `PMIX_ERR_NOT_SUPPORTED`; so are `PMIX_APP`, `PMIX_QUERY` and
//!   `PMIX_INFO` as a top-level value (C holds them only in data arrays).

mod args;
mod infos;
mod names;
mod pdata;
mod value;

#[cfg(test)]
mod tests;

pub(crate) use args::{
    codes_in, key_in, keys_in, nspace_arg, nspace_in, pdata_keys, proc_in, procs_in, text_lossy,
};
pub(crate) use infos::{directives_in, infos_in_lossy, infos_out_lossy, infos_out_where};
pub(crate) use names::{key_from_c, proc_from_c, proc_to_c, procs_from_c, procs_to_c};
pub(crate) use pdata::{bytes_in, pdata_from_c};
pub(crate) use value::{
    apps_from_c, apps_to_c, darray_bytes, darray_items_to_c, info_to_c, infos_from_c, infos_to_c,
    query_from_c, query_to_c, value_from_c, value_to_c, value_to_c_boxed,
};
