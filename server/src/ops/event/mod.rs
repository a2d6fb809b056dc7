//! Event notification, server side (the event design, "PMIx Server Registrations",
//! "RM Notifications").
//!
//! Every client slot has an inbound event ring in the segment
//! (`CLIENT_RING`/slot); records are `EventMsg`s of kind
//! [`RECORD_EVENT`](pmix_core::event::RECORD_EVENT). Local clients push
//! events straight into the rings of their connected peers; the server
//! gets a copy (`NOTIFY`) only for what they cannot do: the cache, peers
//! not connected or not registered yet, and the host. The host's own
//! events come through `route::host_notify`.
//!
//! For each event the server, under its state lock, numbers it, picks the
//! registered in-range clients it still has to reach, caches it and holds
//! it for local targets not registered yet (`store.rs`); it pushes the
//! records after releasing the lock (`try_push` for a client not reading
//! yet; for a connected client at once when the record fits, else by the
//! pusher thread with `push_timeout`, `pusher.rs`), so a full ring delays
//! nobody but the records for that ring, and never for longer than
//! `ServerConfig::event_push_timeout` each. A record that cannot be
//! pushed is logged, never a panic.
//!
//! A newly registered client's ring is first emptied of what a previous
//! occupant of the slot left, then given the cached and held events that
//! target it, in arrival order (under the lock, with `try_push`, so a
//! concurrent event can neither overtake nor duplicate them). Held events
//! that did not fit are tried again once the client has connected.
//!
//! Interest (`EVENT_INTEREST`) is the set of codes each client's handlers
//! want; the union decides what the server registers with the host
//! (`interest.rs`).
//!
//! | file | job |
//! |---|---|
//! | `store.rs` | the cache and the held events (pure bookkeeping) |
//! | `interest.rs` | the clients' wanted codes and the host's registrations (pure) |
//! | `route.rs` | an event from the host or a client: plan, push, pass on |
//! | `replay.rs` | a new client's ring: stale records out, cached and held events in |
//! | `pusher.rs` | the pusher thread: pushes that wait for room, in order per ring |
//! | `host_calls.rs` | `EVENT_INTEREST` and the `register_events` up-calls |
//! | `server_errors.rs` | protocol violations reported to a host that registered |

pub(crate) mod host_calls;
pub(crate) mod interest;
pub(crate) mod pusher;
pub(crate) mod replay;
pub(crate) mod route;
pub(crate) mod server_errors;
pub(crate) mod store;
