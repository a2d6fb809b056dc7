use super::*;
use pmix_core::{App, Envar};

fn req(job_info: Vec<Info>, apps: Vec<App>) -> SpawnRequest {
    SpawnRequest {
        requestor: Proc::new("parent", Rank(3)).unwrap(),
        job_info,
        apps,
        done: Box::new(|_| {}),
    }
}

fn app(cmd: &str, n: i32) -> App {
    App {
        cmd: cmd.into(),
        argv: vec!["a0".into(), "x".into()],
        maxprocs: n,
        ..App::default()
    }
}

fn with_ctx<T>(slots: u32, f: impl FnOnce(&SpawnContext<'_>) -> T) -> T {
    let ns = Nspace::new("child").unwrap();
    let base = EnvEdits::new();
    let ctx = SpawnContext {
        nspace: &ns,
        hostname: "node0",
        dirs: ("/t", "/t/child"),
        base_env: &base,
        slots_left: slots,
        jobs: &[],
    };
    f(&ctx)
}

fn set(name: &str, value: &str) -> Info {
    Info::new(
        attrs::SET_ENVAR,
        Value::Envar(Envar {
            envar: name.into(),
            value: value.into(),
            separator: 0,
        }),
    )
    .unwrap()
}

#[test]
fn ranks_args_parent_and_notify() {
    let r = req(
        vec![Info::flag(attrs::NOTIFY_COMPLETION).unwrap()],
        vec![app("/bin/true", 2), app("/bin/false", 1)],
    );
    let p = with_ctx(8, |c| plan(&r, c)).unwrap();
    assert_eq!(p.size, 3);
    assert!(p.notify);
    let ranks: Vec<_> = p
        .procs
        .iter()
        .map(|x| (x.rank, x.program.as_str()))
        .collect();
    assert_eq!(
        ranks,
        [(0, "/bin/true"), (1, "/bin/true"), (2, "/bin/false")]
    );
    assert_eq!(p.procs[0].argv0.as_deref(), Some("a0"));
    assert_eq!(p.procs[0].args, ["x"]);
    let parent = pmix_core::info::find(&p.infos, attrs::PARENT_ID).unwrap();
    assert_eq!(parent.value, Value::Proc(r.requestor.clone()));
    assert!(pmix_core::info::find(&p.infos, attrs::SPAWNED).is_some());
    // Several apps: numbered per rank, no single app size.
    assert_eq!(
        pmix_core::info::find(&p.infos, attrs::JOB_NUM_APPS).map(|i| &i.value),
        Some(&Value::Uint32(2))
    );
    assert!(pmix_core::info::find(&p.infos, attrs::APP_SIZE).is_none());
    let per_rank: Vec<(u32, Rank)> = p
        .infos
        .iter()
        .filter(|i| i.is(attrs::PROC_DATA))
        .map(|i| {
            let items = i.value.as_info_array().unwrap();
            let get = |k| {
                items
                    .iter()
                    .find(|x| x.is(k))
                    .map(|x| x.value.clone())
                    .unwrap()
            };
            match (get(attrs::APPNUM), get(attrs::APP_RANK)) {
                (Value::Uint32(a), Value::Rank(r)) => (a, r),
                other => panic!("{other:?}"),
            }
        })
        .collect();
    assert_eq!(per_rank, [(0, Rank(0)), (0, Rank(1)), (1, Rank(0))]);
    // Without the flag: no notification.
    let r = req(vec![], vec![app("/bin/true", 1)]);
    assert!(!with_ctx(8, |c| plan(&r, c)).unwrap().notify);
}

#[test]
fn environment_base_then_app_env_then_job_then_app_directives() {
    let mut a = app("/bin/true", 1);
    a.env = vec!["E=appenv".into(), "F=appenv".into()];
    a.info = vec![set("E", "app")];
    let r = req(
        vec![set("E", "job"), set("F", "job"), set("G", "job")],
        vec![a],
    );
    let ns = Nspace::new("child").unwrap();
    let mut base = EnvEdits::new();
    base.set("G", "x");
    base.set("H", "x");
    let ctx = SpawnContext {
        nspace: &ns,
        hostname: "n",
        dirs: ("/t", "/t/c"),
        base_env: &base,
        slots_left: 1,
        jobs: &[],
    };
    let p = plan(&r, &ctx).unwrap();
    let env: Vec<_> = p.procs[0].env.changes().collect();
    assert_eq!(
        env,
        [
            ("E", Some("app")),
            ("F", Some("job")),
            ("G", Some("job")),
            ("H", Some("x"))
        ]
    );
}

#[test]
fn refusals_carry_their_status() {
    let cases: Vec<(Vec<App>, u32, Status)> = vec![
        (vec![], 8, Status::ERR_BAD_PARAM),
        (vec![app("", 1)], 8, Status::ERR_BAD_PARAM),
        (vec![app("/bin/true", 0)], 8, Status::ERR_BAD_PARAM),
        (vec![app("/bin/true", -1)], 8, Status::ERR_BAD_PARAM),
        (
            vec![app("/bin/true", 2), app("/bin/true", 2)],
            3,
            Status::ERR_JOB_INSUFFICIENT_RESOURCES,
        ),
        (
            vec![app("/bin/true", 1)],
            0,
            Status::ERR_JOB_INSUFFICIENT_RESOURCES,
        ),
        (
            vec![App {
                cwd: "/nonexistent/pmixrs".into(),
                ..app("/bin/true", 1)
            }],
            8,
            Status::ERR_JOB_WDIR_NOT_FOUND,
        ),
        (
            vec![App {
                env: vec!["NOEQUALS".into()],
                ..app("/bin/true", 1)
            }],
            8,
            Status::ERR_BAD_PARAM,
        ),
    ];
    for (apps, slots, want) in cases {
        let r = req(vec![], apps.clone());
        let e = with_ctx(slots, |c| plan(&r, c)).unwrap_err();
        assert_eq!(e.status(), want, "{apps:?}: {e}");
    }
    // A malformed job-level directive.
    let r = req(vec![set("", "v")], vec![app("/bin/true", 1)]);
    let e = with_ctx(8, |c| plan(&r, c)).unwrap_err();
    assert_eq!(e.status(), Status::ERR_BAD_PARAM);
}

#[test]
fn job_end_names_the_job_and_its_status() {
    let ns = Nspace::new("child").unwrap();
    let parent = Proc::new("parent", Rank(0)).unwrap();
    let info = job_end_infos(&ns, &parent, Status::ERR_JOB_NON_ZERO_TERM, 3).unwrap();
    let get = |k| pmix_core::info::find(&info, k).map(|i| i.value.clone());
    assert_eq!(
        get(attrs::EVENT_AFFECTED_PROC),
        Some(Value::Proc(Proc::from_parts(ns.clone(), Rank::WILDCARD)))
    );
    assert_eq!(
        get(attrs::JOB_TERM_STATUS),
        Some(Value::Status(Status::ERR_JOB_NON_ZERO_TERM))
    );
    assert_eq!(get(attrs::EXIT_CODE), Some(Value::Int(3)));
    assert_eq!(get(attrs::EVENT_CUSTOM_RANGE), Some(Value::Proc(parent)));
    for i in &info {
        let a = attrs::lookup(i.key.as_str()).unwrap();
        assert!(a.accepts(&i.value), "{}", i.key.as_str());
    }
}
