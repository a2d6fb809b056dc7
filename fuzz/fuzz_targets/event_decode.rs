//! Fuzz the event record decoder (what a client reads from its inbound
//! ring, written by any local process): never panic, and whatever decodes
//! re-encodes to the same bytes' meaning. The progress thread decodes in
//! place, into a pooled event that held an earlier record and through a
//! name cache filled by earlier records: that path must agree with a fresh
//! decode on every input (same success, same event), whatever came before.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use pmix_core::event::{EventMsg, NameCache};
use pmix_core::{DataRange, Status};

thread_local! {
    /// The pooled event and name cache, kept across inputs as the
    /// progress thread keeps them across records.
    static POOLED: RefCell<(EventMsg, NameCache)> = RefCell::new((
        EventMsg::new(Status::SUCCESS, DataRange::PROC_LOCAL),
        NameCache::new(),
    ));
}

fuzz_target!(|data: &[u8]| {
    let fresh = EventMsg::decode(data);
    if let Ok(ev) = &fresh {
        let again = EventMsg::decode(&ev.encode()).unwrap();
        assert_eq!(again.encode(), ev.encode());
        let _ = ev.view().is_job_level();
    }
    POOLED.with(|p| {
        let (pooled, names) = &mut *p.borrow_mut();
        let in_place = pooled.decode_in_place(data, names);
        match (&fresh, in_place) {
            (Ok(ev), Ok(())) => assert_eq!(pooled.encode(), ev.encode()),
            (Err(a), Err(b)) => assert_eq!(a.status(), b.status()),
            (f, p) => panic!("fresh decode {f:?}, in place {p:?}"),
        }
    });
});
