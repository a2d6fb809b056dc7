//! The failure scenarios of `groupclient`: a member killed before or
//! after construct, a construct that times out, the leader killed, and an
//! optional construct completing with who arrived.

use super::*;

pub(super) fn kill_scenario(c: &Client) {
    let me = c.proc().clone();
    if me.rank.0 == 3 {
        std::thread::sleep(Duration::from_millis(500));
        println!("dying {}", now_ms());
        let pid = std::process::id().to_string();
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid])
            .status();
        std::thread::sleep(Duration::from_secs(30));
        fail("still alive".into());
    }
    let heard = Arc::new(Mutex::new(Vec::<u32>::new()));
    let h2 = Arc::clone(&heard);
    c.register_event_handler(&[Status::GROUP_INVITE_FAILED], &[], move |e, done| {
        if let Some(Value::Proc(p)) =
            pmix_core::info::find(e.info, attrs::EVENT_AFFECTED_PROC).map(|i| i.value.clone())
        {
            h2.lock().unwrap().push(p.rank.0);
        }
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    match c.group_construct("k", &[wild(&me.nspace)], &[timeout(20)]) {
        Err(e) => println!("failed {} {}", e.status().0, now_ms()),
        Ok(x) => fail(format!("construct succeeded without rank 3: {x:?}")),
    }
    let end = Instant::now() + Duration::from_secs(5);
    while heard.lock().unwrap().is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(2));
    }
    let got = heard.lock().unwrap().clone();
    check(got == vec![3], || {
        format!("PMIX_GROUP_INVITE_FAILED about {got:?}")
    });
    println!("ok invite failed");
}

pub(super) fn member_died(c: &Client) {
    let me = c.proc().clone();
    let all = [wild(&me.nspace)];
    let heard = Arc::new(Mutex::new(Vec::<(Proc, String)>::new()));
    let h2 = Arc::clone(&heard);
    c.register_event_handler(&[Status::GROUP_MEMBER_FAILED], &[], move |e, done| {
        let who =
            pmix_core::info::find(e.info, attrs::EVENT_AFFECTED_PROC).map(|i| i.value.clone());
        let id = pmix_core::info::find(e.info, attrs::GROUP_ID)
            .and_then(|i| i.value.as_str().ok().map(str::to_owned))
            .unwrap_or_default();
        if let Some(Value::Proc(p)) = who {
            println!("member failed {} {}", p.rank.0, now_ms());
            h2.lock().unwrap().push((p, id));
        }
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.group_construct(
        "t",
        &all,
        &[flag(attrs::GROUP_NOTIFY_TERMINATION), timeout(20)],
    )
    .unwrap_or_else(|e| fail(format!("construct t: {e}")));
    c.group_construct("u", &all, &[timeout(20)])
        .unwrap_or_else(|e| fail(format!("construct u: {e}")));
    if me.rank.0 == 3 {
        std::thread::sleep(Duration::from_millis(300));
        println!("dying {}", now_ms());
        let pid = std::process::id().to_string();
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid])
            .status();
        std::thread::sleep(Duration::from_secs(30));
        fail("still alive".into());
    }
    let end = Instant::now() + Duration::from_secs(10);
    while heard.lock().unwrap().is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(2));
    }
    let got = heard.lock().unwrap().clone();
    check(got == vec![(p(&me.nspace, 3), "t".to_owned())], || {
        format!("heard {got:?}")
    });
    c.group_destruct("t", &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("destruct t with a dead member: {e}")));
    println!("ok destruct with notify termination");
    want_err(
        c.group_destruct("u", &[timeout(10)]),
        Status::ERR_LOST_CONNECTION,
        "destruct without notify termination",
    );
    // nobody finalizes before the others tried (a finalized member would
    // be named instead of the dead one)
    let live: Vec<Proc> = (0..3).map(|i| p(&me.nspace, i)).collect();
    c.fence(&live, &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("fence of the survivors: {e}")));
}

pub(super) fn timeout_scenario(c: &Client) {
    let me = c.proc().clone();
    let all = [wild(&me.nspace)];
    let t0 = Instant::now();
    if me.rank.0 == 2 {
        std::thread::sleep(Duration::from_millis(2500));
    }
    let r = c.group_construct("late", &all, &[timeout(1)]);
    let took = t0.elapsed();
    want_err(r, Status::ERR_TIMEOUT, "timed out");
    if me.rank.0 == 2 {
        check(took < Duration::from_millis(2500 + 500), || {
            format!("the late arrival waited: {took:?}")
        });
    } else {
        check(
            took >= Duration::from_millis(900) && took < Duration::from_secs(2),
            || format!("the timeout came after {took:?}"),
        );
    }
    // nothing of the timed-out construct is left: the id works
    c.group_construct("late", &all, &[timeout(20)])
        .unwrap_or_else(|e| fail(format!("construct after the timeout: {e}")));
    c.group_destruct("late", &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("destruct: {e}")));
    println!("ok next construct");
}

pub(super) fn kill_leader(c: &Client) {
    let me = c.proc().clone();
    let all = [wild(&me.nspace)];
    match me.rank.0 {
        0 => {
            c.group_construct_nb(
                "led",
                &all,
                &[flag(attrs::GROUP_LEADER), timeout(20)],
                |_| {},
            );
            std::thread::sleep(Duration::from_millis(300));
            println!("dying {}", now_ms());
            let pid = std::process::id().to_string();
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid])
                .status();
            std::thread::sleep(Duration::from_secs(30));
            fail("still alive".into());
        }
        3 => std::thread::sleep(Duration::from_millis(1500)),
        _ => {
            let heard = Arc::new(Mutex::new(Vec::<u32>::new()));
            let h2 = Arc::clone(&heard);
            c.register_event_handler(&[Status::GROUP_LEADER_FAILED], &[], move |e, done| {
                if let Some(Value::Proc(p)) =
                    pmix_core::info::find(e.info, attrs::EVENT_AFFECTED_PROC)
                        .map(|i| i.value.clone())
                {
                    h2.lock().unwrap().push(p.rank.0);
                }
                done.done(Status::SUCCESS, vec![]);
            })
            .unwrap_or_else(|e| fail(format!("register: {e}")));
            match c.group_construct("led", &all, &[timeout(20)]) {
                Err(e) => println!("failed {} {}", e.status().0, now_ms()),
                Ok(x) => fail(format!("construct succeeded without its leader: {x:?}")),
            }
            let end = Instant::now() + Duration::from_secs(5);
            while heard.lock().unwrap().is_empty() && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(2));
            }
            let got = heard.lock().unwrap().clone();
            check(got == vec![0], || {
                format!("PMIX_GROUP_LEADER_FAILED about {got:?}")
            });
            println!("ok leader failed");
        }
    }
}

pub(super) fn optional(c: &Client) {
    let me = c.proc().clone();
    if me.rank.0 == 3 {
        // leave without finalize: the others see it gone
        println!("ok leaving");
        std::process::exit(0);
    }
    let update = Arc::new(Mutex::new(None::<Vec<Proc>>));
    let u2 = Arc::clone(&update);
    c.register_event_handler(&[Status::GROUP_MEMBERSHIP_UPDATE], &[], move |e, done| {
        if let Some(Value::DataArray(a)) =
            pmix_core::info::find(e.info, attrs::GROUP_MEMBERSHIP).map(|i| i.value.clone())
        {
            *u2.lock().unwrap() = a.procs().ok().map(|v| v.into_iter().cloned().collect());
        }
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    std::thread::sleep(Duration::from_millis(500));
    let g = c
        .group_construct(
            "opt",
            &[wild(&me.nspace)],
            &[flag(attrs::GROUP_OPTIONAL), timeout(20)],
        )
        .unwrap_or_else(|e| fail(format!("optional construct: {e}")));
    check(g.status == Status::ERR_PARTIAL_SUCCESS, || {
        format!("status {}", g.status)
    });
    let want: Vec<Proc> = (0..3).map(|r| p(&me.nspace, r)).collect();
    check(membership(&g) == want, || {
        format!("members {:?}", membership(&g))
    });
    let end = Instant::now() + Duration::from_secs(5);
    while update.lock().unwrap().is_none() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(2));
    }
    let got = update.lock().unwrap().clone();
    check(got.as_ref() == Some(&want), || {
        format!("membership update {got:?}")
    });
    println!("ok membership update");
    c.group_destruct("opt", &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("destruct: {e}")));
    println!("ok optional");
}
