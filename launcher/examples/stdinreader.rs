//! A job rank that reads its stdin (`launcher/tests/tool_support.rs`,
//! `PMIx_IOF_push`): init, then `read <line>` for every line of stdin and
//! `eof after <n> lines` at its end, finalize.

use std::io::BufRead;

fn main() {
    let c = pmix_client::Client::init(&[]).unwrap_or_else(|e| {
        println!("FAIL: init: {e}");
        std::process::exit(1)
    });
    let mut n = 0;
    for line in std::io::stdin().lock().lines() {
        match line {
            Ok(l) => {
                println!("read {l}");
                n += 1;
            }
            Err(e) => {
                println!("FAIL: stdin: {e}");
                std::process::exit(1)
            }
        }
    }
    println!("eof after {n} lines");
    let _ = c.finalize();
}
