//! Attaches as a tool to the server `PMIX_SERVER_URI` names and prints
//! `attached as <proc>`, or `refused: <reason>` and exits 1 (the
//! foreign-uid test, `launcher/tests/tools.rs`, runs it as `nobody`).

fn main() {
    match pmix_client::tool::Tool::init(&[]) {
        Ok(t) => {
            println!("attached as {}", t.proc());
            let _ = t.finalize();
        }
        Err(e) => {
            println!("refused: {e}");
            std::process::exit(1);
        }
    }
}
