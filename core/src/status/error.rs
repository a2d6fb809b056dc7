//! The crate-wide error type: a non-success status and a context.

use std::fmt;

use super::Status;

/// The error every pmix-rs crate returns: a non-success [`Status`] plus a
/// short context saying what failed.
///
/// # Examples
/// ```
/// use pmix_core::{Error, Status};
/// let e = Error::bad_param("nspace longer than 255 bytes");
/// assert_eq!(e.status(), Status::ERR_BAD_PARAM);
/// assert!(e.to_string().starts_with("PMIX_ERR_BAD_PARAM"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    status: Status,
    context: Option<Box<str>>,
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with no context. A `PMIX_SUCCESS` status is turned into
    /// `PMIX_ERROR`: an `Error` never carries success.
    pub fn new(status: Status) -> Self {
        let status = if status.is_success() {
            Status::ERROR
        } else {
            status
        };
        Error {
            status,
            context: None,
        }
    }

    /// An error with a context string (what was being done, which key...).
    pub fn with_context(status: Status, context: impl Into<String>) -> Self {
        let mut e = Error::new(status);
        e.context = Some(context.into().into_boxed_str());
        e
    }

    /// `PMIX_ERR_BAD_PARAM` with what was wrong: the one constructor for a
    /// refused argument (say which argument and what was expected).
    pub fn bad_param(context: impl Into<String>) -> Self {
        Error::with_context(Status::ERR_BAD_PARAM, context)
    }

    /// The PMIx status this error carries (never `PMIX_SUCCESS`).
    pub fn status(&self) -> Status {
        self.status
    }

    /// The context, if any.
    pub fn context(&self) -> Option<&str> {
        self.context.as_deref()
    }
}

impl From<Status> for Error {
    fn from(s: Status) -> Self {
        Error::new(s)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.context {
            Some(c) => write!(f, "{}: {c}", self.status),
            None => write!(f, "{}", self.status),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}
