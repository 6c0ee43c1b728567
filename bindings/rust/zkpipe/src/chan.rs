use std::ffi::c_void;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::time::Duration;

use zkpipe_sys as sys;

use crate::{Error, Ledger, Permit, Result, Stage};

/// What travels through the C channel: one boxed value with its ledger. The box keeps the
/// ledger at one address while the channel moves it (the `ledger_of` hook).
struct Slot<T> {
    ledger: Option<Ledger>,
    value: T,
}

unsafe extern "C" fn ledger_of<T>(item: *mut c_void, _ctx: *mut c_void) -> *mut sys::zkpipe_ledger {
    // SAFETY: every item of a Channel<T> is a Box<Slot<T>> the channel owns while it holds it.
    let slot = unsafe { &mut *item.cast::<Slot<T>>() };
    slot.ledger
        .as_mut()
        .map_or(std::ptr::null_mut(), Ledger::as_mut_ptr)
}

unsafe extern "C" fn destroy_item<T>(item: *mut c_void, _ctx: *mut c_void) {
    // SAFETY: as in ledger_of; the channel hands a dropped item over exactly once, its ledger
    // already closed (so the Ledger's own close is a no-op).
    drop(unsafe { Box::from_raw(item.cast::<Slot<T>>()) });
}

/// A value taken out of a [`Channel`], with its ledger (now in the channel's receive stage).
#[derive(Debug)]
pub struct Received<T> {
    pub value: T,
    pub ledger: Option<Ledger>,
}

/// A send that did not happen: everything given back, the permit still held.
pub struct SendError<T> {
    /// CLOSED, AGAIN (try_send on a full channel), TIMEDOUT, or INVAL (a closed ledger, or a
    /// receive stage the ledger's registry lacks).
    pub error: Error,
    pub value: T,
    pub ledger: Option<Ledger>,
    pub permit: Option<Permit>,
}

impl<T> std::fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SendError({:?})", self.error)
    }
}

impl<T> std::fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "send failed: {}", self.error)
    }
}

impl<T> std::error::Error for SendError<T> {}

/// A consistent copy of a channel's counters: `sent == received + dropped + queued`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct ChannelStats {
    pub sent: u64,
    pub received: u64,
    pub dropped: u64,
    pub queued: u64,
    pub capacity: u64,
    pub waiting_senders: u64,
    pub waiting_receivers: u64,
    pub closed: bool,
}

/// The bounded multi-producer, multi-consumer channel at the narrow waist, carrying values of
/// type `T`, each with an optional [`Ledger`]. On delivery into a slot the value's ledger
/// moves to [`Stage::QUEUED`], then the sender's permit is released; a receiver takes the
/// value with its ledger moved to the receive stage ([`Stage::PROVING`] unless chosen
/// otherwise). Dropping the channel drops the values still inside and closes their ledgers.
pub struct Channel<T> {
    raw: NonNull<sys::zkpipe_chan>,
    _values: PhantomData<T>,
}

// SAFETY: every zkpipe_chan function but destroy may run from any thread concurrently
// (zkpipe/chan.h); values cross threads, hence T: Send. Destroy runs from drop, when no
// other reference exists.
unsafe impl<T: Send> Send for Channel<T> {}
unsafe impl<T: Send> Sync for Channel<T> {}

type SendFn = unsafe extern "C" fn(
    *mut sys::zkpipe_chan,
    *mut c_void,
    *mut sys::zkpipe_permit,
) -> sys::zkpipe_status;

impl<T: Send> Channel<T> {
    /// A channel of `capacity` slots whose receivers put ledgers in [`Stage::PROVING`].
    /// Errors: INVAL (capacity 0), OVERFLOW, NOMEM.
    pub fn new(capacity: usize) -> Result<Channel<T>> {
        Self::with_recv_stage(capacity, Stage::PROVING)
    }

    /// A channel whose receivers put ledgers in `recv_stage`.
    pub fn with_recv_stage(capacity: usize, recv_stage: Stage) -> Result<Channel<T>> {
        let mut config = MaybeUninit::<sys::zkpipe_chan_config>::uninit();
        // SAFETY: zkpipe_chan_config_init fills in every field.
        let mut config = unsafe {
            sys::zkpipe_chan_config_init(config.as_mut_ptr(), capacity);
            config.assume_init()
        };
        config.recv_stage = recv_stage.0;
        config.ledger_of = Some(ledger_of::<T>);
        config.destroy_item = Some(destroy_item::<T>);
        let mut raw = std::ptr::null_mut();
        // SAFETY: a complete config; raw receives the channel.
        Error::check(unsafe { sys::zkpipe_chan_create(&mut raw, &config) })?;
        let raw = NonNull::new(raw).ok_or(Error::NOMEM)?;
        Ok(Channel {
            raw,
            _values: PhantomData,
        })
    }

    fn send_with(
        &self,
        value: T,
        ledger: Option<Ledger>,
        mut permit: Option<Permit>,
        f: impl FnOnce(
            *mut sys::zkpipe_chan,
            *mut c_void,
            *mut sys::zkpipe_permit,
        ) -> sys::zkpipe_status,
    ) -> std::result::Result<(), SendError<T>> {
        let item = Box::into_raw(Box::new(Slot { ledger, value }));
        let p = permit
            .as_mut()
            .map_or(std::ptr::null_mut(), |p| &mut p.raw as *mut _);
        let status = f(self.raw.as_ptr(), item.cast(), p);
        match Error::check(status) {
            // The channel owns the item now (a receiver may have it already); the permit was
            // released and emptied, so dropping it does nothing.
            Ok(()) => Ok(()),
            Err(error) => {
                // SAFETY: a refused item stays the caller's, untouched.
                let slot = unsafe { Box::from_raw(item) };
                Err(SendError {
                    error,
                    value: slot.value,
                    ledger: slot.ledger,
                    permit,
                })
            }
        }
    }

    fn send_by(
        &self,
        value: T,
        ledger: Option<Ledger>,
        permit: Option<Permit>,
        f: SendFn,
    ) -> std::result::Result<(), SendError<T>> {
        // SAFETY: a valid channel, a Box<Slot<T>> item and a valid or NULL permit.
        self.send_with(value, ledger, permit, |c, i, p| unsafe { f(c, i, p) })
    }

    /// Delivers `value` (with `ledger`, which must be open) into the channel, blocking while
    /// it is full; `permit` stays held until the value is delivered, then is released.
    /// On error everything comes back in the [`SendError`].
    pub fn send(
        &self,
        value: T,
        ledger: Option<Ledger>,
        permit: Option<Permit>,
    ) -> std::result::Result<(), SendError<T>> {
        self.send_by(value, ledger, permit, sys::zkpipe_chan_send)
    }

    /// [`send`](Self::send) without blocking: AGAIN when full.
    pub fn try_send(
        &self,
        value: T,
        ledger: Option<Ledger>,
        permit: Option<Permit>,
    ) -> std::result::Result<(), SendError<T>> {
        self.send_by(value, ledger, permit, sys::zkpipe_chan_try_send)
    }

    /// [`send`](Self::send) giving up after `timeout` with TIMEDOUT.
    pub fn send_timeout(
        &self,
        value: T,
        ledger: Option<Ledger>,
        permit: Option<Permit>,
        timeout: Duration,
    ) -> std::result::Result<(), SendError<T>> {
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: as in send_by.
        self.send_with(value, ledger, permit, |c, i, p| unsafe {
            sys::zkpipe_chan_send_timed(c, i, p, ns)
        })
    }

    fn recv_with(
        &self,
        f: impl FnOnce(*mut sys::zkpipe_chan, *mut *mut c_void) -> sys::zkpipe_status,
    ) -> Result<Received<T>> {
        let mut item = std::ptr::null_mut();
        Error::check(f(self.raw.as_ptr(), &mut item))?;
        // SAFETY: the channel hands the item over to this receiver alone; moving the open
        // ledger out of the box is allowed (zkpipe/acct.h).
        let slot = unsafe { Box::from_raw(item.cast::<Slot<T>>()) };
        Ok(Received {
            value: slot.value,
            ledger: slot.ledger,
        })
    }

    /// Takes the oldest value, blocking while the channel is empty and open; CLOSED once it
    /// is closed and drained.
    pub fn recv(&self) -> Result<Received<T>> {
        // SAFETY: a valid channel.
        self.recv_with(|c, i| unsafe { sys::zkpipe_chan_recv(c, i) })
    }

    /// [`recv`](Self::recv) without blocking: AGAIN when empty.
    pub fn try_recv(&self) -> Result<Received<T>> {
        // SAFETY: a valid channel.
        self.recv_with(|c, i| unsafe { sys::zkpipe_chan_try_recv(c, i) })
    }

    /// [`recv`](Self::recv) giving up after `timeout` with TIMEDOUT.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Received<T>> {
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: a valid channel.
        self.recv_with(|c, i| unsafe { sys::zkpipe_chan_recv_timed(c, i, ns) })
    }

    /// No more sends (blocked and later senders get CLOSED with their values back);
    /// receivers drain what is queued.
    pub fn close(&self) {
        // SAFETY: a valid channel.
        unsafe { sys::zkpipe_chan_close(self.raw.as_ptr()) }
    }

    /// Drops every value inside (their ledgers closed first); returns how many.
    pub fn clear(&self) -> u64 {
        // SAFETY: a valid channel; destroy_item drops each value.
        unsafe { sys::zkpipe_chan_clear(self.raw.as_ptr()) }
    }

    /// A consistent copy of the channel's counters.
    pub fn stats(&self) -> ChannelStats {
        // SAFETY: plain data, filled in by the call.
        let mut c: sys::zkpipe_chan_counters = unsafe { std::mem::zeroed() };
        // SAFETY: a valid channel; it fails only for NULL arguments.
        let status = unsafe { sys::zkpipe_chan_stats(self.raw.as_ptr(), &mut c) };
        debug_assert_eq!(status, sys::ZKPIPE_OK);
        ChannelStats {
            sent: c.sent,
            received: c.received,
            dropped: c.dropped,
            queued: c.queued,
            capacity: c.capacity,
            waiting_senders: c.waiting_senders,
            waiting_receivers: c.waiting_receivers,
            closed: c.closed != 0,
        }
    }
}

impl<T> Drop for Channel<T> {
    fn drop(&mut self) {
        // SAFETY: no other reference exists, so no thread is in or blocked on the channel; the
        // values inside are dropped by destroy_item.
        unsafe { sys::zkpipe_chan_destroy(self.raw.as_ptr()) }
    }
}
