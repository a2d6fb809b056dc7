//! A newer peer over a real socket (use case "Cross-Version
//! Compatibility", UC-33; `examples/newerpeer.rs`): a data type tag this
//! version does not know is refused `PMIX_ERR_UNPACK_FAILURE` and the
//! connection keeps serving; an event code, a status and a data range it
//! has no name for reach an ordinary client's handler unchanged and print
//! as numbers. Bounded by `pmixrun --timeout`.

use std::process::Command;

mod common;
use common::{example, text};

#[test]
fn a_newer_peers_unknown_codes_survive_and_its_unknown_type_is_refused() {
    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60", "-n", "2"])
        .arg(example("newerpeer"))
        .output()
        .unwrap();
    let all = text(&o);
    assert!(o.status.success(), "{all}");
    assert!(!all.contains("FAIL: "), "{all}");
    assert!(
        all.contains("ok unknown type tag refused: PMIX_ERR_UNPACK_FAILURE: no decoding for data type DataType(65278)"),
        "{all}"
    );
    assert!(all.contains("ok still served"), "{all}");
    assert!(
        all.contains("status PMIX_STATUS(-98766) range DataRange(200)"),
        "{all}"
    );
    assert!(all.contains("ok got PMIX_STATUS(-98765) from "), "{all}");
    assert_eq!(all.matches("ok done").count(), 2, "{all}");
}
