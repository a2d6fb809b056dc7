//! The server's replies.

use crate::codec::{Decoder, Encoder};
use crate::{Error, Result, Status, Value};

/// A reply: a status and, for `Get`, the value.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The outcome.
    pub status: Status,
    /// The value of a successful `Get`.
    pub value: Option<Value>,
    /// A human-readable reason for a failure (may be empty).
    pub message: String,
}

impl Reply {
    /// A reply carrying only `status`.
    pub fn status(status: Status) -> Self {
        Reply {
            status,
            value: None,
            message: String::new(),
        }
    }

    /// A failure reply made from `err`.
    pub fn error(err: &Error) -> Self {
        Reply {
            status: err.status(),
            value: None,
            message: err.context().unwrap_or_default().to_owned(),
        }
    }

    /// This reply as a result.
    ///
    /// # Errors
    /// The carried status when it is not a success.
    pub fn into_result(self) -> Result<Option<Value>> {
        if self.status.is_success() {
            Ok(self.value)
        } else if self.message.is_empty() {
            Err(Error::new(self.status))
        } else {
            Err(Error::with_context(self.status, self.message))
        }
    }

    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_i32(self.status.0);
        e.put_str(&self.message);
        match &self.value {
            None => e.put_u8(0),
            Some(v) => {
                e.put_u8(1);
                e.put_value(v);
            }
        }
        e.finish()
    }

    /// Decodes a body.
    ///
    /// # Errors
    /// The decoder's errors.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        let status = Status(d.get_i32()?);
        let message = d.get_str()?.to_owned();
        let value = match d.get_u8()? {
            0 => None,
            1 => Some(d.get_value()?),
            b => {
                return Err(Error::with_context(
                    Status::ERR_UNPACK_FAILURE,
                    format!("reply: bad value flag {b}"),
                ))
            }
        };
        d.expect_end()?;
        Ok(Reply {
            status,
            value,
            message,
        })
    }
}
