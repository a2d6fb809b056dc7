//! Fuzz the validator of job-data store table images read from shared
//! memory (written by a server the reader does not trust blindly).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_shm::store::decode_table;

fuzz_target!(|data: &[u8]| {
    let _ = decode_table(data);
});
