//! `PMIx_Log` written by a process to its own stdout / stderr: the
//! fallback of a client whose host does not log, and what a launcher that
//! prints its clients' messages itself does (`pmixrun`).

use std::io::{self, Write};

use pmix_core::{attrs, Error, Info, Result, Status, Value};

/// Where a `PMIx_Log` channel goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogSink {
    Stdout,
    Stderr,
}

/// The text of a log datum: a string, or a byte object without its
/// trailing NULs (C callers pass `strlen + 1` bytes).
fn log_text(v: &Value) -> Option<&[u8]> {
    match v {
        Value::String(s) => Some(s.as_bytes()),
        Value::ByteObject(b) => {
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            Some(&b[..end])
        }
        _ => None,
    }
}

/// Writes each supported channel of a `PMIx_Log` request with `write`, one
/// call per message, newline-terminated so it never joins a forwarded
/// line: `PMIX_LOG_MSG` and `PMIX_LOG_STDERR` to stderr, `PMIX_LOG_STDOUT`
/// to stdout (as a process logging for itself).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for no data; `PMIX_ERR_NOT_SUPPORTED` for another
/// channel or a value that is not text (the supported entries are still
/// written); `PMIX_ERROR` when a write failed. The first error counts.
pub(crate) fn write_log(
    data: &[Info],
    mut write: impl FnMut(LogSink, &[u8]) -> io::Result<()>,
) -> Result<()> {
    if data.is_empty() {
        return Err(Error::bad_param("nothing to log"));
    }
    let mut first: Option<Error> = None;
    for i in data {
        let k = i.key.as_str();
        let sink = match k {
            attrs::LOG_MSG | attrs::LOG_STDERR => LogSink::Stderr,
            attrs::LOG_STDOUT => LogSink::Stdout,
            _ => {
                first.get_or_insert_with(|| {
                    Error::with_context(
                        Status::ERR_NOT_SUPPORTED,
                        format!("no log channel {k} here"),
                    )
                });
                continue;
            }
        };
        let Some(text) = log_text(&i.value) else {
            first.get_or_insert_with(|| {
                Error::with_context(
                    Status::ERR_NOT_SUPPORTED,
                    format!("log channel {k} of type {}", i.value.data_type()),
                )
            });
            continue;
        };
        if text.is_empty() {
            continue;
        }
        let mut msg = text.to_vec();
        if !msg.ends_with(b"\n") {
            msg.push(b'\n');
        }
        if let Err(e) = write(sink, &msg) {
            first.get_or_insert_with(|| {
                Error::with_context(Status::ERROR, format!("cannot write the {k} message: {e}"))
            });
        }
    }
    first.map_or(Ok(()), Err)
}

/// Writes `bytes` to this process's stream in one `write_all` under its
/// lock, then flushes, so messages never interleave with other output.
fn to_stdio(sink: LogSink, bytes: &[u8]) -> io::Result<()> {
    match sink {
        LogSink::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
        LogSink::Stderr => {
            let mut out = io::stderr().lock();
            out.write_all(bytes)?;
            out.flush()
        }
    }
}

/// Writes the `PMIX_LOG_MSG` / `PMIX_LOG_STDERR` entries of `data` to this
/// process's stderr and the `PMIX_LOG_STDOUT` ones to its stdout, one
/// newline-terminated write per message.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for no data; `PMIX_ERR_NOT_SUPPORTED` for another
/// channel or a value that is not text (the supported entries are still
/// written); `PMIX_ERROR` when a write failed.
pub fn log_to_stdio(data: &[Info]) -> Result<()> {
    write_log(data, to_stdio)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_writes_stdout_and_stderr_channels_and_refuses_others() {
        let mut seen: Vec<(LogSink, String)> = Vec::new();
        let data = [
            Info::new(attrs::LOG_STDERR, "to err").unwrap(),
            Info::new(attrs::LOG_SYSLOG, "to syslog").unwrap(),
            Info::new(attrs::LOG_STDOUT, "to out\n").unwrap(),
            Info::new(attrs::LOG_MSG, Value::ByteObject(b"banner\0".to_vec())).unwrap(),
            Info::new(attrs::LOG_STDOUT, Value::Uint32(3)).unwrap(),
            Info::new(attrs::LOG_STDERR, "").unwrap(),
        ];
        let r = write_log(&data, |s, b| {
            seen.push((s, String::from_utf8_lossy(b).into_owned()));
            Ok(())
        });
        let e = r.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        assert!(e.to_string().contains("pmix.log.syslog"), "{e}");
        assert_eq!(
            seen,
            [
                (LogSink::Stderr, "to err\n".to_owned()),
                (LogSink::Stdout, "to out\n".to_owned()),
                (LogSink::Stderr, "banner\n".to_owned()),
            ]
        );
        let ok = [Info::new(attrs::LOG_STDOUT, "x").unwrap()];
        assert!(write_log(&ok, |_, _| Ok(())).is_ok());
        let failed = write_log(&ok, |_, _| Err(io::Error::other("closed")));
        assert_eq!(failed.unwrap_err().status(), Status::ERROR);
        assert_eq!(
            write_log(&[], |_, _| Ok(())).unwrap_err().status(),
            Status::ERR_BAD_PARAM
        );
    }

    #[test]
    fn log_text_drops_trailing_nuls_and_other_types() {
        assert_eq!(
            log_text(&Value::ByteObject(b"banner\n\0\0".to_vec())),
            Some(&b"banner\n"[..])
        );
        assert_eq!(log_text(&Value::String("s".into())), Some(&b"s"[..]));
        assert_eq!(log_text(&Value::Uint32(1)), None);
    }
}
