use std::ffi::CStr;
use std::fmt;

use zkpipe_sys as sys;

/// A zkpipe status other than `ZKPIPE_OK`: one of the fixed negative codes of
/// `zkpipe/status.h`.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Error(i32);

/// `Result` with zkpipe's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub const INVAL: Error = Error(sys::ZKPIPE_EINVAL);
    pub const NOMEM: Error = Error(sys::ZKPIPE_ENOMEM);
    pub const CLOSED: Error = Error(sys::ZKPIPE_ECLOSED);
    pub const TIMEDOUT: Error = Error(sys::ZKPIPE_ETIMEDOUT);
    pub const AGAIN: Error = Error(sys::ZKPIPE_EAGAIN);
    pub const LIMIT: Error = Error(sys::ZKPIPE_ELIMIT);
    pub const STATE: Error = Error(sys::ZKPIPE_ESTATE);
    pub const UNDERFLOW: Error = Error(sys::ZKPIPE_EUNDERFLOW);
    pub const TOOBIG: Error = Error(sys::ZKPIPE_ETOOBIG);
    pub const OVERFLOW: Error = Error(sys::ZKPIPE_EOVERFLOW);
    pub const DEVICE: Error = Error(sys::ZKPIPE_EDEVICE);
    pub const NODEVICE: Error = Error(sys::ZKPIPE_ENODEVICE);
    pub const CANCELED: Error = Error(sys::ZKPIPE_ECANCELED);
    pub const UNSUPPORTED: Error = Error(sys::ZKPIPE_EUNSUPPORTED);
    pub const THREAD: Error = Error(sys::ZKPIPE_ETHREAD);
    pub const IO: Error = Error(sys::ZKPIPE_EIO);
    pub const FORMAT: Error = Error(sys::ZKPIPE_EFORMAT);
    pub const NOTONCURVE: Error = Error(sys::ZKPIPE_ENOTONCURVE);
    pub const NOTINSUBGROUP: Error = Error(sys::ZKPIPE_ENOTINSUBGROUP);
    pub const NONCANONICAL: Error = Error(sys::ZKPIPE_ENONCANONICAL);
    pub const FLAGS: Error = Error(sys::ZKPIPE_EFLAGS);
    pub const UNSATISFIED: Error = Error(sys::ZKPIPE_EUNSATISFIED);
    pub const VERIFY: Error = Error(sys::ZKPIPE_EVERIFY);
    pub const MISMATCH: Error = Error(sys::ZKPIPE_EMISMATCH);

    /// The error of a status, `Ok` for `ZKPIPE_OK`.
    pub fn check(status: sys::zkpipe_status) -> Result<()> {
        if status == sys::ZKPIPE_OK {
            Ok(())
        } else {
            Err(Error(status))
        }
    }

    /// The status code, e.g. -1 for `ZKPIPE_EINVAL`.
    pub fn code(self) -> i32 {
        self.0
    }

    /// The enumerator's name, e.g. "ZKPIPE_EINVAL".
    pub fn name(self) -> &'static str {
        // SAFETY: zkpipe_status_name returns a static string for any value.
        unsafe { static_str(sys::zkpipe_status_name(self.0)) }
    }

    /// A short English description.
    pub fn description(self) -> &'static str {
        // SAFETY: as for name.
        unsafe { static_str(sys::zkpipe_status_str(self.0)) }
    }
}

/// # Safety
/// `p` is a static NUL-terminated ASCII string.
pub(crate) unsafe fn static_str(p: *const std::ffi::c_char) -> &'static str {
    // SAFETY: the caller's promise; zkpipe's static strings are ASCII.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("?")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.description(), self.name())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::error::Error for Error {}
