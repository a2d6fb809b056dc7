//! A job rank for the debugger tests (`launcher/tests/tools.rs`): init
//! (where a debugger may hold it), then `past init <rank>`, finalize.

fn main() {
    let c = pmix_client::Client::init(&[]).unwrap_or_else(|e| {
        println!("FAIL: init: {e}");
        std::process::exit(1)
    });
    println!("past init {}", c.proc().rank.0);
    let _ = c.finalize();
}
