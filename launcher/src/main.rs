//! `pmixrun` command-line entry point: parses the arguments and runs the job
//! (see the `pmix_launcher` crate documentation).

use pmix_launcher::{parse_args, run, UsageError, EXIT_USAGE, USAGE};

fn main() {
    let mut args = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => args.push(s),
            Err(a) => {
                eprintln!("pmixrun: argument {a:?} is not valid UTF-8\n{USAGE}");
                std::process::exit(EXIT_USAGE);
            }
        }
    }
    let code = match parse_args(&args) {
        Ok(opts) => run(&opts),
        Err(UsageError::Help) => {
            println!("{USAGE}");
            0
        }
        Err(e) => {
            eprintln!("pmixrun: {e}\n{USAGE}");
            e.exit_code()
        }
    };
    std::process::exit(code);
}
