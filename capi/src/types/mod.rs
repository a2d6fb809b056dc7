//! `#[repr(C)]` mirrors of the public OpenPMIx 4.2 types, the callback
//! typedefs, and the constants this crate uses.
//!
//! Names are the C names so that every item can be checked against
//! `pmix_common.h`, `pmix.h` and `pmix_server.h` by eye; a C field named
//! `type` is `type_` here. The sizes and offsets the C ABI depends on are
//! compile-time assertions next to the structs; `tests/c_programs.rs`
//! compares every size and offset (through [`crate::layout`]) and the
//! numeric value of every constant in [`ALL_CONSTANTS`] with what a C
//! compiler computes from Debian's headers (`tests/c/layout.c`).
//!
//! - this file: the scalar typedefs;
//! - `structs`: the structs and the `pmix_value_t` data union;
//! - `callbacks`: the callback typedefs;
//! - `server_module`: `pmix_server_module_t` and its up-call typedefs;
//! - `consts`: the constants.
//!
//! # References
//! OpenPMIx 4.2.2 `include/pmix_common.h`; PMIx Standard v4.2, chapter 3
//! "Data Structures and Types".
#![allow(non_camel_case_types)]

use std::mem::{align_of, size_of};
use std::os::raw::{c_char, c_int};

/// Compile-time checks that `repr(C)` structs have the size, alignment and
/// field offsets of Debian's OpenPMIx 4.2.2 headers on x86_64: a mirror
/// that drifts from the C layout does not build.
macro_rules! c_layout {
    ($(
        $ty:ident ($size:literal, $align:literal) { $( $field:ident: $off:literal ),* $(,)? }
    )*) => {$(
        const _: () = assert!(
            ::std::mem::size_of::<$ty>() == $size && ::std::mem::align_of::<$ty>() == $align,
            concat!("size or alignment of ", stringify!($ty)),
        );
        $( const _: () = assert!(
            ::std::mem::offset_of!($ty, $field) == $off,
            concat!("offset of ", stringify!($ty), ".", stringify!($field)),
        ); )*
    )*};
}

mod callbacks;
mod consts;
mod server_module;
mod structs;

pub use callbacks::*;
pub use consts::*;
pub use server_module::*;
pub use structs::*;

// ---------------------------------------------------------------------------
// Scalar typedefs

/// `pmix_status_t`: a status code (`int`).
pub type pmix_status_t = c_int;
/// `pmix_rank_t`: a process rank.
pub type pmix_rank_t = u32;
/// `pmix_data_type_t`: a data type tag.
pub type pmix_data_type_t = u16;
/// `pmix_scope_t`.
pub type pmix_scope_t = u8;
/// `pmix_data_range_t`.
pub type pmix_data_range_t = u8;
/// `pmix_persistence_t`.
pub type pmix_persistence_t = u8;
/// `pmix_info_directives_t`: info flag bits.
pub type pmix_info_directives_t = u32;
/// `pmix_alloc_directive_t`.
pub type pmix_alloc_directive_t = u8;
/// `pmix_iof_channel_t`.
pub type pmix_iof_channel_t = u16;
/// `pmix_proc_state_t`.
pub type pmix_proc_state_t = u8;
/// `pmix_job_state_t`.
pub type pmix_job_state_t = u8;
/// `pmix_coord_view_t`.
pub type pmix_coord_view_t = u8;
/// `pmix_link_state_t`.
pub type pmix_link_state_t = u8;
/// `pmix_bind_envelope_t`.
pub type pmix_bind_envelope_t = u8;
/// `pmix_locality_t`.
pub type pmix_locality_t = u16;
/// `pmix_device_type_t`.
pub type pmix_device_type_t = u64;
/// `pmix_storage_medium_t`.
pub type pmix_storage_medium_t = u64;
/// `pmix_storage_accessibility_t`.
pub type pmix_storage_accessibility_t = u64;
/// `pmix_storage_persistence_t`.
pub type pmix_storage_persistence_t = u64;
/// `pmix_storage_access_type_t`.
pub type pmix_storage_access_type_t = u16;
/// `pmix_value_cmp_t` (a C enum: `int`).
pub type pmix_value_cmp_t = c_int;
/// `pmix_boolean_t` (a C enum: `int`).
pub type pmix_boolean_t = c_int;
/// `pmix_group_operation_t` (a C enum: `int`).
pub type pmix_group_operation_t = c_int;
/// `pmix_group_opt_t` (a C enum: `int`).
pub type pmix_group_opt_t = c_int;
/// `pmix_fabric_operation_t` (a C enum: `int`).
pub type pmix_fabric_operation_t = c_int;
/// `pmix_nspace_t`: `char[PMIX_MAX_NSLEN + 1]`.
pub type pmix_nspace_t = [c_char; PMIX_MAX_NSLEN + 1];
/// `pmix_key_t`: `char[PMIX_MAX_KEYLEN + 1]`.
pub type pmix_key_t = [c_char; PMIX_MAX_KEYLEN + 1];

/// The scalar typedefs' `(sizeof, _Alignof)`, checked at compile time.
macro_rules! c_scalars {
    ($( $ty:ident ($size:literal, $align:literal) )*) => {$(
        const _: () = assert!(
            size_of::<$ty>() == $size && align_of::<$ty>() == $align,
            concat!("size or alignment of ", stringify!($ty)),
        );
    )*};
}

c_scalars! {
    pmix_nspace_t (256, 1)
    pmix_key_t (512, 1)
    pmix_rank_t (4, 4)
    pmix_status_t (4, 4)
    pmix_data_type_t (2, 2)
    pmix_scope_t (1, 1)
    pmix_data_range_t (1, 1)
    pmix_persistence_t (1, 1)
    pmix_info_directives_t (4, 4)
    pmix_alloc_directive_t (1, 1)
    pmix_iof_channel_t (2, 2)
    pmix_proc_state_t (1, 1)
    pmix_job_state_t (1, 1)
    pmix_coord_view_t (1, 1)
    pmix_link_state_t (1, 1)
    pmix_bind_envelope_t (1, 1)
    pmix_locality_t (2, 2)
    pmix_device_type_t (8, 8)
    pmix_storage_medium_t (8, 8)
    pmix_storage_accessibility_t (8, 8)
    pmix_storage_persistence_t (8, 8)
    pmix_storage_access_type_t (2, 2)
    pmix_group_opt_t (4, 4)
    pmix_group_operation_t (4, 4)
    pmix_value_cmp_t (4, 4)
    pmix_boolean_t (4, 4)
    pmix_fabric_operation_t (4, 4)
}
