//! No process can take a rank it was not launched as: a child of rank 0
//! claiming to be rank 2 (before the real rank 2 connects) is refused
//! with `PMIX_ERR_INVALID_CRED`, and the real rank 2 is served. Before
//! per-client secrets the server checked only the uid/gid, so the child
//! got rank 2 and the real one was locked out.

use std::process::Command;

mod common;
use common::{example, text};

#[test]
fn a_child_of_rank_0_cannot_take_rank_2() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .env("TMPDIR", tmp.path())
        .args(["--timeout", "60", "-n", "3"])
        .arg(example("impostor"))
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains("FAIL"), "{t}");
    assert_eq!(t.matches("ok impostor refused").count(), 1, "{t}");
    assert!(t.contains("client secret"), "the refusal says why: {t}");
    assert_eq!(t.matches("ok done").count(), 3, "{t}");
}
