//! An event as it travels: a record in a client's inbound ring, the body of
//! a `NOTIFY` message, an entry of the server's and the clients' caches.
//!
//! ```text
//! EventMsg := id.origin u64 | id.seq u64 | status i32 | range u8 | origin u8
//!             | has_source u8 | [source proc] | custom_range procs | infos
//! ```
//! (integers little-endian, procs and infos in the codec's encoding.)
//! Every byte comes from another process, so [`EventMsg::decode`] checks
//! everything and never panics (fuzz target `event_decode`).

use super::{EventView, NameCache, Origin};
use crate::codec::{Decoder, Encoder};
use crate::{attrs, DataRange, Error, Info, InfoFlags, Proc, Result, Status, Value};

/// The ring record kind of an event (the `kind` of `Ring::try_push`).
pub const RECORD_EVENT: u16 = 1;

/// A node-unique event id: who first sent it and its sequence number
/// there. Receivers drop a second copy of an id they already have (the
/// server may deliver an event a peer also pushed directly).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    /// The sender: `pid << 1` for a client, `pid << 1 | 1` for a server.
    pub origin: u64,
    /// The sender's running count.
    pub seq: u64,
}

impl EventId {
    /// The origin word of a client process.
    pub fn client_origin(pid: u32) -> u64 {
        u64::from(pid) << 1
    }

    /// The origin word of a server process.
    pub fn server_origin(pid: u32) -> u64 {
        u64::from(pid) << 1 | 1
    }
}

/// An event and its routing facts.
#[derive(Clone, Debug, PartialEq)]
pub struct EventMsg {
    /// Its id.
    pub id: EventId,
    /// The event code.
    pub status: Status,
    /// The process that generated it; `None` for RM-originated events.
    pub source: Option<Proc>,
    /// Who it is for.
    pub range: DataRange,
    /// Where it came from, relative to the receiver (set by whoever writes
    /// the record into the receiver's ring).
    pub origin: Origin,
    /// The target procs of a `PMIX_RANGE_CUSTOM` event.
    pub custom_range: Vec<Proc>,
    /// The event's infos, as given to notify.
    pub info: Vec<Info>,
}

impl Origin {
    fn to_u8(self) -> u8 {
        match self {
            Origin::ThisProcess => 0,
            Origin::ThisNode => 1,
            Origin::OtherNode => 2,
            Origin::Host => 3,
        }
    }

    fn from_u8(b: u8) -> Result<Origin> {
        Ok(match b {
            0 => Origin::ThisProcess,
            1 => Origin::ThisNode,
            2 => Origin::OtherNode,
            3 => Origin::Host,
            _ => return Err(unpack(format!("bad event origin {b}"))),
        })
    }
}

fn unpack(msg: String) -> Error {
    Error::with_context(Status::ERR_UNPACK_FAILURE, msg)
}

impl EventMsg {
    /// A bare event (no source, no info, id 0), for building and tests.
    pub fn new(status: Status, range: DataRange) -> EventMsg {
        EventMsg {
            id: EventId::default(),
            status,
            source: None,
            range,
            origin: Origin::ThisNode,
            custom_range: Vec::new(),
            info: Vec::new(),
        }
    }

    /// Checks a notify request and builds the event: the range must be a
    /// standard one; `PMIX_EVENT_CUSTOM_RANGE` (a proc or an array of
    /// them) goes with `PMIX_RANGE_CUSTOM` and nothing else, and CUSTOM
    /// needs it.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an unknown range, a custom proc list with
    /// another range, or CUSTOM without one; the attribute checks' errors
    /// for a mistyped attribute.
    pub fn for_notify(
        status: Status,
        source: Option<Proc>,
        range: DataRange,
        info: &[Info],
    ) -> Result<EventMsg> {
        let mut ev = EventMsg::new(status, range);
        ev.refill_for_notify(status, source, range, info)?;
        Ok(ev)
    }

    /// As [`for_notify`](Self::for_notify), into `self` (every field set
    /// again; the id is zeroed), reusing its lists' memory and that of the
    /// infos it holds ([`Info::assign_from`]): a notifier that keeps one
    /// event allocates nothing for infos shaped as the last ones (a custom
    /// range's data array of procs included).
    ///
    /// # Errors
    /// As [`for_notify`](Self::for_notify); `self` is then unspecified.
    pub fn refill_for_notify(
        &mut self,
        status: Status,
        source: Option<Proc>,
        range: DataRange,
        info: &[Info],
    ) -> Result<()> {
        if !range.is_known() || range == DataRange::UNDEF {
            return Err(Error::bad_param(format!(
                "notify: {range} is not an event range"
            )));
        }
        attrs::check_all(info)?;
        self.custom_range.clear();
        let mut custom = false;
        for i in info.iter().filter(|i| i.is(attrs::EVENT_CUSTOM_RANGE)) {
            custom = true;
            match &i.value {
                Value::Proc(p) => self.custom_range.push(p.clone()),
                // the array's procs, as `registration::procs_of` reads
                // them, without a list in between
                Value::DataArray(a) => {
                    for v in a.items() {
                        self.custom_range.push(v.as_proc()?.clone());
                    }
                }
                // anything else is refused there
                _ => self.custom_range.extend(super::registration::procs_of(i)?),
            }
        }
        match (range == DataRange::CUSTOM, custom) {
            (false, true) => {
                return Err(Error::bad_param(format!(
                    "notify: PMIX_EVENT_CUSTOM_RANGE given with {range}"
                )))
            }
            (true, false) => {
                return Err(Error::bad_param(
                    "notify: PMIX_RANGE_CUSTOM needs PMIX_EVENT_CUSTOM_RANGE",
                ))
            }
            _ => {}
        }
        self.id = EventId::default();
        self.status = status;
        self.source = source;
        self.range = range;
        self.origin = Origin::ThisNode;
        // over the infos `self` still holds: same-shaped values keep their
        // memory (a custom range's data array, issue 18)
        crate::value::assign_infos(&mut self.info, info);
        Ok(())
    }

    /// The event as the matching rules see it.
    pub fn view(&self) -> EventView<'_> {
        EventView {
            status: self.status,
            source: self.source.as_ref(),
            origin: self.origin,
            info: &self.info,
        }
    }

    /// Whether a process `target` (on this node, other than through
    /// `PMIX_RANGE_PROC_LOCAL`) is in the event's range:
    /// LOCAL, SESSION, GLOBAL → every local process; NAMESPACE → the
    /// source's namespace (for a source-less RM event: the namespaces of
    /// the affected procs, or every process when none is named); CUSTOM →
    /// the listed procs (a wildcard rank names the whole namespace); RM and
    /// PROC_LOCAL → no other process.
    pub fn targets(&self, target: &Proc) -> bool {
        match self.range {
            DataRange::LOCAL | DataRange::SESSION | DataRange::GLOBAL => true,
            DataRange::NAMESPACE => match &self.source {
                Some(s) => s.nspace == target.nspace,
                None => {
                    let affected = self.view().affected();
                    affected.is_empty() || affected.iter().any(|a| a.nspace == target.nspace)
                }
            },
            DataRange::CUSTOM => self.custom_range.iter().any(|c| c.matches(target)),
            _ => false,
        }
    }

    /// `PMIX_EVENT_DO_NOT_CACHE` is set.
    pub fn do_not_cache(&self) -> bool {
        self.flag(attrs::EVENT_DO_NOT_CACHE)
    }

    /// `PMIX_EVENT_NON_DEFAULT` is set.
    pub fn non_default(&self) -> bool {
        self.flag(attrs::EVENT_NON_DEFAULT)
    }

    fn flag(&self, key: &str) -> bool {
        self.info
            .iter()
            .any(|i| i.is(key) && i.value.is_true().unwrap_or(false))
    }

    /// Appends the encoding to `e`.
    pub fn encode_into(&self, e: &mut Encoder) {
        e.put_u64(self.id.origin);
        e.put_u64(self.id.seq);
        e.put_i32(self.status.0);
        e.put_u8(self.range.0);
        e.put_u8(self.origin.to_u8());
        match &self.source {
            Some(p) => {
                e.put_u8(1);
                e.put_proc(p);
            }
            None => e.put_u8(0),
        }
        e.put_procs(&self.custom_range);
        e.put_infos(&self.info);
    }

    /// The encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        self.encode_into(&mut e);
        e.finish()
    }

    /// Reads one event from `d`.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_FAILURE` (or the codec's errors) for anything
    /// malformed.
    pub fn decode_from(d: &mut Decoder<'_>) -> Result<EventMsg> {
        let mut ev = EventMsg::new(Status::SUCCESS, DataRange::PROC_LOCAL);
        ev.decode_fields(d, &mut NameCache::disabled())?;
        Ok(ev)
    }

    /// Decodes a whole buffer holding exactly one event into `self`,
    /// reusing its lists' memory and taking namespaces and keys from
    /// `names`: with the names cached and values without heap data, this
    /// allocates nothing. On an error `self` holds a partial event and must
    /// not be used (decode again into it).
    ///
    /// # Errors
    /// As [`decode`](Self::decode).
    pub fn decode_in_place(&mut self, bytes: &[u8], names: &mut NameCache) -> Result<()> {
        let mut d = Decoder::new(bytes);
        self.decode_fields(&mut d, names)?;
        d.expect_end()
    }

    fn decode_fields(&mut self, d: &mut Decoder<'_>, names: &mut NameCache) -> Result<()> {
        self.id = EventId {
            origin: d.get_u64()?,
            seq: d.get_u64()?,
        };
        self.status = Status(d.get_i32()?);
        self.range = DataRange(d.get_u8()?);
        self.origin = Origin::from_u8(d.get_u8()?)?;
        self.source = match d.get_u8()? {
            0 => None,
            1 => Some(d.get_proc_named(names)?),
            b => return Err(unpack(format!("bad source flag {b}"))),
        };
        self.custom_range.clear();
        let n = d.get_count("proc list", 8)?;
        for _ in 0..n {
            let p = d.get_proc_named(names)?;
            self.custom_range.push(p);
        }
        // key length (4) + flags (4) + type (2), at least
        let n = d.get_count("info list", 10)?;
        self.info.truncate(n);
        // each info decoded over the one this event held at its index:
        // a value of the same shape keeps its memory (issue 18)
        for i in 0..n {
            if i == self.info.len() {
                // a new entry, written over below
                self.info.push(Info {
                    key: names.key("")?,
                    value: Value::Undef,
                    flags: InfoFlags(0),
                });
            }
            d.get_info_into(&mut self.info[i], names)?;
        }
        Ok(())
    }

    /// Decodes a whole buffer holding exactly one event.
    ///
    /// # Errors
    /// As [`decode_from`](Self::decode_from); trailing bytes are an error.
    pub fn decode(bytes: &[u8]) -> Result<EventMsg> {
        let mut d = Decoder::new(bytes);
        let ev = EventMsg::decode_from(&mut d)?;
        d.expect_end()?;
        Ok(ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataArray, Rank, Value};

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(ns, Rank(r)).unwrap()
    }

    #[test]
    fn round_trips_and_truncations_fail_cleanly() {
        let mut ev = EventMsg::for_notify(
            Status(-3001),
            Some(p("job", 3)),
            DataRange::CUSTOM,
            &[
                Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(p("job", 1))).unwrap(),
                Info::new("user.payload", 42u32).unwrap(),
            ],
        )
        .unwrap();
        ev.id = EventId {
            origin: EventId::client_origin(77),
            seq: 9,
        };
        ev.origin = Origin::OtherNode;
        assert_eq!(ev.custom_range, vec![p("job", 1)]);
        let bytes = ev.encode();
        assert_eq!(EventMsg::decode(&bytes).unwrap(), ev);
        for cut in 0..bytes.len() {
            assert!(EventMsg::decode(&bytes[..cut]).is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(EventMsg::decode(&longer).is_err());
    }

    /// Events of several shapes: the custom range as one proc or a data
    /// array of 1 or 3, scalar, string, byte and nested infos, none.
    fn shapes() -> Vec<EventMsg> {
        let procs =
            |n: u32| Value::from(DataArray::from_procs((0..n).map(|r| p("job", r)).collect()));
        let custom = |v: Value| Info::new(attrs::EVENT_CUSTOM_RANGE, v).unwrap();
        let infos: Vec<Vec<Info>> = vec![
            vec![custom(procs(1)), Info::new("user.x", 42u64).unwrap()],
            vec![custom(procs(3))],
            vec![custom(Value::Proc(p("other", 2)))],
            vec![
                custom(procs(1)),
                Info::new("user.s", "text").unwrap(),
                Info::new("user.b", Value::ByteObject(vec![1, 2])).unwrap(),
                Info::new(
                    "user.i",
                    DataArray::from_infos(vec![Info::new("k", procs(2)).unwrap()]),
                )
                .unwrap(),
            ],
        ];
        let mut all: Vec<EventMsg> = infos
            .iter()
            .map(|i| {
                EventMsg::for_notify(Status(-3001), Some(p("job", 0)), DataRange::CUSTOM, i)
                    .unwrap()
            })
            .collect();
        all.push(EventMsg::new(Status(-3002), DataRange::LOCAL));
        let mut scalar = EventMsg::new(Status(-3003), DataRange::NAMESPACE);
        scalar.info = vec![
            Info::new("user.x", 7u64).unwrap(),
            Info::flag("user.f").unwrap(),
        ];
        all.push(scalar);
        all
    }

    /// The room of the first info's data array.
    fn room(ev: &EventMsg) -> usize {
        ev.info[0].value.as_data_array().unwrap().capacity()
    }

    #[test]
    fn decoding_in_place_over_any_earlier_event_equals_a_fresh_decode() {
        let mut names = NameCache::new();
        for before in shapes() {
            for ev in shapes() {
                let bytes = ev.encode();
                let mut slot = EventMsg::decode(&before.encode()).unwrap();
                slot.decode_in_place(&bytes, &mut names).unwrap();
                assert_eq!(slot, EventMsg::decode(&bytes).unwrap());
                assert_eq!(slot, ev);
            }
        }
        // a custom range of 1 decoded over one of 3 keeps the room of 3:
        // the data array was decoded into the memory already there
        let (three, one) = (shapes()[1].encode(), shapes()[0].encode());
        let mut slot = EventMsg::decode(&three).unwrap();
        slot.decode_in_place(&one, &mut names).unwrap();
        assert_eq!(slot, EventMsg::decode(&one).unwrap());
        assert_eq!(
            (room(&slot), room(&EventMsg::decode(&one).unwrap())),
            (3, 1)
        );
        // a bad record over a shaped event fails as a fresh decode fails
        let bytes = shapes()[0].encode();
        for cut in 0..bytes.len() {
            let mut slot = shapes()[3].clone();
            assert!(slot.decode_in_place(&bytes[..cut], &mut names).is_err());
        }
    }

    #[test]
    fn refilling_a_draft_over_any_earlier_event_equals_a_fresh_one() {
        for before in shapes() {
            for ev in shapes() {
                let mut draft = before.clone();
                draft
                    .refill_for_notify(ev.status, ev.source.clone(), ev.range, &ev.info)
                    .unwrap();
                assert_eq!(draft, ev);
            }
        }
        // a custom range of 1 over one of 3 keeps the room of 3
        let (three, one) = (&shapes()[1], &shapes()[0]);
        let mut draft = three.clone();
        draft
            .refill_for_notify(one.status, one.source.clone(), one.range, &one.info)
            .unwrap();
        assert_eq!(draft, *one);
        assert_eq!((room(&draft), room(one)), (3, 1));
    }

    #[test]
    fn range_rules_for_notify() {
        let custom = Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(p("j", 0))).unwrap();
        let e = EventMsg::for_notify(
            Status(-3001),
            None,
            DataRange::LOCAL,
            std::slice::from_ref(&custom),
        )
        .unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        let e = EventMsg::for_notify(Status(-3001), None, DataRange::CUSTOM, &[]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        let e = EventMsg::for_notify(Status(-3001), None, DataRange(42), &[]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        for r in [
            DataRange::PROC_LOCAL,
            DataRange::LOCAL,
            DataRange::NAMESPACE,
            DataRange::SESSION,
            DataRange::GLOBAL,
            DataRange::RM,
        ] {
            EventMsg::for_notify(Status(-3001), None, r, &[]).unwrap();
        }
    }

    #[test]
    fn targets_follow_the_range() {
        let mut ev = EventMsg::new(Status(-3001), DataRange::NAMESPACE);
        ev.source = Some(p("a", 0));
        assert!(ev.targets(&p("a", 5)) && !ev.targets(&p("b", 0)));
        ev.range = DataRange::LOCAL;
        assert!(ev.targets(&p("b", 0)));
        ev.range = DataRange::RM;
        assert!(!ev.targets(&p("a", 1)));
        ev.range = DataRange::CUSTOM;
        ev.custom_range = vec![p("b", 2), Proc::new("c", Rank::WILDCARD).unwrap()];
        assert!(ev.targets(&p("b", 2)) && ev.targets(&p("c", 9)));
        assert!(!ev.targets(&p("b", 1)) && !ev.targets(&p("a", 0)));
    }

    #[test]
    fn flags_are_read_from_the_info() {
        let ev = EventMsg::for_notify(
            Status(-3001),
            None,
            DataRange::LOCAL,
            &[
                Info::new(attrs::EVENT_DO_NOT_CACHE, true).unwrap(),
                Info::new(attrs::EVENT_NON_DEFAULT, true).unwrap(),
            ],
        )
        .unwrap();
        assert!(ev.do_not_cache() && ev.non_default());
        assert!(ev.view().non_default());
    }
}
