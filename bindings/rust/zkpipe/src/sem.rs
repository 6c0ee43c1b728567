use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

use zkpipe_sys as sys;

use crate::{Error, Result};

struct SemInner {
    raw: NonNull<sys::zkpipe_sem>,
}

// SAFETY: every zkpipe_sem function but destroy may run from any thread concurrently
// (zkpipe/sem.h); destroy runs from the last handle's drop, when no thread can be waiting
// (a waiter holds a handle) and no permit is left (each holds a handle).
unsafe impl Send for SemInner {}
unsafe impl Sync for SemInner {}

impl Drop for SemInner {
    fn drop(&mut self) {
        // SAFETY: made by zkpipe_sem_create; see above.
        unsafe { sys::zkpipe_sem_destroy(self.raw.as_ptr()) }
    }
}

/// A FIFO counting semaphore whose acquire takes n units: the partition semaphore (n = 1) or
/// a byte budget (n = bytes). A cheap handle; clones share the semaphore, which lives until
/// the last handle and the last [`Permit`] are gone.
#[derive(Clone)]
pub struct Semaphore {
    inner: Arc<SemInner>,
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Semaphore {
    /// A semaphore of `capacity` units, all available. Errors: INVAL (capacity 0).
    pub fn new(capacity: u64) -> Result<Semaphore> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: NULL allocator selects the C library.
        Error::check(unsafe { sys::zkpipe_sem_create(&mut raw, capacity, std::ptr::null()) })?;
        let raw = NonNull::new(raw).ok_or(Error::NOMEM)?;
        Ok(Semaphore {
            inner: Arc::new(SemInner { raw }),
        })
    }

    fn ptr(&self) -> *mut sys::zkpipe_sem {
        self.inner.raw.as_ptr()
    }

    fn permit_with(
        &self,
        f: impl FnOnce(*mut sys::zkpipe_sem, *mut sys::zkpipe_permit) -> sys::zkpipe_status,
    ) -> Result<Permit> {
        // SAFETY: plain data; all-zero is an empty permit.
        let mut raw: sys::zkpipe_permit = unsafe { std::mem::zeroed() };
        Error::check(f(self.ptr(), &mut raw))?;
        let sem = (!raw.sem.is_null()).then(|| self.clone());
        Ok(Permit { raw, sem })
    }

    /// Takes `units`, blocking until they are available and every earlier waiter was served.
    /// 0 units gives an empty permit at once. Errors: TOOBIG (more than the capacity),
    /// CLOSED.
    pub fn acquire(&self, units: u64) -> Result<Permit> {
        // SAFETY: a valid semaphore and permit.
        self.permit_with(|s, p| unsafe { sys::zkpipe_sem_acquire(s, p, units) })
    }

    /// [`acquire`](Self::acquire) without blocking: AGAIN when it would wait.
    pub fn try_acquire(&self, units: u64) -> Result<Permit> {
        // SAFETY: as for acquire.
        self.permit_with(|s, p| unsafe { sys::zkpipe_sem_try_acquire(s, p, units) })
    }

    /// [`acquire`](Self::acquire) giving up after `timeout` with TIMEDOUT.
    pub fn acquire_timeout(&self, units: u64, timeout: Duration) -> Result<Permit> {
        let ns = duration_ns(timeout);
        // SAFETY: as for acquire.
        self.permit_with(|s, p| unsafe { sys::zkpipe_sem_acquire_timed(s, p, units, ns) })
    }

    /// Every waiter and every later acquire gets CLOSED; permits can still be released.
    pub fn close(&self) {
        // SAFETY: a valid semaphore.
        unsafe { sys::zkpipe_sem_close(self.ptr()) }
    }

    /// Units available now (stale as soon as returned).
    pub fn available(&self) -> u64 {
        // SAFETY: a valid semaphore.
        unsafe { sys::zkpipe_sem_available(self.ptr()) }
    }

    /// Total units.
    pub fn capacity(&self) -> u64 {
        // SAFETY: a valid semaphore.
        unsafe { sys::zkpipe_sem_capacity(self.ptr()) }
    }

    /// Threads waiting now.
    pub fn waiters(&self) -> u64 {
        // SAFETY: a valid semaphore.
        unsafe { sys::zkpipe_sem_waiters(self.ptr()) }
    }
}

/// What one acquire took; released on drop, or by [`Channel::send`](crate::Channel::send)
/// once the item it came with is delivered.
pub struct Permit {
    pub(crate) raw: sys::zkpipe_permit,
    sem: Option<Semaphore>,
}

// SAFETY: a permit may be released from any thread by its one owner (zkpipe/sem.h).
unsafe impl Send for Permit {}
unsafe impl Sync for Permit {}

impl Permit {
    /// The units held (0 for an empty permit).
    pub fn units(&self) -> u64 {
        if self.is_held() {
            self.raw.units
        } else {
            0
        }
    }

    /// Whether the permit still holds its units.
    pub fn is_held(&self) -> bool {
        // SAFETY: our permit, only read.
        unsafe { sys::zkpipe_permit_is_held(&self.raw) != 0 }
    }

    /// Gives the units back now (what drop does).
    pub fn release(mut self) -> Result<()> {
        self.release_now()
    }

    fn release_now(&mut self) -> Result<()> {
        if !self.is_held() {
            return Ok(());
        }
        // SAFETY: a held permit of a semaphore kept alive by self.sem.
        Error::check(unsafe { sys::zkpipe_permit_release(&mut self.raw) })
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let _ = self.release_now();
        debug_assert!(self.sem.is_some() || self.raw.sem.is_null());
    }
}

impl std::fmt::Debug for Permit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Permit")
            .field("units", &self.units())
            .field("held", &self.is_held())
            .finish()
    }
}
