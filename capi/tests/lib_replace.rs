//! `capi/install-lib.sh` (what `capi/make-lib.sh` ends with) replaces
//! `libpmix.so.2` under a process that has it mapped without harming it:
//! the new file is renamed over the name, the old inode stays with the
//! process. The control shows the test can fail: replacing the file in
//! place, as `cp -f` did, kills the process (SIGBUS past the new end of
//! the file it maps).

#[macro_use]
mod common;

use common::{built_lib, expect_ok, have, run, workdir, Ran};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

fn install_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("install-lib.sh")
}

fn compile(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/replace_lib.c");
    let exe = dir.join("replace_lib");
    let mut cmd = Command::new("cc");
    cmd.args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-g"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-ldl");
    let ran = run(cmd, dir, "cc-replace_lib", Duration::from_secs(60));
    expect_ok(&ran, "compiling replace_lib.c");
    exe
}

fn install(src: &Path, lib: &Path, dir: &Path, tag: &str) {
    let mut cmd = Command::new(install_script());
    cmd.arg(src).arg(lib);
    let ran = run(cmd, dir, tag, Duration::from_secs(30));
    expect_ok(&ran, tag);
}

/// Starts `replace_lib` on `lib` and waits until it mapped the library.
fn start(exe: &Path, lib: &Path, dir: &Path, tag: &str) -> Child {
    let out = dir.join(format!("{tag}.stdout"));
    let child = Command::new(exe)
        .arg(lib)
        .stdout(fs::File::create(&out).unwrap())
        .stderr(fs::File::create(dir.join(format!("{tag}.stderr"))).unwrap())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !fs::read_to_string(&out)
        .unwrap_or_default()
        .contains("loaded")
    {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{tag}: never loaded"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

/// Lets the process call into its library and waits for its end.
fn finish(mut child: Child, lib: &Path, dir: &Path, tag: &str) -> Ran {
    fs::write(lib.join("go"), b"").unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{tag}: still running 30 s after go");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    use std::os::unix::process::ExitStatusExt;
    Ran {
        ok: status.success(),
        code: status.code(),
        signal: status.signal(),
        stdout: fs::read_to_string(dir.join(format!("{tag}.stdout"))).unwrap_or_default(),
        stderr: fs::read_to_string(dir.join(format!("{tag}.stderr"))).unwrap_or_default(),
    }
}

#[test]
fn installing_over_a_loaded_library_leaves_its_users_running() {
    require!(have("cc").then_some(()), "cc");
    let dir = workdir("lib-replace");
    let exe = compile(&dir);
    // A much smaller "library": the old mapping's pages would lie past
    // the end of a file overwritten in place.
    let small = dir.join("small.so");
    fs::write(&small, vec![0u8; 4096]).unwrap();

    let lib = dir.join("atomic");
    install(&built_lib(), &lib, &dir, "install-1");
    let child = start(&exe, &lib, &dir, "atomic");
    install(&small, &lib, &dir, "install-2");
    let ran = finish(child, &lib, &dir, "atomic");
    expect_ok(&ran, "the process whose library was reinstalled");
    assert!(
        ran.stdout.contains("alive LOST_CONNECTION"),
        "{}",
        ran.stdout
    );
    assert_eq!(fs::read(lib.join("libpmix.so.2")).unwrap().len(), 4096);
    assert_eq!(
        fs::read_link(lib.join("libpmix.so")).unwrap(),
        Path::new("libpmix.so.2")
    );
    let stray: Vec<_> = fs::read_dir(&lib)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "temporary files left: {stray:?}");

    // Control: the in-place copy the script used to make.
    let lib = dir.join("in-place");
    install(&built_lib(), &lib, &dir, "install-3");
    let child = start(&exe, &lib, &dir, "in-place");
    fs::copy(&small, lib.join("libpmix.so.2")).unwrap();
    let ran = finish(child, &lib, &dir, "in-place");
    assert!(
        !ran.ok && ran.signal.is_some(),
        "overwriting a mapped library in place should have killed its user \
         (exit {:?}); the test would prove nothing",
        ran.code
    );
}
