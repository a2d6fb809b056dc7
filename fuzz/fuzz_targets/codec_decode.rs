//! Fuzz the value/info/proc/blob/modex decoders with arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_core::codec::{self, blob, Decoder};

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = codec::decode_value(data) {
        // what decodes must re-encode to the same bytes
        assert_eq!(codec::encode_value(&v), data);
    }
    let _ = codec::decode_infos(data);
    let _ = blob::decode_all(data);
    let _ = blob::decode_modex_all(data);
    let mut d = Decoder::new(data);
    let _ = d.get_procs();
});
