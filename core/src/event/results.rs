//! Running one event through a chain: the results array handed from
//! handler to handler, the end of the chain, and the consolidated
//! termination request.
//!
//! After each handler, one info keyed by the handler's name (empty when
//! unnamed) holding the *handler's* returned status is appended, followed by
//! the infos the handler returned (the Event Notification design and the
//! Extend the Event Notification RFC, `docs/SOURCES.md`). A handler may hand
//! back the prior results altered (a value changed, an entry removed) and
//! the next handler sees that consolidated array (the event RFC).
//! `PMIX_EVENT_ACTION_COMPLETE` ends the chain.

use crate::{attrs, Info, InfoFlags, Status, Value};

/// What to do after a handler completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Call the next matching handler.
    Continue,
    /// The handler returned `PMIX_EVENT_ACTION_COMPLETE`: stop.
    Stop,
}

/// The chain's consolidated view on terminating the application
/// (`PMIX_EVENT_NO_TERMINATION` / `PMIX_EVENT_WANT_TERMINATION`, the event RFC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Termination {
    /// No handler said anything.
    #[default]
    Undecided,
    /// The last word was "termination not required".
    NotRequired,
    /// A handler wants termination; `final` when it marked it
    /// `PMIX_INFO_REQD`, which later handlers cannot override.
    Wanted {
        /// Marked required: no later handler may override it.
        is_final: bool,
    },
}

impl Termination {
    /// `Some(true)` when termination is wanted, `Some(false)` when a
    /// handler said it is not required, `None` when nobody said.
    pub fn wanted(self) -> Option<bool> {
        match self {
            Termination::Undecided => None,
            Termination::NotRequired => Some(false),
            Termination::Wanted { .. } => Some(true),
        }
    }

    fn absorb(&mut self, infos: &[Info]) {
        for i in infos {
            let said = i.value.is_true().unwrap_or(false);
            if !said {
                continue;
            }
            let locked = matches!(self, Termination::Wanted { is_final: true });
            if i.is(attrs::EVENT_WANT_TERMINATION) && !locked {
                *self = Termination::Wanted {
                    is_final: i.flags.contains(InfoFlags::REQD),
                };
            } else if i.is(attrs::EVENT_NO_TERMINATION) && !locked {
                *self = Termination::NotRequired;
            }
        }
    }
}

/// The state of one event's trip through the chain.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChainRun {
    results: Vec<Info>,
    termination: Termination,
    handlers_run: usize,
    stopped: bool,
}

/// The outcome of a chain run, for whoever asked for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The final results array.
    pub results: Vec<Info>,
    /// The consolidated termination request.
    pub termination: Termination,
    /// How many handlers ran.
    pub handlers_run: usize,
    /// `true` when a handler returned `PMIX_EVENT_ACTION_COMPLETE`.
    pub completed: bool,
}

impl ChainRun {
    /// A run before any handler.
    pub fn new() -> Self {
        ChainRun::default()
    }

    /// The results so far, as the next handler receives them.
    pub fn results(&self) -> &[Info] {
        &self.results
    }

    /// `true` once a handler has ended the chain.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Records a handler's completion.
    ///
    /// - `name`: the handler's registered name (`None`: unnamed).
    /// - `status`: what the handler returned.
    /// - `updated_prior`: the prior results as the handler altered them
    ///   (values changed, entries removed), or `None` if untouched.
    /// - `returned`: the infos it returned, appended after its status.
    pub fn handler_done(
        &mut self,
        name: Option<&str>,
        status: Status,
        updated_prior: Option<Vec<Info>>,
        returned: Vec<Info>,
    ) -> Step {
        // The key cannot fail: a registered name was validated as a key.
        let key = crate::Key::new(name.unwrap_or(""))
            .unwrap_or_else(|_| crate::Key::new("").expect("the empty key is always valid"));
        self.handler_done_keyed(&key, status, updated_prior, returned)
    }

    /// As [`handler_done`](Self::handler_done), with the handler's result
    /// key (its name, or the empty key) already built: no allocation when
    /// the results array has room and the handler returned nothing.
    pub fn handler_done_keyed(
        &mut self,
        key: &crate::Key,
        status: Status,
        updated_prior: Option<Vec<Info>>,
        returned: Vec<Info>,
    ) -> Step {
        if let Some(prior) = updated_prior {
            self.results = prior;
        }
        self.results.push(Info {
            key: key.clone(),
            value: Value::Status(status),
            flags: InfoFlags::NONE,
        });
        self.termination.absorb(&returned);
        self.results.extend(returned);
        self.handlers_run += 1;
        if status == Status::EVENT_ACTION_COMPLETE {
            self.stopped = true;
            Step::Stop
        } else {
            Step::Continue
        }
    }

    /// Back to a run before any handler, keeping the results array's
    /// memory (for a dispatcher that reuses runs).
    pub fn reset(&mut self) {
        self.results.clear();
        self.termination = Termination::default();
        self.handlers_run = 0;
        self.stopped = false;
    }

    /// Ends the run.
    pub fn finish(self) -> Outcome {
        Outcome {
            results: self.results,
            termination: self.termination,
            handlers_run: self.handlers_run,
            completed: self.stopped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_handler_appends_its_status_then_its_results() {
        let mut run = ChainRun::new();
        let r = vec![Info::new("detail", 5u32).unwrap()];
        assert_eq!(
            run.handler_done(Some("a"), Status::EVENT_PARTIAL_ACTION_TAKEN, None, r),
            Step::Continue
        );
        run.handler_done(None, Status::EVENT_NO_ACTION_TAKEN, None, vec![]);
        let res = run.results();
        assert_eq!(res.len(), 3);
        assert_eq!(res[0].key, "a");
        assert_eq!(
            res[0].value,
            Value::Status(Status::EVENT_PARTIAL_ACTION_TAKEN)
        );
        assert_eq!(res[1].key, "detail");
        assert_eq!(res[2].key, "");
        assert_eq!(res[2].value, Value::Status(Status::EVENT_NO_ACTION_TAKEN));
    }

    #[test]
    fn action_complete_stops_the_chain() {
        let mut run = ChainRun::new();
        assert_eq!(
            run.handler_done(Some("a"), Status::EVENT_ACTION_COMPLETE, None, vec![]),
            Step::Stop
        );
        let out = run.finish();
        assert!(out.completed);
        assert_eq!(out.handlers_run, 1);
    }

    #[test]
    fn a_handler_may_alter_or_remove_prior_results() {
        let mut run = ChainRun::new();
        run.handler_done(
            Some("a"),
            Status::SUCCESS,
            None,
            vec![Info::new("x", 1u32).unwrap(), Info::new("y", 2u32).unwrap()],
        );
        let mut prior = run.results().to_vec();
        prior.retain(|i| !i.is("y"));
        prior[1].value = Value::Uint32(10);
        run.handler_done(Some("b"), Status::SUCCESS, Some(prior), vec![]);
        let keys: Vec<_> = run.results().iter().map(|i| i.key.to_string()).collect();
        assert_eq!(keys, ["a", "x", "b"]);
        assert_eq!(run.results()[1].value, Value::Uint32(10));
    }

    #[test]
    fn termination_is_consolidated_and_reqd_is_final() {
        let want = |reqd| {
            let i = Info::new(attrs::EVENT_WANT_TERMINATION, true).unwrap();
            if reqd {
                i.required()
            } else {
                i
            }
        };
        let no = || Info::new(attrs::EVENT_NO_TERMINATION, true).unwrap();

        let mut run = ChainRun::new();
        run.handler_done(None, Status::SUCCESS, None, vec![want(false)]);
        run.handler_done(None, Status::SUCCESS, None, vec![no()]);
        assert_eq!(run.finish().termination.wanted(), Some(false));

        let mut run = ChainRun::new();
        run.handler_done(None, Status::SUCCESS, None, vec![want(true)]);
        run.handler_done(None, Status::SUCCESS, None, vec![no()]);
        assert_eq!(
            run.finish().termination,
            Termination::Wanted { is_final: true }
        );

        let mut run = ChainRun::new();
        run.handler_done(None, Status::SUCCESS, None, vec![]);
        assert_eq!(run.finish().termination.wanted(), None);
    }
}
