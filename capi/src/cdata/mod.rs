//! C data in place, in libc memory (rule R1 of docs/CAPI.md): the one
//! table of C data types and what is built on it.
//!
//! - `kind`: [`ElemKind::of`], for each `pmix_data_type_t` how one element
//!   is laid out in C (a scalar [`Pod`], a proc, a string, a byte object,
//!   an envar, a data array, an info, a value, ...), and the scalar
//!   accessors ([`PodValue`]);
//! - `free`: releasing what an element, array, value or info owns;
//! - `copy`: deep copies of the same;
//! - `value`: `PMIx_Value_load` / `PMIx_Value_unload`;
//! - `size`: the bytes an element owns (`PMIx_Value_get_size`).
//!
//! A `pmix_value_t` holds its datum either inline at the start of its
//! data union or through a malloc'd pointer to one element
//! ([`ElemKind::boxed_in_value`]).

mod copy;
mod free;
mod kind;
mod size;
mod value;

pub(crate) use copy::{array_copy, info_xfer, value_xfer};
pub(crate) use free::{
    array_destruct, array_free, data_array_destruct, elem_destruct, info_destruct, value_destruct,
};
pub(crate) use kind::{ElemKind, PodValue};
pub(crate) use size::owned_bytes;
pub(crate) use value::{elem_ptr, value_load, value_unload};
