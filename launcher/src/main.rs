//! `pmixrun` command-line entry point.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "pmixrun: not implemented yet. It will run `pmixrun -n N prog args...`: \
         a job of N processes wired up through pmix-rs (see the wire-up issue)."
    );
    ExitCode::from(2)
}
