//! The `pmixrun` command line: a pure parser ([`parse_args`]) from the
//! arguments (without `argv[0]`) to [`Options`].
//!
//! Options end at the first argument that does not start with `-` (the
//! program) or at `--`; everything after the program belongs to it. Long
//! options may be written with one or two dashes (`-timeout 5`,
//! `--timeout 5`, as Open MPI's `mpirun` accepts) and may carry their value
//! after `=` (`--np=4`, `--timeout=2.5`).

use std::fmt;
use std::time::Duration;

/// The usage text `-h` / `--help` prints (and a usage error follows).
pub const USAGE: &str = "\
usage: pmixrun -n N [options] program [args...]

Runs N copies of program on this node, wired up through an embedded pmix-rs
PMIx server, and exits with the job's status.

options:
  -n, -np, --np, -c N    number of processes (required, at least 1)
  -x VAR                 export VAR from pmixrun's environment
  -x VAR=VALUE           set VAR to VALUE in every process's environment
  --timeout S            kill the job after S seconds (fractional allowed);
                         exit status 124
  --pset NAME:RANKS      define process set NAME (ranks like 0,2-3, or all)
                         before the job starts; repeatable
  --tag-output           prefix each output line with [JOB,RANK]<stdout>: or
                         [JOB,RANK]<stderr>: (JOB 1 is this job, 2, 3, ...
                         the jobs its processes spawn)
  --spawn-slots N        at most N spawned processes run at once (default
                         64); a PMIx_Spawn asking for more fails
  -v, --verbose          let the PMIx server log refused and dropped
                         connections on stderr
  --report-uri FILE      write the server's URI (PMIX_SERVER_URI, for
                         tools) to FILE (- stdout, + stderr) once it listens
  --report-pid FILE      write pmixrun's pid (PMIX_SERVER_PIDINFO) to FILE
                         (- stdout, + stderr) once it listens
  --stop-in-init RANKS   debugging: the ranks (all, or a list like 0,2)
                         wait in PMIx_Init, after raising
                         PMIX_READY_FOR_DEBUG, for PMIX_DEBUGGER_RELEASE;
                         once all wait, pmixrun raises PMIX_READY_FOR_DEBUG
                         (with PMIX_NSPACE) for tools
  --stop-on-exec         not supported (needs ptrace): refused
  --no-slurm-env         do not present a Slurm job step (SLURM_JOBID,
                         SLURM_NODELIST, SLURM_STEP_ID) to the processes:
                         Open MPI 4.1 then runs each as a singleton
  --oversubscribe, --allow-run-as-root, --bind-to X, --map-by X
                         accepted for mpirun compatibility; no effect
  -h, --help             print this help and exit
  --                     end of options (the next argument is the program)

PMIx_Spawn: a process may start new jobs (MPI_Comm_spawn); they get
PMIX_PARENT_ID and PMIX_SPAWNED, pmixrun's environment with the -x
settings, then the spawn's environment directives (PMIX_SET_ENVAR,
PMIX_ADD_ENVAR, PMIX_UNSET_ENVAR, PMIX_PREPEND_ENVAR, PMIX_APPEND_ENVAR):
the job-level ones, then the app's. A spawned job's failure ends every
job, unless its spawner asked for PMIX_NOTIFY_COMPLETION: then only that
job ends and the spawner gets PMIX_EVENT_JOB_END with its status.

exit status (over every job): 0 when every process exited 0; the first failing process's
status; 128+N when one was killed by signal N; the abort status when one
called PMIx_Abort; 1 when a PMIx client exited without finalize; 124 on
--timeout; 127 when the program cannot be executed; 2 on a usage error.";

/// One `-x` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Export {
    /// `-x VAR`: pass `VAR` from pmixrun's environment (the children inherit
    /// pmixrun's whole environment anyway, so this only documents intent; an
    /// unset `VAR` is skipped).
    Inherit(String),
    /// `-x VAR=VALUE`: set `VAR` to `VALUE`.
    Set(String, String),
}

/// What to run, as the command line asked.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Number of processes (at least 1).
    pub np: u32,
    /// Kill the job after this long (`--timeout`).
    pub timeout: Option<Duration>,
    /// Prefix every forwarded line with its rank and stream (`--tag-output`).
    pub tag_output: bool,
    /// Let the server log refused and dropped connections (`-v`).
    pub verbose: bool,
    /// `-x` requests, in command-line order.
    pub exports: Vec<Export>,
    /// `--pset` requests, in command-line order.
    pub psets: Vec<crate::pset_arg::PsetArg>,
    /// Most spawned processes running at once (`--spawn-slots`).
    pub spawn_slots: u32,
    /// Present a Slurm job step to the ranks (not `--no-slurm-env`): what
    /// makes Open MPI 4.1 take pmixrun for its launcher (`mpi_env.rs`).
    pub slurm_env: bool,
    /// Where to write the server's URI once it listens (`--report-uri`).
    pub report_uri: Option<String>,
    /// Where to write pmixrun's pid once it listens (`--report-pid`).
    pub report_pid: Option<String>,
    /// Ranks to stop in init for a debugger (`--stop-in-init`; empty:
    /// every rank).
    pub stop_in_init: Option<Vec<u32>>,
    /// The program to run (looked up in `PATH` when it has no `/`).
    pub program: String,
    /// The program's arguments.
    pub args: Vec<String>,
}

impl Options {
    /// Options running `program` (no arguments) as `np` processes, with no
    /// timeout, tags or exports.
    pub fn new(np: u32, program: impl Into<String>) -> Self {
        Options {
            np,
            timeout: None,
            tag_output: false,
            verbose: false,
            exports: Vec::new(),
            psets: Vec::new(),
            spawn_slots: crate::spawn::DEFAULT_SPAWN_SLOTS,
            slurm_env: true,
            report_uri: None,
            report_pid: None,
            stop_in_init: None,
            program: program.into(),
            args: Vec::new(),
        }
    }
}

/// Why the command line does not describe a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsageError {
    /// `-h` / `--help`: print [`USAGE`] on stdout and exit 0.
    Help,
    /// A malformed command line: print the message and [`USAGE`] on stderr
    /// and exit 2.
    Invalid(String),
}

impl UsageError {
    /// The exit status `pmixrun` ends with: 0 for [`UsageError::Help`], 2
    /// otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            UsageError::Help => 0,
            UsageError::Invalid(_) => 2,
        }
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::Help => f.write_str("help requested"),
            UsageError::Invalid(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for UsageError {}

/// Most processes one `pmixrun` starts (local ranks are 16-bit in PMIx).
pub const MAX_NP: u32 = 65_535;

/// The options `pmixrun` knows, by canonical name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opt {
    Np,
    Export,
    Timeout,
    SpawnSlots,
    TagOutput,
    Verbose,
    NoSlurmEnv,
    ReportUri,
    ReportPid,
    StopInInit,
    StopOnExec,
    Help,
    Pset,
    /// Accepted and ignored; takes a value when `true`.
    Ignored(bool),
}

/// Maps a spelling (with its dashes) to an option.
fn lookup(flag: &str) -> Option<Opt> {
    // Single-letter options take exactly one dash.
    match flag {
        "-n" | "-c" => return Some(Opt::Np),
        "-x" => return Some(Opt::Export),
        "-h" => return Some(Opt::Help),
        "-v" => return Some(Opt::Verbose),
        _ => {}
    }
    let name = flag
        .strip_prefix("--")
        .or_else(|| flag.strip_prefix('-'))
        .filter(|n| n.len() > 1)?;
    Some(match name {
        "np" => Opt::Np,
        "timeout" => Opt::Timeout,
        "spawn-slots" => Opt::SpawnSlots,
        "tag-output" => Opt::TagOutput,
        "help" => Opt::Help,
        "verbose" => Opt::Verbose,
        "pset" => Opt::Pset,
        "no-slurm-env" => Opt::NoSlurmEnv,
        "report-uri" => Opt::ReportUri,
        "report-pid" => Opt::ReportPid,
        "stop-in-init" => Opt::StopInInit,
        "stop-on-exec" => Opt::StopOnExec,
        "oversubscribe" | "allow-run-as-root" => Opt::Ignored(false),
        "bind-to" | "map-by" => Opt::Ignored(true),
        _ => return None,
    })
}

fn invalid(msg: impl Into<String>) -> UsageError {
    UsageError::Invalid(msg.into())
}

fn parse_np(flag: &str, v: &str) -> Result<u32, UsageError> {
    let n: u32 = v.parse().map_err(|_| {
        invalid(format!(
            "{flag}: the process count must be a positive integer, not {v:?}"
        ))
    })?;
    if n == 0 {
        return Err(invalid(format!(
            "{flag}: the process count must be at least 1"
        )));
    }
    if n > MAX_NP {
        return Err(invalid(format!(
            "{flag}: at most {MAX_NP} processes, not {n}"
        )));
    }
    Ok(n)
}

fn parse_spawn_slots(flag: &str, v: &str) -> Result<u32, UsageError> {
    match v.parse::<u32>() {
        Ok(n) if n <= MAX_NP => Ok(n),
        _ => Err(invalid(format!(
            "{flag}: the spawn slots must be an integer from 0 to {MAX_NP}, not {v:?}"
        ))),
    }
}

fn parse_timeout(flag: &str, v: &str) -> Result<Duration, UsageError> {
    let bad = || {
        invalid(format!(
            "{flag}: the timeout must be a positive number of seconds, not {v:?}"
        ))
    };
    let secs: f64 = v.parse().map_err(|_| bad())?;
    if !secs.is_finite() || secs <= 0.0 {
        return Err(bad());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| bad())
}

fn parse_export(v: &str) -> Result<Export, UsageError> {
    let (name, value) = match v.split_once('=') {
        Some((n, val)) => (n, Some(val)),
        None => (v, None),
    };
    if name.is_empty() || name.contains('\0') || value.is_some_and(|v| v.contains('\0')) {
        return Err(invalid(format!("-x: not a variable name: {v:?}")));
    }
    Ok(match value {
        Some(val) => Export::Set(name.to_owned(), val.to_owned()),
        None => Export::Inherit(name.to_owned()),
    })
}

/// `all` (empty) or a comma-separated list of ranks.
fn parse_ranks(flag: &str, v: &str) -> Result<Vec<u32>, UsageError> {
    if v == "all" {
        return Ok(Vec::new());
    }
    v.split(',')
        .map(|r| {
            r.trim()
                .parse()
                .map_err(|_| invalid(format!("{flag}: not a rank list: {v:?}")))
        })
        .collect()
}

/// Parses `pmixrun`'s arguments (`argv[1..]`).
///
/// # Errors
/// [`UsageError::Help`] for `-h` / `--help` (wherever it appears before the
/// program); [`UsageError::Invalid`] for an unknown option, an option
/// missing its value, a missing, zero, too large or non-numeric count, a
/// bad timeout or `-x` argument, or a missing program.
pub fn parse_args(args: &[String]) -> Result<Options, UsageError> {
    let mut np: Option<u32> = None;
    let mut timeout = None;
    let mut tag_output = false;
    let mut verbose = false;
    let mut slurm_env = true;
    let mut exports = Vec::new();
    let mut psets = Vec::new();
    let mut spawn_slots = crate::spawn::DEFAULT_SPAWN_SLOTS;
    let (mut report_uri, mut report_pid) = (None, None);
    let mut stop_in_init = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") || lookup(f).is_some() => (f, Some(v)),
            _ => (arg.as_str(), None),
        };
        let opt = lookup(flag).ok_or_else(|| invalid(format!("unknown option {arg:?}")))?;
        i += 1;
        let takes_value = matches!(
            opt,
            Opt::Np
                | Opt::Export
                | Opt::Timeout
                | Opt::Pset
                | Opt::SpawnSlots
                | Opt::ReportUri
                | Opt::ReportPid
                | Opt::StopInInit
                | Opt::Ignored(true)
        );
        let value = if takes_value {
            match inline {
                Some(v) => v,
                None => {
                    let v = args
                        .get(i)
                        .ok_or_else(|| invalid(format!("{flag} needs a value")))?;
                    i += 1;
                    v.as_str()
                }
            }
        } else {
            if inline.is_some() {
                return Err(invalid(format!("{flag} takes no value")));
            }
            ""
        };
        match opt {
            Opt::Np => np = Some(parse_np(flag, value)?),
            Opt::Export => exports.push(parse_export(value)?),
            Opt::Timeout => timeout = Some(parse_timeout(flag, value)?),
            Opt::SpawnSlots => spawn_slots = parse_spawn_slots(flag, value)?,
            Opt::TagOutput => tag_output = true,
            Opt::Verbose => verbose = true,
            Opt::NoSlurmEnv => slurm_env = false,
            Opt::ReportUri => report_uri = Some(value.to_owned()),
            Opt::ReportPid => report_pid = Some(value.to_owned()),
            Opt::StopInInit => stop_in_init = Some(parse_ranks(flag, value)?),
            Opt::StopOnExec => {
                return Err(invalid(
                    "--stop-on-exec: PMIX_ERR_NOT_SUPPORTED: stopping a process at exec \
                     needs ptrace, which pmixrun does not do; use --stop-in-init",
                ))
            }
            Opt::Help => return Err(UsageError::Help),
            Opt::Pset => psets.push(crate::pset_arg::parse(value).map_err(|e| invalid(e.0))?),
            Opt::Ignored(_) => {}
        }
    }
    let program = args
        .get(i)
        .ok_or_else(|| invalid("no program to run"))?
        .clone();
    let np = np.ok_or_else(|| invalid("the process count (-n N) is required"))?;
    Ok(Options {
        np,
        timeout,
        tag_output,
        verbose,
        exports,
        psets,
        spawn_slots,
        slurm_env,
        report_uri,
        report_pid,
        stop_in_init,
        program,
        args: args[i + 1..].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Options, UsageError> {
        let v: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_args(&v)
    }

    fn invalid_msg(line: &str) -> String {
        match parse(line) {
            Err(UsageError::Invalid(m)) => m,
            other => panic!("{line:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn minimal() {
        let o = parse("-n 3 /bin/echo hi").unwrap();
        assert_eq!(o.np, 3);
        assert_eq!(o.program, "/bin/echo");
        assert_eq!(o.args, ["hi"]);
        assert_eq!(o.timeout, None);
        assert!(!o.tag_output);
        assert!(!o.verbose);
        assert!(o.exports.is_empty());
    }

    #[test]
    fn every_count_spelling() {
        for s in ["-n 4", "-np 4", "--np 4", "-c 4", "--np=4", "-np=4", "-n=4"] {
            let o = parse(&format!("{s} prog")).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(o.np, 4, "{s}");
            assert_eq!(o.program, "prog");
        }
        // The last count wins.
        assert_eq!(parse("-n 2 -np 5 prog").unwrap().np, 5);
    }

    #[test]
    fn bad_counts() {
        assert!(invalid_msg("-n x prog").contains("positive integer"));
        assert!(invalid_msg("-n 0 prog").contains("at least 1"));
        assert!(invalid_msg("-n -3 prog").contains("positive integer"));
        assert!(invalid_msg("-n 1.5 prog").contains("positive integer"));
        assert!(invalid_msg("-n 100000 prog").contains("at most"));
        assert!(invalid_msg("prog").contains("required"));
        assert!(invalid_msg("-n").contains("needs a value"));
    }

    #[test]
    fn missing_program() {
        assert!(invalid_msg("").contains("no program"));
        assert!(invalid_msg("-n 2").contains("no program"));
        assert!(invalid_msg("-n 2 --").contains("no program"));
    }

    #[test]
    fn unknown_options() {
        assert!(invalid_msg("--bogus prog").contains("unknown option"));
        assert!(invalid_msg("-n 2 --bogus prog").contains("\"--bogus\""));
        assert!(invalid_msg("-n 2 -q prog").contains("unknown option"));
        assert!(invalid_msg("-n 2 --tag-output=yes prog").contains("takes no value"));
    }

    #[test]
    fn help() {
        assert_eq!(parse("-h"), Err(UsageError::Help));
        assert_eq!(parse("--help"), Err(UsageError::Help));
        assert_eq!(parse("-n 2 --help prog"), Err(UsageError::Help));
        assert_eq!(UsageError::Help.exit_code(), 0);
        assert_eq!(UsageError::Invalid("x".into()).exit_code(), 2);
        // After the program, --help is the program's.
        assert_eq!(parse("-n 1 prog --help").unwrap().args, ["--help"]);
    }

    #[test]
    fn program_arguments_are_untouched() {
        let o = parse("-n 2 prog -n 7 --timeout x -x A").unwrap();
        assert_eq!(o.np, 2);
        assert_eq!(o.args, ["-n", "7", "--timeout", "x", "-x", "A"]);
        let o = parse("-n 2 -- -prog -a").unwrap();
        assert_eq!(o.program, "-prog");
        assert_eq!(o.args, ["-a"]);
    }

    #[test]
    fn exports() {
        let o = parse("-x FOO=bar -x HOME -x E= -n 1 prog").unwrap();
        assert_eq!(
            o.exports,
            [
                Export::Set("FOO".into(), "bar".into()),
                Export::Inherit("HOME".into()),
                Export::Set("E".into(), String::new()),
            ]
        );
        let o = parse("-x A=b=c -n 1 prog").unwrap();
        assert_eq!(o.exports, [Export::Set("A".into(), "b=c".into())]);
        assert!(invalid_msg("-x =v -n 1 prog").contains("variable name"));
        assert!(invalid_msg("-n 1 -x").contains("needs a value"));
    }

    #[test]
    fn timeouts() {
        let o = parse("--timeout 0.5 -n 1 prog").unwrap();
        assert_eq!(o.timeout, Some(Duration::from_millis(500)));
        let o = parse("-timeout=3 -n 1 prog").unwrap();
        assert_eq!(o.timeout, Some(Duration::from_secs(3)));
        for bad in ["0", "-1", "abc", "inf", "NaN", "1e300"] {
            assert!(
                invalid_msg(&format!("--timeout {bad} -n 1 prog")).contains("timeout"),
                "{bad}"
            );
        }
    }

    #[test]
    fn no_op_options() {
        let o = parse(
            "--oversubscribe --allow-run-as-root --bind-to core --map-by slot -bind-to=none -n 2 --tag-output prog",
        )
        .unwrap();
        assert_eq!(o.np, 2);
        assert!(o.tag_output);
        assert_eq!(o.program, "prog");
        assert!(o.args.is_empty());
        assert!(invalid_msg("-n 1 --bind-to").contains("needs a value"));
        assert!(parse("-v -n 1 prog").unwrap().verbose);
        assert!(parse("--verbose -n 1 prog").unwrap().verbose);
        assert!(parse("-n 1 prog").unwrap().slurm_env);
        assert!(!parse("--no-slurm-env -n 1 prog").unwrap().slurm_env);
    }

    #[test]
    fn spawn_slots() {
        assert_eq!(parse("-n 1 prog").unwrap().spawn_slots, 64);
        assert_eq!(parse("--spawn-slots 3 -n 1 prog").unwrap().spawn_slots, 3);
        assert_eq!(parse("--spawn-slots=0 -n 1 prog").unwrap().spawn_slots, 0);
        assert!(invalid_msg("--spawn-slots x -n 1 prog").contains("spawn slots"));
        assert!(invalid_msg("--spawn-slots 70000 -n 1 prog").contains("spawn slots"));
    }

    #[test]
    fn psets() {
        let o = parse("--pset even:0,2 --pset=all:all -n 3 prog").unwrap();
        assert_eq!(o.psets.len(), 2);
        assert_eq!(o.psets[0].name, "even");
        assert_eq!(o.psets[1].ranks, None);
        assert!(invalid_msg("--pset bad -n 1 prog").contains("NAME:RANKS"));
    }

    #[test]
    fn a_lone_dash_is_the_program() {
        let o = parse("-n 1 - a").unwrap();
        assert_eq!(o.program, "-");
        assert_eq!(o.args, ["a"]);
    }

    #[test]
    fn tool_and_debugger_options() {
        let o = parse("--report-uri u.txt --report-pid - --stop-in-init 0,2 -n 3 prog").unwrap();
        assert_eq!(o.report_uri.as_deref(), Some("u.txt"));
        assert_eq!(o.report_pid.as_deref(), Some("-"));
        assert_eq!(o.stop_in_init, Some(vec![0, 2]));
        assert_eq!(
            parse("--stop-in-init all -n 1 p").unwrap().stop_in_init,
            Some(vec![])
        );
        assert_eq!(parse("-n 1 p").unwrap().stop_in_init, None);
        assert!(invalid_msg("--stop-in-init x -n 1 p").contains("not a rank list"));
        assert!(invalid_msg("--stop-on-exec -n 1 p").contains("PMIX_ERR_NOT_SUPPORTED"));
    }
}
