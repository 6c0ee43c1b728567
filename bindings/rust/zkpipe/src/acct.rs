use std::ffi::{CStr, CString};
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

use zkpipe_sys as sys;

use crate::{Error, Result, Snapshot};

/// What a buffer is: a built-in kind or one registered by name ([`Registry::register_kind`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Kind(pub u32);

impl Kind {
    pub const ABC: Kind = Kind(sys::ZKPIPE_KIND_ABC);
    pub const AUX: Kind = Kind(sys::ZKPIPE_KIND_AUX);
    pub const INPUT: Kind = Kind(sys::ZKPIPE_KIND_INPUT);
    pub const DENSITY: Kind = Kind(sys::ZKPIPE_KIND_DENSITY);
    pub const H: Kind = Kind(sys::ZKPIPE_KIND_H);
    pub const DEVICE: Kind = Kind(sys::ZKPIPE_KIND_DEVICE);
    pub const CIRCUIT: Kind = Kind(sys::ZKPIPE_KIND_CIRCUIT);
    pub const WORKSPACE: Kind = Kind(sys::ZKPIPE_KIND_WORKSPACE);
}

/// Where an item is: a built-in stage or one registered by name
/// ([`Registry::register_stage`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Stage(pub u32);

impl Stage {
    pub const SYNTH: Stage = Stage(sys::ZKPIPE_STAGE_SYNTH);
    pub const PENDING: Stage = Stage(sys::ZKPIPE_STAGE_PENDING);
    pub const QUEUED: Stage = Stage(sys::ZKPIPE_STAGE_QUEUED);
    pub const PROVING: Stage = Stage(sys::ZKPIPE_STAGE_PROVING);
    pub const FINALIZE: Stage = Stage(sys::ZKPIPE_STAGE_FINALIZE);
}

struct RegistryInner {
    raw: NonNull<sys::zkpipe_acct>,
    owned: bool,
}

// SAFETY: every zkpipe_acct function may be called from any thread, concurrently
// (zkpipe/acct.h); destroy runs once, from the last handle's drop.
unsafe impl Send for RegistryInner {}
unsafe impl Sync for RegistryInner {}

impl Drop for RegistryInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: made by zkpipe_acct_create; every ledger holds a handle, so none is open.
            unsafe { sys::zkpipe_acct_destroy(self.raw.as_ptr()) }
        }
    }
}

/// A registry of counters: the process-wide default one ([`Registry::global`]) or a private
/// one ([`Registry::new`]). A cheap handle: clones share the registry, which a private
/// registry's last handle frees. Every [`Ledger`] keeps a handle, so a registry outlives its
/// ledgers.
#[derive(Clone)]
pub struct Registry {
    inner: Arc<RegistryInner>,
}

impl Registry {
    /// A new private registry with the built-in kinds and stages (about 8 KiB).
    pub fn new() -> Result<Registry> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: NULL allocator selects the C library; raw receives the registry.
        Error::check(unsafe { sys::zkpipe_acct_create(std::ptr::null(), &mut raw) })?;
        let raw = NonNull::new(raw).ok_or(Error::NOMEM)?;
        Ok(Registry {
            inner: Arc::new(RegistryInner { raw, owned: true }),
        })
    }

    /// The process-wide default registry, the one any C code of the process can read
    /// (`zkpipe_acct_default`). Never freed.
    pub fn global() -> Registry {
        static GLOBAL: OnceLock<Registry> = OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                // SAFETY: never NULL (zkpipe/acct.h).
                let raw = unsafe { NonNull::new_unchecked(sys::zkpipe_acct_default()) };
                Registry {
                    inner: Arc::new(RegistryInner { raw, owned: false }),
                }
            })
            .clone()
    }

    /// The C registry, for calls through `zkpipe_sys`; valid while this handle lives.
    pub fn as_ptr(&self) -> *mut sys::zkpipe_acct {
        self.inner.raw.as_ptr()
    }

    /// Registers a kind by name (1 to 31 characters of `[a-z0-9_]`), or finds it when it
    /// exists. Errors: INVAL (a bad name), LIMIT (16 kinds in all).
    pub fn register_kind(&self, name: &str) -> Result<Kind> {
        let name = CString::new(name).map_err(|_| Error::INVAL)?;
        let mut id = 0;
        // SAFETY: a valid registry and NUL-terminated name.
        Error::check(unsafe {
            sys::zkpipe_acct_register_kind(self.as_ptr(), name.as_ptr(), &mut id)
        })?;
        Ok(Kind(id))
    }

    /// Registers a stage by name, as [`register_kind`](Self::register_kind) (12 stages in all).
    pub fn register_stage(&self, name: &str) -> Result<Stage> {
        let name = CString::new(name).map_err(|_| Error::INVAL)?;
        let mut id = 0;
        // SAFETY: as above.
        Error::check(unsafe {
            sys::zkpipe_acct_register_stage(self.as_ptr(), name.as_ptr(), &mut id)
        })?;
        Ok(Stage(id))
    }

    /// The name of a registered kind.
    pub fn kind_name(&self, kind: Kind) -> Option<&str> {
        // SAFETY: the string lives as long as the registry, which &self keeps.
        unsafe { name(sys::zkpipe_acct_kind_name(self.as_ptr(), kind.0)) }
    }

    /// The name of a registered stage.
    pub fn stage_name(&self, stage: Stage) -> Option<&str> {
        // SAFETY: as for kind_name.
        unsafe { name(sys::zkpipe_acct_stage_name(self.as_ptr(), stage.0)) }
    }

    /// A consistent copy of every counter, as of one instant.
    pub fn snapshot(&self) -> Result<Snapshot> {
        Snapshot::take(self)
    }

    /// Sets every peak to its current live value.
    pub fn reset_peaks(&self) -> Result<()> {
        // SAFETY: a valid registry.
        Error::check(unsafe { sys::zkpipe_acct_reset_peaks(self.as_ptr()) })
    }
}

/// # Safety
/// `p` is NULL or a NUL-terminated string living as long as `'a`.
unsafe fn name<'a>(p: *const std::ffi::c_char) -> Option<&'a str> {
    // SAFETY: the caller's promise.
    (!p.is_null())
        .then(|| unsafe { CStr::from_ptr(p) }.to_str().ok())
        .flatten()
}

/// One in-flight item's accounting: the stage it is in and the buffers charged to it. Every
/// counter of the registry is the sum over its open ledgers. Closed (everything it still
/// holds released) on drop.
///
/// A `Ledger` moves like any Rust value: zkpipe documents that an open ledger may be moved
/// (memcpy) between calls. It has one owner at a time (`&mut self` for every change); hand it
/// to another thread by moving it, e.g. through a [`Channel`](crate::Channel).
pub struct Ledger {
    raw: sys::zkpipe_ledger,
    registry: Registry,
}

// SAFETY: a ledger may be used from any thread by its one owner (zkpipe/acct.h); &self
// methods only read it.
unsafe impl Send for Ledger {}
unsafe impl Sync for Ledger {}

impl Ledger {
    /// Opens a ledger in `stage` of `registry`, with nothing charged. Errors: INVAL (an
    /// unregistered stage).
    pub fn open(registry: &Registry, stage: Stage) -> Result<Ledger> {
        // SAFETY: zkpipe_ledger is plain data; all-zero is a closed ledger.
        let mut ledger = Ledger {
            raw: unsafe { std::mem::zeroed() },
            registry: registry.clone(),
        };
        // SAFETY: a valid registry; the ledger's storage is ours.
        Error::check(unsafe {
            sys::zkpipe_ledger_open(&mut ledger.raw, registry.as_ptr(), stage.0)
        })?;
        Ok(ledger)
    }

    /// One more live buffer of `kind` with `bytes` bytes. Errors: INVAL (closed ledger or
    /// unregistered kind), OVERFLOW.
    pub fn charge(&mut self, kind: Kind, bytes: u64) -> Result<()> {
        // SAFETY: our ledger; no other call on it can run (&mut self).
        Error::check(unsafe { sys::zkpipe_ledger_charge(&mut self.raw, kind.0, bytes) })
    }

    /// One live buffer of `kind` with `bytes` bytes is gone. Errors: INVAL, UNDERFLOW (more
    /// than was charged: then nothing changes).
    pub fn release(&mut self, kind: Kind, bytes: u64) -> Result<()> {
        // SAFETY: as for charge.
        Error::check(unsafe { sys::zkpipe_ledger_release(&mut self.raw, kind.0, bytes) })
    }

    /// Moves the item with all its buffers to `stage`, as one step for snapshots.
    pub fn move_to(&mut self, stage: Stage) -> Result<()> {
        // SAFETY: as for charge.
        Error::check(unsafe { sys::zkpipe_ledger_move(&mut self.raw, stage.0) })
    }

    /// The stage the item is in.
    pub fn stage(&self) -> Stage {
        // SAFETY: our ledger, only read.
        Stage(unsafe { sys::zkpipe_ledger_stage(&self.raw) })
    }

    /// Whether the ledger is open (it is until closed, here or by a channel that dropped it).
    pub fn is_open(&self) -> bool {
        // SAFETY: as for stage.
        unsafe { sys::zkpipe_ledger_is_open(&self.raw) != 0 }
    }

    /// The registry the ledger counts in.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Releases what is still charged and removes the item from its stage (what drop does).
    pub fn close(mut self) {
        self.close_now();
    }

    fn close_now(&mut self) {
        // SAFETY: our ledger; closing a closed ledger is a no-op.
        unsafe { sys::zkpipe_ledger_close(&mut self.raw) }
    }

    /// The C ledger, for calls through `zkpipe_sys` and for channel hooks.
    pub fn as_mut_ptr(&mut self) -> *mut sys::zkpipe_ledger {
        &mut self.raw
    }
}

impl Drop for Ledger {
    fn drop(&mut self) {
        self.close_now();
    }
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("open", &self.is_open())
            .field("stage", &self.stage())
            .finish()
    }
}
