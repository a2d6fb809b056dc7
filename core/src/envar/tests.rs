use super::*;
use crate::Status;

fn ev(name: &str, value: &str, sep: u8) -> Envar {
    Envar {
        envar: name.into(),
        value: value.into(),
        separator: sep,
    }
}

fn info(key: &str, e: Envar) -> Info {
    Info::new(key, Value::Envar(e)).unwrap()
}

fn unset(name: &str) -> Info {
    Info::new(attrs::UNSET_ENVAR, name).unwrap()
}

/// A base environment of fixed pairs.
fn base(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |k| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    }
}

const BASE: &[(&str, &str)] = &[("PATH", "/usr/bin:/bin"), ("KEEP", "old"), ("EMPTY", "")];

fn result(job: &[Info], app: &[Info]) -> EnvEdits {
    EnvEdits::for_app(job, app, base(BASE)).unwrap()
}

fn value(e: &EnvEdits, name: &str) -> Option<String> {
    e.get(name, base(BASE))
}

#[test]
fn set_overwrites_and_creates() {
    let e = result(
        &[
            info(attrs::SET_ENVAR, ev("KEEP", "new", 0)),
            info(attrs::SET_ENVAR, ev("FRESH", "x", 0)),
        ],
        &[],
    );
    assert_eq!(value(&e, "KEEP").as_deref(), Some("new"));
    assert_eq!(value(&e, "FRESH").as_deref(), Some("x"));
    assert_eq!(value(&e, "PATH").as_deref(), Some("/usr/bin:/bin"));
}

#[test]
fn add_never_overwrites() {
    let e = result(
        &[
            info(attrs::ADD_ENVAR, ev("KEEP", "new", 0)),
            info(attrs::ADD_ENVAR, ev("EMPTY", "new", 0)),
            info(attrs::ADD_ENVAR, ev("FRESH", "first", 0)),
            info(attrs::ADD_ENVAR, ev("FRESH", "second", 0)),
        ],
        &[],
    );
    assert_eq!(value(&e, "KEEP").as_deref(), Some("old"));
    // An empty value is a set variable.
    assert_eq!(value(&e, "EMPTY").as_deref(), Some(""));
    assert_eq!(value(&e, "FRESH").as_deref(), Some("first"));
}

#[test]
fn unset_removes_and_is_recorded() {
    let e = result(&[unset("KEEP"), unset("ABSENT")], &[]);
    assert_eq!(value(&e, "KEEP"), None);
    assert_eq!(value(&e, "ABSENT"), None);
    let changes: Vec<_> = e.changes().collect();
    assert_eq!(changes, [("ABSENT", None), ("KEEP", None)]);
    // The name may come in an envar as well.
    let e = result(&[info(attrs::UNSET_ENVAR, ev("KEEP", "", 0))], &[]);
    assert_eq!(value(&e, "KEEP"), None);
}

#[test]
fn prepend_and_append_join_with_the_separator_or_create() {
    let e = result(
        &[
            info(attrs::PREPEND_ENVAR, ev("PATH", "/opt/bin", b':')),
            info(attrs::APPEND_ENVAR, ev("PATH", "/sbin", b':')),
            info(attrs::PREPEND_ENVAR, ev("NEWP", "a", b':')),
            info(attrs::APPEND_ENVAR, ev("NEWA", "z", b';')),
            info(attrs::APPEND_ENVAR, ev("NEWA", "y", b';')),
            info(attrs::APPEND_ENVAR, ev("EMPTY", "e", b':')),
            info(attrs::APPEND_ENVAR, ev("KEEP", "er", 0)),
        ],
        &[],
    );
    assert_eq!(
        value(&e, "PATH").as_deref(),
        Some("/opt/bin:/usr/bin:/bin:/sbin")
    );
    assert_eq!(value(&e, "NEWP").as_deref(), Some("a"));
    assert_eq!(value(&e, "NEWA").as_deref(), Some("z;y"));
    // Empty is treated as missing: no dangling separator.
    assert_eq!(value(&e, "EMPTY").as_deref(), Some("e"));
    // Separator 0: plain concatenation.
    assert_eq!(value(&e, "KEEP").as_deref(), Some("older"));
}

#[test]
fn first_moves_the_value_to_the_front() {
    let e = result(
        &[info(attrs::FIRST_ENVAR, ev("PATH", "/bin", b':'))],
        &[info(attrs::FIRST_ENVAR, ev("NEW", "v", b':'))],
    );
    assert_eq!(value(&e, "PATH").as_deref(), Some("/bin:/usr/bin"));
    assert_eq!(value(&e, "NEW").as_deref(), Some("v"));
}

#[test]
fn job_directives_apply_before_the_apps_each_in_order() {
    let job = [
        info(attrs::SET_ENVAR, ev("A", "job", 0)),
        info(attrs::ADD_ENVAR, ev("B", "job", 0)),
        info(attrs::PREPEND_ENVAR, ev("C", "j", b':')),
        unset("D"),
    ];
    let app = [
        // Overwrites the job's SET.
        info(attrs::SET_ENVAR, ev("A", "app", 0)),
        // The job's ADD already set B: no effect.
        info(attrs::ADD_ENVAR, ev("B", "app", 0)),
        // Sees the job's prepend.
        info(attrs::APPEND_ENVAR, ev("C", "a", b':')),
        // The job removed D: ADD creates it.
        info(attrs::ADD_ENVAR, ev("D", "app", 0)),
        // Within one list, order counts: set then unset removes.
        info(attrs::SET_ENVAR, ev("E", "x", 0)),
        unset("E"),
        unset("F"),
        info(attrs::SET_ENVAR, ev("F", "y", 0)),
    ];
    let pairs: &'static [(&str, &str)] = &[("D", "base")];
    let e = EnvEdits::for_app(&job, &app, base(pairs)).unwrap();
    let get = |n| e.get(n, base(pairs));
    assert_eq!(get("A").as_deref(), Some("app"));
    assert_eq!(get("B").as_deref(), Some("job"));
    assert_eq!(get("C").as_deref(), Some("j:a"));
    assert_eq!(get("D").as_deref(), Some("app"));
    assert_eq!(get("E"), None);
    assert_eq!(get("F").as_deref(), Some("y"));
    // Swapping the lists changes the outcome: the job's come first.
    let e = EnvEdits::for_app(&app, &job, base(pairs)).unwrap();
    assert_eq!(e.get("A", base(pairs)).as_deref(), Some("job"));
    assert_eq!(e.get("D", base(pairs)), None);
}

#[test]
fn other_infos_are_ignored() {
    let e = result(
        &[
            Info::new(attrs::WDIR, "/tmp").unwrap(),
            Info::flag(attrs::SPAWNED).unwrap(),
        ],
        &[],
    );
    assert!(e.is_empty());
}

#[test]
fn malformed_directives_are_bad_param_and_nothing_applies() {
    let cases = [
        info(attrs::SET_ENVAR, ev("", "v", 0)),
        info(attrs::SET_ENVAR, ev("A=B", "v", 0)),
        info(attrs::SET_ENVAR, ev("A\0", "v", 0)),
        info(attrs::SET_ENVAR, ev("A", "v\0w", 0)),
        info(attrs::APPEND_ENVAR, ev("A", "v", 0xC3)),
        Info::new(attrs::SET_ENVAR, "A=v").unwrap(),
        Info::new(attrs::UNSET_ENVAR, Value::Uint32(3)).unwrap(),
        unset(""),
    ];
    for bad in cases {
        let job = [info(attrs::SET_ENVAR, ev("OK", "1", 0)), bad.clone()];
        let err = EnvEdits::for_app(&job, &[], base(BASE)).unwrap_err();
        assert_eq!(err.status(), Status::ERR_BAD_PARAM, "{bad:?}");
        // In the app's list too.
        let err = EnvEdits::for_app(&[], &job, base(BASE)).unwrap_err();
        assert_eq!(err.status(), Status::ERR_BAD_PARAM, "{bad:?}");
    }
}

#[test]
fn to_info_round_trips() {
    let ds = [
        EnvDirective::Set(ev("A", "1", 0)),
        EnvDirective::Add(ev("A", "1", 0)),
        EnvDirective::Prepend(ev("P", "x", b':')),
        EnvDirective::Append(ev("P", "y", b':')),
        EnvDirective::First(ev("P", "z", b':')),
        EnvDirective::Unset("A".into()),
    ];
    for d in ds {
        let i = d.to_info().unwrap();
        assert_eq!(EnvDirective::from_info(&i).unwrap().unwrap(), d);
    }
    assert!(EnvDirective::Set(ev("", "1", 0)).to_info().is_err());
}
