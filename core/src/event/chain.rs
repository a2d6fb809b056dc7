//! The handler chain: ordering rules at registration, deregistration, and
//! which handlers an event reaches, in dispatch order.
//!
//! Dispatch order: the FIRST handler, then each category (single, multi,
//! default) as `[FIRST_IN_CATEGORY] body… [LAST_IN_CATEGORY]`, then the LAST
//! handler. The chain is a plain value: the client keeps it behind an
//! atomically swapped `Arc` and replaces it on register/deregister, so
//! dispatch reads an immutable snapshot and never takes a lock.

use super::registration::{registration_error, Category, Placement, RegistrationSpec};
use super::EventView;
use crate::{DataRange, Error, Proc, Result, Status};
use std::sync::Arc;

/// A registration id, returned by `register_event_handler` (never
/// `usize::MAX`, which C callers may use as "invalid").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HandlerId(pub u64);

/// One registered handler.
#[derive(Clone, Debug)]
pub struct Entry<H> {
    /// Its id.
    pub id: HandlerId,
    /// What it registered for.
    pub spec: Arc<RegistrationSpec>,
    /// The caller's handler object (a callback, an index...).
    pub handler: H,
}

#[derive(Clone, Debug)]
struct CatList<H> {
    first: Option<Entry<H>>,
    body: Vec<Entry<H>>,
    last: Option<Entry<H>>,
}

impl<H> Default for CatList<H> {
    fn default() -> Self {
        CatList {
            first: None,
            body: Vec::new(),
            last: None,
        }
    }
}

/// Where a handler sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    First,
    Last,
    CatFirst(usize),
    CatLast(usize),
    Body(usize, usize),
}

/// The ordered set of a process's event handlers.
///
/// # Examples
/// ```
/// use pmix_core::event::{Chain, RegistrationSpec};
/// use pmix_core::{attrs, Info, Status};
/// let mut chain = Chain::new();
/// let a = RegistrationSpec::parse(&[Status::ERR_TIMEOUT],
///     &[Info::new(attrs::EVENT_HDLR_NAME, "a").unwrap()]).unwrap();
/// let b = RegistrationSpec::parse(&[Status::ERR_TIMEOUT],
///     &[Info::new(attrs::EVENT_HDLR_NAME, "b").unwrap()]).unwrap();
/// chain.register(a, "handler a").unwrap();
/// chain.register(b, "handler b").unwrap();
/// // default ordering is prepend within the category
/// let order: Vec<_> = chain.iter().map(|e| e.handler).collect();
/// assert_eq!(order, ["handler b", "handler a"]);
/// ```
#[derive(Clone, Debug)]
pub struct Chain<H> {
    first: Option<Entry<H>>,
    cats: [CatList<H>; 3],
    last: Option<Entry<H>>,
    next_id: u64,
}

impl<H> Default for Chain<H> {
    fn default() -> Self {
        Chain {
            first: None,
            cats: Default::default(),
            last: None,
            next_id: 0,
        }
    }
}

impl<H> Chain<H> {
    /// An empty chain.
    pub fn new() -> Self {
        Chain::default()
    }

    /// Every handler, in dispatch order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry<H>> {
        self.first
            .iter()
            .chain(
                self.cats
                    .iter()
                    .flat_map(|c| c.first.iter().chain(c.body.iter()).chain(c.last.iter())),
            )
            .chain(self.last.iter())
    }

    /// Number of handlers.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// `true` when no handler is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The handler with this id.
    pub fn get(&self, id: HandlerId) -> Option<&Entry<H>> {
        self.iter().find(|e| e.id == id)
    }

    fn slot_of(&self, pred: impl Fn(&Entry<H>) -> bool) -> Option<Slot> {
        if self.first.as_ref().is_some_and(&pred) {
            return Some(Slot::First);
        }
        if self.last.as_ref().is_some_and(&pred) {
            return Some(Slot::Last);
        }
        for (c, cat) in self.cats.iter().enumerate() {
            if cat.first.as_ref().is_some_and(&pred) {
                return Some(Slot::CatFirst(c));
            }
            if cat.last.as_ref().is_some_and(&pred) {
                return Some(Slot::CatLast(c));
            }
            if let Some(i) = cat.body.iter().position(&pred) {
                return Some(Slot::Body(c, i));
            }
        }
        None
    }

    fn category_at(&self, slot: Slot) -> Category {
        let e = match slot {
            Slot::First => self.first.as_ref(),
            Slot::Last => self.last.as_ref(),
            Slot::CatFirst(c) => self.cats[c].first.as_ref(),
            Slot::CatLast(c) => self.cats[c].last.as_ref(),
            Slot::Body(c, i) => self.cats[c].body.get(i),
        };
        e.map_or(Category::Default, |e| e.spec.category)
    }

    /// Registers a handler, returning its id.
    ///
    /// Rules (the event RFC): names are unique per process; FIRST and LAST are
    /// one each for the whole chain, FIRST_IN_CATEGORY and LAST_IN_CATEGORY
    /// one each per category; nothing may go before a FIRST(-IN-CATEGORY)
    /// handler or after a LAST(-IN-CATEGORY) one; BEFORE/AFTER name a
    /// handler of the same category. `AFTER` the FIRST handler means the
    /// front of the category, `BEFORE` the LAST handler its end.
    ///
    /// # Errors
    /// `PMIX_ERR_EVENT_REGISTRATION` for any rule broken; the chain is left
    /// unchanged.
    pub fn register(&mut self, spec: RegistrationSpec, handler: H) -> Result<HandlerId> {
        if let Some(name) = &spec.name {
            if self
                .slot_of(|e| e.spec.name.as_deref() == Some(name))
                .is_some()
            {
                return Err(registration_error(format!(
                    "an event handler named {name:?} is already registered"
                )));
            }
        }
        let c = spec.category.index();
        let target = match &spec.placement {
            Placement::Before(n) | Placement::After(n) => {
                let slot = self
                    .slot_of(|e| e.spec.name.as_deref() == Some(n.as_str()))
                    .ok_or_else(|| {
                        registration_error(format!("no event handler named {n:?} to order against"))
                    })?;
                if self.category_at(slot) != spec.category {
                    return Err(registration_error(format!(
                        "event handler {n:?} is of category {:?}, this one of {:?}",
                        self.category_at(slot),
                        spec.category
                    )));
                }
                Some(slot)
            }
            _ => None,
        };
        let id = HandlerId(self.next_id);
        let entry = Entry {
            id,
            spec: Arc::new(spec),
            handler,
        };
        let cat = &mut self.cats[c];
        match (&entry.spec.placement, target) {
            (Placement::First, _) => {
                if let Some(f) = &self.first {
                    return Err(registration_error(format!(
                        "handler {:?} is already FIRST",
                        f.spec.name
                    )));
                }
                self.first = Some(entry);
            }
            (Placement::Last, _) => {
                if let Some(l) = &self.last {
                    return Err(registration_error(format!(
                        "handler {:?} is already LAST",
                        l.spec.name
                    )));
                }
                self.last = Some(entry);
            }
            (Placement::FirstInCategory, _) => {
                if cat.first.is_some() {
                    return Err(registration_error(
                        "this category already has a FIRST_IN_CATEGORY handler",
                    ));
                }
                cat.first = Some(entry);
            }
            (Placement::LastInCategory, _) => {
                if cat.last.is_some() {
                    return Err(registration_error(
                        "this category already has a LAST_IN_CATEGORY handler",
                    ));
                }
                cat.last = Some(entry);
            }
            (Placement::Prepend, _) => cat.body.insert(0, entry),
            (Placement::Append, _) => cat.body.push(entry),
            (Placement::Before(n), Some(slot)) => match slot {
                Slot::First | Slot::CatFirst(_) => {
                    return Err(registration_error(format!(
                        "nothing may go before {n:?}: it is FIRST"
                    )))
                }
                Slot::Last | Slot::CatLast(_) => cat.body.push(entry),
                Slot::Body(_, i) => cat.body.insert(i, entry),
            },
            (Placement::After(n), Some(slot)) => match slot {
                Slot::Last | Slot::CatLast(_) => {
                    return Err(registration_error(format!(
                        "nothing may go after {n:?}: it is LAST"
                    )))
                }
                Slot::First | Slot::CatFirst(_) => cat.body.insert(0, entry),
                Slot::Body(_, i) => cat.body.insert(i + 1, entry),
            },
            (Placement::Before(_) | Placement::After(_), None) => {
                return Err(Error::with_context(
                    Status::ERR_EVENT_REGISTRATION,
                    "internal: relative placement without a target",
                ))
            }
        }
        self.next_id += 1;
        Ok(id)
    }

    /// Removes a handler.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an id that is not registered.
    pub fn deregister(&mut self, id: HandlerId) -> Result<Entry<H>> {
        let slot = self
            .slot_of(|e| e.id == id)
            .ok_or_else(|| Error::bad_param(format!("no event handler with id {}", id.0)))?;
        let removed = match slot {
            Slot::First => self.first.take(),
            Slot::Last => self.last.take(),
            Slot::CatFirst(c) => self.cats[c].first.take(),
            Slot::CatLast(c) => self.cats[c].last.take(),
            Slot::Body(c, i) => Some(self.cats[c].body.remove(i)),
        };
        removed.ok_or_else(|| Error::new(Status::ERR_BAD_PARAM))
    }

    /// The handlers `ev` reaches in the process `me`, in dispatch order.
    pub fn matching<'a>(&'a self, me: &Proc, ev: &EventView<'_>) -> Vec<&'a Entry<H>> {
        self.iter().filter(|e| accepts(&e.spec, me, ev)).collect()
    }
}

/// Whether a registration accepts an event (codes, NON_DEFAULT, job or
/// environment level, source range, affected procs).
pub fn accepts(spec: &RegistrationSpec, me: &Proc, ev: &EventView<'_>) -> bool {
    let codes_ok = match spec.category {
        Category::Default => !ev.non_default(),
        _ => spec.codes.iter().any(|c| same_event(*c, ev.status)),
    };
    if !codes_ok {
        return false;
    }
    let f = &spec.filters;
    let job = ev.is_job_level();
    if f.job_level && !f.enviro_level && !job {
        return false;
    }
    if f.enviro_level && !f.job_level && job {
        return false;
    }
    if let Some(r) = f.range {
        if !source_in_range(r, &f.custom_range, me, ev) {
            return false;
        }
    }
    if !f.affected.is_empty() {
        let affected = ev.affected();
        let hit = affected
            .iter()
            .any(|a| f.affected.iter().any(|w| w.matches(a) || a.matches(w)));
        if !hit {
            return false;
        }
    }
    true
}

/// Whether a handler registered for `code` takes an event `status`: the
/// same code, or the two names of a lost server connection — the standard's
/// `PMIX_ERR_LOST_CONNECTION` (-61), which the client raises, and the
/// event design's `PMIX_ERR_LOST_SERVER_CONNECTION` (-101, the deprecated
/// `PMIX_ERR_LOST_CONNECTION_TO_SERVER`).
fn same_event(code: Status, status: Status) -> bool {
    let lost =
        |s: Status| s == Status::ERR_LOST_CONNECTION || s == Status::ERR_LOST_SERVER_CONNECTION;
    code == status || (lost(code) && lost(status))
}

fn source_in_range(r: DataRange, custom: &[Proc], me: &Proc, ev: &EventView<'_>) -> bool {
    use super::Origin;
    match r {
        DataRange::PROC_LOCAL => ev.origin == Origin::ThisProcess,
        DataRange::LOCAL => matches!(ev.origin, Origin::ThisProcess | Origin::ThisNode),
        DataRange::NAMESPACE => ev.source.is_some_and(|s| s.nspace == me.nspace),
        DataRange::SESSION | DataRange::GLOBAL => true,
        DataRange::RM => ev.origin == Origin::Host,
        DataRange::CUSTOM => ev
            .source
            .is_some_and(|s| custom.iter().any(|c| c.matches(s))),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Origin;
    use crate::{attrs, Info};

    fn spec(codes: &[Status], infos: &[(&str, crate::Value)]) -> RegistrationSpec {
        let infos: Vec<Info> = infos
            .iter()
            .map(|(k, v)| Info::new(k, v.clone()).unwrap())
            .collect();
        RegistrationSpec::parse(codes, &infos).unwrap()
    }

    fn named(codes: &[Status], name: &str, more: &[(&str, crate::Value)]) -> RegistrationSpec {
        let mut v = vec![(attrs::EVENT_HDLR_NAME, crate::Value::from(name))];
        v.extend(more.iter().cloned());
        spec(codes, &v)
    }

    fn order(c: &Chain<&'static str>) -> Vec<&'static str> {
        c.iter().map(|e| e.handler).collect()
    }

    const T: Status = Status::ERR_TIMEOUT;
    const U: Status = Status::ERR_NOT_FOUND;

    fn flag() -> crate::Value {
        crate::Value::Bool(true)
    }

    #[test]
    fn categories_dispatch_single_multi_default_with_first_and_last_outside() {
        let mut c = Chain::new();
        c.register(named(&[], "dflt", &[]), "dflt").unwrap();
        c.register(named(&[T, U], "multi", &[]), "multi").unwrap();
        c.register(named(&[T], "single", &[]), "single").unwrap();
        c.register(
            named(&[], "last", &[(attrs::EVENT_HDLR_LAST, flag())]),
            "last",
        )
        .unwrap();
        c.register(
            named(&[T, U], "first", &[(attrs::EVENT_HDLR_FIRST, flag())]),
            "first",
        )
        .unwrap();
        assert_eq!(order(&c), ["first", "single", "multi", "dflt", "last"]);
    }

    #[test]
    fn both_names_of_a_lost_server_connection_match() {
        let me = Proc::new("j", crate::Rank(0)).unwrap();
        let ev = EventView {
            status: Status::ERR_LOST_CONNECTION,
            source: None,
            origin: Origin::ThisProcess,
            info: &[],
        };
        assert!(accepts(
            &spec(&[Status::ERR_LOST_SERVER_CONNECTION], &[]),
            &me,
            &ev
        ));
        assert!(accepts(
            &spec(&[Status::ERR_LOST_CONNECTION], &[]),
            &me,
            &ev
        ));
        assert!(!accepts(&spec(&[Status::ERR_TIMEOUT], &[]), &me, &ev));
    }

    #[test]
    fn duplicate_name_is_refused_whatever_else_is_given() {
        let mut c = Chain::new();
        c.register(named(&[T], "x", &[]), "a").unwrap();
        for more in [
            vec![],
            vec![(attrs::EVENT_HDLR_FIRST, flag())],
            vec![(attrs::EVENT_HDLR_AFTER, crate::Value::from("x"))],
        ] {
            let e = c.register(named(&[U], "x", &more), "b").unwrap_err();
            assert_eq!(e.status(), Status::ERR_EVENT_REGISTRATION);
        }
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn append_lands_in_front_of_last_in_category() {
        let mut c = Chain::new();
        c.register(
            named(&[T], "lic", &[(attrs::EVENT_HDLR_LAST_IN_CATEGORY, flag())]),
            "lic",
        )
        .unwrap();
        c.register(named(&[T], "a", &[]), "a").unwrap();
        c.register(named(&[T], "b", &[(attrs::EVENT_HDLR_APPEND, flag())]), "b")
            .unwrap();
        assert_eq!(order(&c), ["a", "b", "lic"]);
    }

    #[test]
    fn plain_registration_does_not_jump_ahead_of_first_in_category() {
        let mut c = Chain::new();
        c.register(
            named(
                &[T],
                "fic",
                &[(attrs::EVENT_HDLR_FIRST_IN_CATEGORY, flag())],
            ),
            "fic",
        )
        .unwrap();
        c.register(named(&[T], "a", &[]), "a").unwrap();
        c.register(named(&[T], "b", &[]), "b").unwrap();
        assert_eq!(order(&c), ["fic", "b", "a"]);
        let e = c
            .register(
                named(&[T], "c", &[(attrs::EVENT_HDLR_FIRST_IN_CATEGORY, flag())]),
                "c",
            )
            .unwrap_err();
        assert_eq!(e.status(), Status::ERR_EVENT_REGISTRATION);
        // another category may have its own
        c.register(
            named(&[], "d", &[(attrs::EVENT_HDLR_FIRST_IN_CATEGORY, flag())]),
            "d",
        )
        .unwrap();
    }

    #[test]
    fn first_and_last_are_one_each_and_cannot_be_passed() {
        let mut c = Chain::new();
        c.register(named(&[T], "f", &[(attrs::EVENT_HDLR_FIRST, flag())]), "f")
            .unwrap();
        c.register(named(&[T], "l", &[(attrs::EVENT_HDLR_LAST, flag())]), "l")
            .unwrap();
        for (k, v) in [
            (attrs::EVENT_HDLR_FIRST, flag()),
            (attrs::EVENT_HDLR_LAST, flag()),
            (attrs::EVENT_HDLR_BEFORE, crate::Value::from("f")),
            (attrs::EVENT_HDLR_AFTER, crate::Value::from("l")),
        ] {
            let e = c.register(named(&[T], "z", &[(k, v)]), "z").unwrap_err();
            assert_eq!(e.status(), Status::ERR_EVENT_REGISTRATION, "{k}");
        }
        // AFTER FIRST is the front of the category, BEFORE LAST its end
        c.register(named(&[T], "m", &[]), "m").unwrap();
        c.register(
            named(
                &[T],
                "af",
                &[(attrs::EVENT_HDLR_AFTER, crate::Value::from("f"))],
            ),
            "af",
        )
        .unwrap();
        c.register(
            named(
                &[T],
                "bl",
                &[(attrs::EVENT_HDLR_BEFORE, crate::Value::from("l"))],
            ),
            "bl",
        )
        .unwrap();
        assert_eq!(order(&c), ["f", "af", "m", "bl", "l"]);
    }

    #[test]
    fn before_and_after_need_a_named_handler_of_the_same_category() {
        let mut c = Chain::new();
        let e = c
            .register(
                named(
                    &[T],
                    "x",
                    &[(attrs::EVENT_HDLR_BEFORE, crate::Value::from("nope"))],
                ),
                "x",
            )
            .unwrap_err();
        assert_eq!(e.status(), Status::ERR_EVENT_REGISTRATION, "empty category");
        c.register(named(&[T, U], "multi", &[]), "multi").unwrap();
        let e = c
            .register(
                named(
                    &[T],
                    "x",
                    &[(attrs::EVENT_HDLR_AFTER, crate::Value::from("multi"))],
                ),
                "x",
            )
            .unwrap_err();
        assert_eq!(e.status(), Status::ERR_EVENT_REGISTRATION, "other category");
        c.register(named(&[T], "a", &[]), "a").unwrap();
        c.register(named(&[T], "b", &[]), "b").unwrap();
        c.register(
            named(
                &[T],
                "c",
                &[(attrs::EVENT_HDLR_BEFORE, crate::Value::from("a"))],
            ),
            "c",
        )
        .unwrap();
        c.register(
            named(
                &[T],
                "d",
                &[(attrs::EVENT_HDLR_AFTER, crate::Value::from("b"))],
            ),
            "d",
        )
        .unwrap();
        assert_eq!(order(&c), ["b", "d", "c", "a", "multi"]);
    }

    #[test]
    fn deregistration_by_unknown_id_is_bad_param() {
        let mut c: Chain<()> = Chain::new();
        let id = c.register(spec(&[T], &[]), ()).unwrap();
        assert_eq!(
            c.deregister(HandlerId(99)).unwrap_err().status(),
            Status::ERR_BAD_PARAM
        );
        c.deregister(id).unwrap();
        assert!(c.is_empty());
        assert!(c.deregister(id).is_err());
    }

    #[test]
    fn ids_are_unique_and_never_usize_max() {
        let mut c: Chain<()> = Chain::new();
        let a = c.register(spec(&[T], &[]), ()).unwrap();
        let b = c.register(spec(&[T], &[]), ()).unwrap();
        assert_ne!(a, b);
        assert_ne!(a.0, usize::MAX as u64);
    }

    #[test]
    fn matching_applies_codes_non_default_and_range() {
        let me = Proc::new("ns", 0).unwrap();
        let other = Proc::new("ns", 1).unwrap();
        let mut c = Chain::new();
        c.register(spec(&[T], &[]), "single").unwrap();
        c.register(spec(&[], &[]), "default").unwrap();
        c.register(
            spec(
                &[T],
                &[(attrs::RANGE, crate::Value::DataRange(DataRange::PROC_LOCAL))],
            ),
            "proc-local",
        )
        .unwrap();
        let infos = [];
        let ev = EventView {
            status: T,
            source: Some(&other),
            origin: Origin::ThisNode,
            info: &infos,
        };
        let got: Vec<_> = c.matching(&me, &ev).iter().map(|e| e.handler).collect();
        assert_eq!(got, ["single", "default"]);
        let ev_local = EventView {
            source: Some(&me),
            origin: Origin::ThisProcess,
            ..ev
        };
        assert_eq!(c.matching(&me, &ev_local).len(), 3);
        let nd = [Info::flag(attrs::EVENT_NON_DEFAULT).unwrap()];
        let ev_nd = EventView { info: &nd, ..ev };
        let got: Vec<_> = c.matching(&me, &ev_nd).iter().map(|e| e.handler).collect();
        assert_eq!(got, ["single"]);
        let ev_u = EventView { status: U, ..ev };
        let got: Vec<_> = c.matching(&me, &ev_u).iter().map(|e| e.handler).collect();
        assert_eq!(got, ["default"]);
    }

    #[test]
    fn job_and_environment_level_filters() {
        let me = Proc::new("ns", 0).unwrap();
        let mut c = Chain::new();
        c.register(spec(&[], &[(attrs::EVENT_JOB_LEVEL, flag())]), "job")
            .unwrap();
        c.register(spec(&[], &[(attrs::EVENT_ENVIRO_LEVEL, flag())]), "env")
            .unwrap();
        let none = [];
        let env = EventView {
            status: T,
            source: None,
            origin: Origin::Host,
            info: &none,
        };
        let got: Vec<_> = c.matching(&me, &env).iter().map(|e| e.handler).collect();
        assert_eq!(got, ["env"]);
        let affected = [Info::new(attrs::EVENT_AFFECTED_PROC, me.clone()).unwrap()];
        let job = EventView {
            info: &affected,
            ..env
        };
        let got: Vec<_> = c.matching(&me, &job).iter().map(|e| e.handler).collect();
        assert_eq!(got, ["job"]);
    }
}
