//! Fuzz the control-plane message decoders (handshake, requests, replies,
//! modex-store entries): never panic, and whatever decodes re-encodes to
//! something that decodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_core::proto::{self, Hello, Reply, Request, Welcome};

fuzz_target!(|data: &[u8]| {
    let Some((sel, body)) = data.split_first() else {
        return;
    };
    match sel % 5 {
        0 => {
            if let Ok(h) = Hello::decode(body) {
                assert_eq!(Hello::decode(&h.encode()).unwrap(), h);
            }
        }
        1 => {
            if let Ok(w) = Welcome::decode(body) {
                assert_eq!(Welcome::decode(&w.encode()).unwrap(), w);
            }
        }
        2 => {
            let t = u16::from(*sel) << 2;
            for msg_type in [10, 11, 12, 13, 14, 15, 16, 23, t] {
                if let Ok(r) = Request::decode(msg_type, body) {
                    let again = Request::decode(r.msg_type(), &r.encode()).unwrap();
                    assert_eq!(again.encode(), r.encode());
                }
            }
        }
        3 => {
            if let Ok(r) = Reply::decode(body) {
                assert_eq!(Reply::decode(&r.encode()).unwrap().encode(), r.encode());
            }
        }
        _ => {
            let _ = proto::decode_modex_value(body);
        }
    }
});
