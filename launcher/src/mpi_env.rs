//! What an MPI library needs, beyond the PMIx server's variables, to take
//! pmixrun for its launcher (a direct launch, as under `srun`), and the
//! note pmixrun prints when an MPI program's ranks still ran alone.
//!
//! Open MPI 5 needs nothing more than the `PMIX_*` variables of
//! `setup_fork`. Open MPI 4.1 does not look at them to decide how it was
//! started: its `schizo` framework asks each component whether it knows
//! the environment, and only the Slurm, Flux and JSM (LSF) components can
//! answer "direct launch"; the last resort, the `orte` component, declares
//! every process that `mpirun` did not start a singleton (an MPI job of one
//! rank). There is no launcher-neutral variable. pmixrun therefore presents
//! a Slurm job step — the path Open MPI 4.1 runs under `srun`: `SLURM_JOBID`
//! (pmixrun's pid), `SLURM_NODELIST` (this host) and `SLURM_STEP_ID` (0),
//! each set only where pmixrun's own environment lacks it (inside a real
//! Slurm job, its values stay). Open MPI then also leaves binding to the
//! launcher (`hwloc_base_binding_policy=none`), which pmixrun does not bind
//! either. `--no-slurm-env` turns this off.

use std::path::{Path, PathBuf};

/// The variables of a Slurm job step pmixrun sets for its ranks:
/// `(name, value)` for each of `SLURM_JOBID`, `SLURM_NODELIST`,
/// `SLURM_STEP_ID` that `current` (pmixrun's environment) lacks.
pub(crate) fn slurm_step_env(
    jobid: u32,
    hostname: &str,
    current: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    // A real Slurm job names itself SLURM_JOB_ID too; its id is the one.
    let in_slurm_job = current("SLURM_JOBID").is_some() || current("SLURM_JOB_ID").is_some();
    let mut out = Vec::new();
    if !in_slurm_job {
        out.push(("SLURM_JOBID".to_owned(), jobid.to_string()));
    }
    if current("SLURM_NODELIST").is_none() {
        out.push(("SLURM_NODELIST".to_owned(), hostname.to_owned()));
    }
    if current("SLURM_STEP_ID").is_none() {
        out.push(("SLURM_STEP_ID".to_owned(), "0".to_owned()));
    }
    out
}

/// `program` as `Command` finds it: itself when it has a `/`, else the
/// first executable file of that name in `PATH`.
fn resolve(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Whether the file at `path` names an MPI library (`libmpi.so…`, Open
/// MPI's and MPICH's) among the libraries it needs: an MPI program.
fn links_libmpi(path: &Path) -> bool {
    // The dynamic section's strings are in the first few MiB of any
    // program; a program bigger than that is read in part.
    const MAX: u64 = 64 << 20;
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut bytes = Vec::new();
    use std::io::Read;
    if f.take(MAX).read_to_end(&mut bytes).is_err() || !bytes.starts_with(b"\x7fELF") {
        return false;
    }
    bytes.windows(10).any(|w| w == b"libmpi.so.")
}

/// The note for a job in which no rank connected to the PMIx server
/// although `program` is an MPI program: each rank ran as a singleton.
/// `None` when a rank connected, when the job has one rank, or when the
/// program is not an MPI program (a script, a plain program).
pub(crate) fn singleton_note(program: &str, np: u32, any_connected: bool) -> Option<String> {
    if any_connected || np < 2 {
        return None;
    }
    let path = resolve(program)?;
    links_libmpi(&path).then(|| {
        format!(
            "pmixrun: note: {program} is an MPI program, but none of its {np} ranks \
             connected to pmixrun's PMIx server: each ran alone, as an MPI job of one \
             rank (a singleton). Its MPI library did not take pmixrun for its launcher: \
             with Open MPI 4.1 check that SLURM_JOBID, SLURM_NODELIST and SLURM_STEP_ID \
             reach the ranks (not --no-slurm-env) and that OMPI_MCA_ess is not set; an \
             MPI library without PMIx support (e.g. MPICH built for PMI-1/2) cannot use \
             pmixrun."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_job_step_outside_slurm() {
        let got = slurm_step_env(42, "node7", env_of(&[]));
        assert_eq!(
            got,
            [
                ("SLURM_JOBID".to_owned(), "42".to_owned()),
                ("SLURM_NODELIST".to_owned(), "node7".to_owned()),
                ("SLURM_STEP_ID".to_owned(), "0".to_owned()),
            ]
        );
    }

    #[test]
    fn a_real_slurm_jobs_values_stay() {
        let inside = [("SLURM_JOB_ID", "9"), ("SLURM_NODELIST", "n[1-4]")];
        let got = slurm_step_env(42, "node7", env_of(&inside));
        assert_eq!(got, [("SLURM_STEP_ID".to_owned(), "0".to_owned())]);
        let step = [
            ("SLURM_JOBID", "9"),
            ("SLURM_NODELIST", "n1"),
            ("SLURM_STEP_ID", "3"),
        ];
        assert!(slurm_step_env(42, "node7", env_of(&step)).is_empty());
    }

    #[test]
    fn the_note_needs_an_mpi_program_whose_ranks_never_connected() {
        let dir = tempfile::tempdir().unwrap();
        let mpi = dir.path().join("mpi_prog");
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.extend_from_slice(b"\0\0libc.so.6\0libmpi.so.40\0");
        std::fs::write(&mpi, &elf).unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"\x7fELF\x02\x01\x01\0libc.so.6\0").unwrap();
        let script = dir.path().join("script");
        std::fs::write(&script, b"#!/bin/sh\n# libmpi.so.40\n").unwrap();
        let mpi = mpi.to_str().unwrap();
        let note = singleton_note(mpi, 4, false).unwrap();
        assert!(
            note.contains("singleton") && note.contains("4 ranks"),
            "{note}"
        );
        assert_eq!(singleton_note(mpi, 4, true), None);
        assert_eq!(singleton_note(mpi, 1, false), None);
        assert_eq!(singleton_note(plain.to_str().unwrap(), 4, false), None);
        assert_eq!(singleton_note(script.to_str().unwrap(), 4, false), None);
        assert_eq!(singleton_note("/nonexistent/prog", 4, false), None);
    }
}
