//! A PMIx client that reports the job's scratch directories, for
//! `launcher/tests/job_dirs.rs`: `dirclient <ok|fail|abort|hang>`.
//!
//! Each rank gets `PMIX_TMPDIR`, `PMIX_NSDIR` and `PMIX_TDIR_RMCLEAN`
//! (job level), writes a file `rank.<r>` into the namespace directory and
//! prints one line
//!
//! ```text
//! dirs rank=<r> tmpdir=<path> tmpmode=<octal> nsdir=<path> nsmode=<octal> rmclean=<bool>
//! ```
//!
//! (`-` for a key it did not get). Then `ok` finalizes and exits 0;
//! `fail` fences, then rank 1 exits 3 and the others sleep 60 s; `abort`
//! fences, then rank 0 calls abort with status 5 and the others sleep
//! 60 s; `hang` sleeps 60 s on every rank.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use pmix_client::Client;
use pmix_core::{attrs, Proc, Rank, Status, Value};

fn mode(path: &str) -> String {
    std::fs::symlink_metadata(path).map_or("-".into(), |m| {
        if m.file_type().is_dir() {
            format!("{:o}", m.permissions().mode() & 0o7777)
        } else {
            "notdir".into()
        }
    })
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "ok".into());
    let c = match Client::init(&[]) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("dirclient: PMIx init failed: {e}");
            std::process::exit(1);
        }
    };
    let me = c.proc().clone();
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let string = |key: &str| match c.get(&wild, key, &[]) {
        Ok(Value::String(s)) => s,
        _ => "-".into(),
    };
    let tmpdir = string(attrs::TMPDIR);
    let nsdir = string(attrs::NSDIR);
    let rmclean = match c.get(&wild, attrs::TDIR_RMCLEAN, &[]) {
        Ok(Value::Bool(b)) => b.to_string(),
        _ => "-".into(),
    };
    if nsdir != "-" {
        let file = std::path::Path::new(&nsdir).join(format!("rank.{}", me.rank.0));
        if let Err(e) = std::fs::write(&file, b"scratch") {
            eprintln!("dirclient: cannot write {}: {e}", file.display());
        }
    }
    println!(
        "dirs rank={} tmpdir={tmpdir} tmpmode={} nsdir={nsdir} nsmode={} rmclean={rmclean}",
        me.rank.0,
        mode(&tmpdir),
        mode(&nsdir)
    );
    if what == "fail" || what == "abort" {
        // Every rank has printed its line before rank 1 fails.
        if let Err(e) = c.fence(&[], &[]) {
            eprintln!("dirclient: fence failed: {e}");
        }
    }
    match what.as_str() {
        "fail" if me.rank.0 == 1 => std::process::exit(3),
        "abort" if me.rank.0 == 0 => {
            let r = c.abort(Status(5), "dirclient aborts", &[]);
            eprintln!("dirclient: abort returned {r:?}");
            std::thread::sleep(Duration::from_secs(60));
        }
        "fail" | "abort" | "hang" => std::thread::sleep(Duration::from_secs(60)),
        _ => {}
    }
    if let Err(e) = c.finalize() {
        eprintln!("dirclient: finalize failed: {e}");
        std::process::exit(1);
    }
}
