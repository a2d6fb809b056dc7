//! `pmix`: the command-line PMIx tool (see `pmix --help`; the
//! `pmix_launcher::pmixcli` module).

use clap::Parser;
use pmix_launcher::pmixcli::{run, Cli};

fn main() {
    let cli = Cli::parse();
    std::process::exit(run(&cli));
}
