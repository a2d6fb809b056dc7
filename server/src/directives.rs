//! Reading the directives of a client's request the way every operation
//! of this server reads them.

use std::time::{Duration, Instant};

use pmix_core::{attrs, Info};

/// Whether boolean directive `key` is set (present without a boolean
/// value counts as set, as the PMIx Standard has it for flags).
pub(crate) fn flag(info: &[Info], key: &str) -> bool {
    pmix_core::info::find(info, key).is_some_and(|i| i.value.is_true().unwrap_or(true))
}

/// When the request's `PMIX_TIMEOUT` (seconds, counted from now) passes;
/// 0, negative or not an integer: never (the client already refused the
/// last two).
pub(crate) fn deadline(info: &[Info]) -> Option<Instant> {
    let secs = pmix_core::info::find(info, attrs::TIMEOUT)?
        .value
        .to_i64()
        .ok()?;
    (secs > 0).then(|| Instant::now() + Duration::from_secs(secs.unsigned_abs()))
}
