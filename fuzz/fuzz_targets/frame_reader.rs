//! Fuzz the socket frame reassembler with arbitrary chunked input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_core::codec::frame::FrameReader;

fuzz_target!(|data: &[u8]| {
    let mut r = FrameReader::with_max_body(4096);
    // the first byte chooses the chunk size
    let (chunk, rest) = match data.split_first() {
        Some((c, rest)) => (usize::from(*c).max(1), rest),
        None => return,
    };
    for part in rest.chunks(chunk) {
        r.push(part);
        while let Ok(Some(f)) = r.next_frame() {
            assert_eq!(f.body.len(), f.header.len as usize);
        }
    }
});
