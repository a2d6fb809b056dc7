//! Packing data in OpenPMIx's wire format: `PMIx_Data_pack`, `_unpack`,
//! `_copy`, `_print`, `_compress`, `_decompress` (moving a buffer's
//! payload is [`crate::data_buffer`]).

use std::os::raw::{c_char, c_void};

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Data_pack(const pmix_proc_t *target,
    /// pmix_data_buffer_t *buffer, void *src, int32_t num_vals,
    /// pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED`; the buffer is
    /// left as it is.
    fn PMIx_Data_pack(
        target: *const pmix_proc_t,
        buffer: *mut pmix_data_buffer_t,
        src: *mut c_void,
        num_vals: i32,
        type_: pmix_data_type_t,
    );

    /// `pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source,
    /// pmix_data_buffer_t *buffer, void *dest, int32_t *max_num_values,
    /// pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*max_num_values = 0` (nothing unpacked); `dest` and the buffer are
    /// left as they are.
    fn PMIx_Data_unpack(
        source: *const pmix_proc_t,
        buffer: *mut pmix_data_buffer_t,
        dest: *mut c_void,
        max_num_values: *mut i32,
        type_: pmix_data_type_t,
    ) => max_num_values;

    /// `pmix_status_t PMIx_Data_copy(void **dest, void *src,
    /// pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*dest = NULL`.
    fn PMIx_Data_copy(dest: *mut *mut c_void, src: *mut c_void, type_: pmix_data_type_t) => dest;

    /// `pmix_status_t PMIx_Data_print(char **output, char *prefix, void
    /// *src, pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*output = NULL`.
    fn PMIx_Data_print(
        output: *mut *mut c_char,
        prefix: *mut c_char,
        src: *mut c_void,
        type_: pmix_data_type_t,
    ) => output;

    /// `bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t
    /// **outbytes, size_t *nbytes)`: `false` (not compressed: no compressor
    /// is built in) with `*outbytes = NULL`, `*nbytes = 0`.
    fn PMIx_Data_compress(
        inbytes: *const u8,
        size: usize,
        outbytes: *mut *mut u8,
        nbytes: *mut usize,
    ) -> bool = false => outbytes, nbytes;

    /// `bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size,
    /// uint8_t **outbytes, size_t *nbytes)`: `false` (not decompressed) with
    /// `*outbytes = NULL`, `*nbytes = 0`.
    fn PMIx_Data_decompress(
        inbytes: *const u8,
        size: usize,
        outbytes: *mut *mut u8,
        nbytes: *mut usize,
    ) -> bool = false => outbytes, nbytes;
}
