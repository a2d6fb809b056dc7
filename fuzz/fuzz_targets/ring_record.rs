//! Fuzz the decoder of ring record headers read from shared memory (bytes
//! another, possibly faulty, process wrote).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_shm::layout::{decode_record_header, SlotState};

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = decode_record_header(data) {
        // a committed record always carries a meta word whose length fits
        // the claimed cells
        if let SlotState::Committed(_) = h.state {
            assert!(h.meta.is_some());
        }
    }
});
