//! Fuzz the event record decoder (what a client reads from its inbound
//! ring, written by any local process): never panic, and whatever decodes
//! re-encodes to the same bytes' meaning.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_core::event::EventMsg;

fuzz_target!(|data: &[u8]| {
    if let Ok(ev) = EventMsg::decode(data) {
        let again = EventMsg::decode(&ev.encode()).unwrap();
        assert_eq!(again.encode(), ev.encode());
        let _ = ev.view().is_job_level();
    }
});
