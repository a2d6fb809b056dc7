//! The rendezvous files a server leaves for tools to find it, with
//! OpenPMIx's names and contents (`pmix_core::proto::tool::Rendezvous`):
//! in the server's tmpdir `pmix.<host>.tool.<pid>`,
//! `pmix.<host>.tool.<nspace>` and `pmix.<host>.tool`; in the system
//! tmpdir `pmix.sys.<host>` when the server is the node's system server
//! (`PMIX_SERVER_SYSTEM_SUPPORT`).
//!
//! Each is created exclusively, mode 0600. A file already there is
//! reclaimed (removed and written anew) when the pid it names is dead — a
//! server that was killed left it — and left alone, with a log line, when
//! that pid is alive: another server holds that name. At stop the server
//! removes the files it wrote, each only while it still holds this
//! server's URI.

use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use pmix_core::proto::tool::{files, Rendezvous};

/// The library version written in the files.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where the files go and what they say.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub(crate) tmpdir: &'a Path,
    pub(crate) system_tmpdir: Option<&'a Path>,
    pub(crate) host: &'a str,
    pub(crate) nspace: &'a str,
    pub(crate) uri: String,
}

/// The files this server wrote.
#[derive(Debug, Default)]
pub(crate) struct Written {
    uri: String,
    paths: Vec<PathBuf>,
}

/// Whether process `pid` exists (a zombie counts: its parent has not
/// reaped it yet).
pub fn pid_alive(pid: u32) -> bool {
    pid != 0 && Path::new("/proc").join(pid.to_string()).exists()
}

/// Writes every file of `plan`; a name held by a live server is skipped
/// and logged through `log`.
pub(crate) fn write_all(plan: &Plan<'_>, log: &dyn Fn(String)) -> Written {
    let me = Rendezvous {
        uri: plan.uri.clone(),
        version: VERSION.to_owned(),
        pid: std::process::id(),
        uid: rustix::process::getuid().as_raw(),
        gid: rustix::process::getgid().as_raw(),
    };
    let written_at = now_text();
    let text = me.format(&written_at);
    let mut names = vec![
        plan.tmpdir.join(files::by_pid(plan.host, me.pid)),
        plan.tmpdir.join(files::by_nspace(plan.host, plan.nspace)),
        plan.tmpdir.join(files::session(plan.host)),
    ];
    if let Some(sys) = plan.system_tmpdir {
        names.push(sys.join(files::system(plan.host)));
    }
    let mut out = Written {
        uri: plan.uri.clone(),
        paths: Vec::new(),
    };
    for path in names {
        match write_one(&path, &text) {
            Ok(()) => out.paths.push(path),
            Err(why) => log(format!("rendezvous file {}: {why}", path.display())),
        }
    }
    out
}

/// Creates `path` holding `text`, reclaiming a stale file once.
fn write_one(path: &Path, text: &str) -> Result<(), String> {
    for _ in 0..2 {
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            Ok(mut f) => return f.write_all(text.as_bytes()).map_err(|e| e.to_string()),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                let owner = std::fs::read_to_string(path)
                    .ok()
                    .and_then(|t| Rendezvous::parse(&t).ok());
                if let Some(o) = owner.filter(|o| pid_alive(o.pid)) {
                    return Err(format!(
                        "held by live pid {} ({}); not written",
                        o.pid, o.uri
                    ));
                }
                // Left by a server that is gone: reclaim it.
                match std::fs::remove_file(path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(format!("stale, cannot remove it: {e}")),
                }
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Err("another process recreated it meanwhile".to_owned())
}

impl Written {
    /// Removes the files, each only while it still holds this URI.
    pub(crate) fn remove(&mut self) {
        for path in self.paths.drain(..) {
            let ours = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| Rendezvous::parse(&t).ok())
                .is_some_and(|r| r.uri == self.uri);
            if ours {
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    /// The files written.
    pub(crate) fn paths(&self) -> &[PathBuf] {
        &self.paths
    }
}

/// Seconds since the epoch, as text (the files' informational time line).
fn now_text() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("{secs}")
}
