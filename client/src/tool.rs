//! Tools: processes the server's host did not launch that attach to a
//! server (`PMIx_tool_init`), find it through the rendezvous files every
//! pmix-rs server leaves (OpenPMIx's names and contents,
//! `pmix_core::proto::tool`), and are then served like clients: queries,
//! events, notify, log, spawn.
//!
//! Which server ([`Tool::init`]'s `info`, the standard's attributes):
//! - `PMIX_SERVER_URI` (or the environment's `PMIX_SERVER_URI`): that one;
//! - `PMIX_SERVER_PIDINFO`: the file `pmix.<host>.tool.<pid>`;
//! - `PMIX_SERVER_NSPACE`: the file `pmix.<host>.tool.<nspace>`;
//! - `PMIX_CONNECT_TO_SYSTEM`: only the system server, `pmix.sys.<host>`;
//! - `PMIX_CONNECT_SYSTEM_FIRST`: the system server, else as below;
//! - nothing: the one live server of this node found under the tmpdir
//!   (more than one is an error that lists them).
//!
//! Files are searched in `PMIX_SERVER_TMPDIR` (info or environment), else
//! `$TMPDIR`, else `/tmp`, and its subdirectories down to two levels (a
//! launcher's session directory). `PMIX_SYSTEM_TMPDIR` likewise for the
//! system file. `PMIX_TOOL_NSPACE` / `PMIX_TOOL_RANK` ask for an identity;
//! otherwise the host gives one. `PMIX_TOOL_DO_NOT_CONNECT`: no server.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pmix_core::proto::tool::{files, parse_uri, unnamed_tool, Rendezvous};
use pmix_core::proto::{self, caps, Hello, ToolHello};
use pmix_core::{attrs, Error, Info, Nspace, Proc, Rank, Result, Status, Value};

use crate::{conn, Client, ClientConfig, LostServer};

/// A server a tool may attach to, as its rendezvous file describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerEntry {
    /// The file it was read from (`None`: a URI given directly).
    pub file: Option<PathBuf>,
    /// The server's proc.
    pub server: Proc,
    /// Its socket.
    pub socket: PathBuf,
    /// What the file says (pid, uid, version).
    pub rendezvous: Rendezvous,
}

/// An initialised tool: its identity and, unless it was asked not to
/// connect, the client serving it.
#[derive(Clone, Debug)]
pub struct Tool {
    proc: Proc,
    client: Option<Client>,
    server: Option<ServerEntry>,
}

fn find<'a>(info: &'a [Info], key: &str) -> Option<&'a Value> {
    info.iter().find(|i| i.is(key)).map(|i| &i.value)
}

fn text(info: &[Info], key: &str) -> Option<String> {
    match find(info, key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The directory searched for the session files.
pub fn server_tmpdir(info: &[Info]) -> PathBuf {
    text(info, attrs::SERVER_TMPDIR)
        .or_else(|| std::env::var(proto::env::SERVER_TMPDIR).ok())
        .or_else(|| std::env::var("TMPDIR").ok())
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
}

fn system_tmpdir(info: &[Info]) -> PathBuf {
    text(info, attrs::SYSTEM_TMPDIR)
        .or_else(|| std::env::var("PMIX_SYSTEM_TMPDIR").ok())
        .map_or_else(|| server_tmpdir(info), PathBuf::from)
}

/// Reads one rendezvous file.
///
/// # Errors
/// `PMIX_ERR_NOT_FOUND` for a missing file, `PMIX_ERR_BAD_PARAM` for one
/// that is not a pmix-rs server's.
pub fn read_entry(file: &Path) -> Result<ServerEntry> {
    let t = std::fs::read_to_string(file).map_err(|e| {
        Error::with_context(
            Status::ERR_NOT_FOUND,
            format!("rendezvous file {}: {e}", file.display()),
        )
    })?;
    let r = Rendezvous::parse(&t)?;
    let (server, socket) = parse_uri(&r.uri)?;
    Ok(ServerEntry {
        file: Some(file.to_owned()),
        server,
        socket,
        rendezvous: r,
    })
}

/// Every file named `name` (or, with `name` ending in `*`, starting with
/// it) under `dir`, down to two levels of subdirectories.
fn search(dir: &Path, name: &str, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let path = e.path();
        let fname = e.file_name();
        let fname = fname.to_string_lossy();
        let matches = match name.strip_suffix('*') {
            Some(prefix) => fname.starts_with(prefix),
            None => fname == name,
        };
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_file() && matches {
            out.push(path);
        } else if ft.is_dir() && depth > 0 {
            search(&path, name, depth - 1, out);
        }
    }
}

/// The live pmix-rs servers of this node whose by-pid files are under
/// `tmpdir` (the ones `pmix ps` lists), in pid order.
pub fn live_servers(tmpdir: &Path) -> Vec<ServerEntry> {
    let host = pmix_core_hostname();
    let mut paths = Vec::new();
    search(tmpdir, &format!("pmix.{host}.tool.*"), 2, &mut paths);
    let mut out: Vec<ServerEntry> = paths
        .iter()
        .filter(|p| {
            // Only the by-pid files: one per server.
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.rsplit('.').next())
                .is_some_and(|last| last.parse::<u32>().is_ok())
        })
        .filter_map(|p| read_entry(p).ok())
        .filter(|e| alive(e.rendezvous.pid) && e.socket.exists())
        .collect();
    out.sort_by_key(|e| e.rendezvous.pid);
    out.dedup_by(|a, b| a.socket == b.socket);
    out
}

fn alive(pid: u32) -> bool {
    pid != 0 && Path::new("/proc").join(pid.to_string()).exists()
}

fn pmix_core_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

fn unreachable(why: String) -> Error {
    Error::with_context(Status::ERR_UNREACH, why)
}

/// The first live server among the files named `name` under `dir`.
fn by_file(dir: &Path, name: &str) -> Result<ServerEntry> {
    let mut paths = Vec::new();
    search(dir, name, 2, &mut paths);
    paths.sort();
    paths
        .iter()
        .filter_map(|p| read_entry(p).ok())
        .find(|e| alive(e.rendezvous.pid))
        .ok_or_else(|| {
            unreachable(format!(
                "no live server's rendezvous file {name} under {}",
                dir.display()
            ))
        })
}

/// The server `info` names (module documentation).
///
/// # Errors
/// `PMIX_ERR_UNREACH` when none is found or several could be meant,
/// `PMIX_ERR_BAD_PARAM` for a malformed URI.
pub fn choose_server(info: &[Info]) -> Result<ServerEntry> {
    let host = pmix_core_hostname();
    let uri = text(info, attrs::SERVER_URI).or_else(|| std::env::var("PMIX_SERVER_URI").ok());
    if let Some(uri) = uri {
        let (server, socket) = parse_uri(&uri)?;
        return Ok(ServerEntry {
            file: None,
            server,
            socket,
            rendezvous: Rendezvous {
                uri,
                version: String::new(),
                pid: 0,
                uid: u32::MAX,
                gid: u32::MAX,
            },
        });
    }
    let tmp = server_tmpdir(info);
    if let Some(v) = find(info, attrs::SERVER_PIDINFO) {
        let pid = v
            .to_i64()
            .map_err(|_| Error::bad_param("PMIX_SERVER_PIDINFO must be a pid"))?;
        return by_file(&tmp, &files::by_pid(&host, u32::try_from(pid).unwrap_or(0)));
    }
    if let Some(ns) = text(info, attrs::SERVER_NSPACE) {
        return by_file(&tmp, &files::by_nspace(&host, &ns));
    }
    let set = |k: &str| find(info, k).is_some_and(|v| v.is_true().unwrap_or(true));
    let system = || by_file(&system_tmpdir(info), &files::system(&host));
    if set(attrs::CONNECT_TO_SYSTEM) {
        return system();
    }
    if set(attrs::CONNECT_SYSTEM_FIRST) {
        if let Ok(e) = system() {
            return Ok(e);
        }
    }
    let mut live = live_servers(&tmp);
    match live.len() {
        0 => Err(unreachable(format!(
            "no live pmix server found under {} (looked for pmix.{host}.tool.<pid> files)",
            tmp.display()
        ))),
        1 => Ok(live.remove(0)),
        n => Err(unreachable(format!(
            "{n} servers found under {} (pids {}): name one with PMIX_SERVER_PIDINFO, \
             PMIX_SERVER_NSPACE or PMIX_SERVER_URI",
            tmp.display(),
            live.iter()
                .map(|e| e.rendezvous.pid.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The identity `info` asks for (`PMIX_TOOL_NSPACE`, `PMIX_TOOL_RANK`).
fn requested(info: &[Info]) -> Result<Option<Proc>> {
    let Some(ns) = text(info, attrs::TOOL_NSPACE) else {
        return Ok(None);
    };
    let rank = match find(info, attrs::TOOL_RANK) {
        Some(v) => Rank(
            v.to_u64()
                .ok()
                .and_then(|r| u32::try_from(r).ok())
                .ok_or_else(|| Error::bad_param("PMIX_TOOL_RANK must be a rank"))?,
        ),
        None => Rank(0),
    };
    Ok(Some(Proc::from_parts(Nspace::new(ns)?, rank)))
}

impl Tool {
    /// Initialises a tool (`PMIx_tool_init`): attaches to the server
    /// `info` names (module documentation).
    ///
    /// # Errors
    /// [`choose_server`]'s errors; the server's refusal
    /// (`PMIX_ERR_NO_PERMISSIONS` for another user's server, naming both
    /// uids); `PMIX_ERR_BAD_PARAM` for a malformed identity.
    pub fn init(info: &[Info]) -> Result<Tool> {
        let want = requested(info)?;
        let no_connect =
            find(info, attrs::TOOL_DO_NOT_CONNECT).is_some_and(|v| v.is_true().unwrap_or(true));
        if no_connect {
            let proc = match want {
                Some(p) => p,
                None => Proc::from_parts(
                    Nspace::new(format!("pmix.tool.{}", std::process::id()))?,
                    Rank(0),
                ),
            };
            return Ok(Tool {
                proc,
                client: None,
                server: None,
            });
        }
        let entry = choose_server(info)?;
        let client = attach(&entry, want)?;
        Ok(Tool {
            proc: client.proc().clone(),
            client: Some(client),
            server: Some(entry),
        })
    }

    /// The tool [`attach`] made.
    pub fn from_client(client: Client, server: ServerEntry) -> Tool {
        Tool {
            proc: client.proc().clone(),
            client: Some(client),
            server: Some(server),
        }
    }

    /// The tool's identity.
    pub fn proc(&self) -> &Proc {
        &self.proc
    }

    /// The client serving the tool (`None` with `PMIX_TOOL_DO_NOT_CONNECT`).
    pub fn client(&self) -> Option<&Client> {
        self.client.as_ref()
    }

    /// The server attached to.
    pub fn server(&self) -> Option<&ServerEntry> {
        self.server.as_ref()
    }

    /// Detaches (`PMIx_tool_finalize`).
    ///
    /// # Errors
    /// The client's finalize errors.
    pub fn finalize(self) -> Result<()> {
        match self.client {
            Some(c) => c.disconnect(),
            None => Ok(()),
        }
    }
}

/// Attaches to `entry` as a tool, asking for `want` (else the host names
/// the tool).
///
/// # Errors
/// As [`Tool::init`].
pub fn attach(entry: &ServerEntry, want: Option<Proc>) -> Result<Client> {
    let mut cfg = ClientConfig::new(
        want.clone().unwrap_or_else(unnamed_tool),
        entry.socket.clone(),
    );
    cfg.min_version = 5;
    if let Some(max) = std::env::var(proto::env::PROTOCOL_MAX)
        .ok()
        .and_then(|v| v.parse::<u16>().ok())
    {
        // Tests of version negotiation: a tool speaking an older protocol.
        cfg.max_version = max;
        cfg.min_version = cfg.min_version.min(max);
    }
    cfg.on_lost_server = LostServer::Continue;
    cfg.connect_timeout = Duration::from_secs(10);
    let hello = ToolHello {
        hello: Hello {
            min_version: cfg.min_version,
            max_version: cfg.max_version,
            caps: caps::ALL,
            proc: cfg.proc.clone(),
            pid: std::process::id(),
            secret: None,
        },
        requested: want.is_some(),
    };
    let hs = conn::open(
        &cfg.socket,
        conn::Opening::Tool(&hello),
        cfg.connect_timeout,
    )?;
    Client::from_handshake(&cfg, hs)
}
