use std::ffi::{c_char, CStr};

use zkpipe_sys as sys;

use crate::{Error, Kind, Registry, Result, Stage};

/// Counters of one stage in a [`Snapshot`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct StageCounters {
    /// Open ledgers in the stage.
    pub live_items: u64,
    /// Highest `live_items` since the registry was made or its peaks were reset.
    pub peak_items: u64,
    /// Items that entered the stage, ever.
    pub entered: u64,
    /// Items that left it, ever: `entered - left == live_items`.
    pub left: u64,
    /// Live buffers and bytes, over all kinds.
    pub live_buffers: u64,
    pub live_bytes: u64,
}

/// Counters of one (stage, kind) pair in a [`Snapshot`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct KindCounters {
    pub live_buffers: u64,
    pub live_bytes: u64,
    pub peak_buffers: u64,
    pub peak_bytes: u64,
}

/// A consistent copy of a registry's counters as of one instant: no item in two stages or in
/// none, live <= peak everywhere. Plain values (about 8 KiB, boxed).
#[derive(Clone)]
pub struct Snapshot {
    raw: Box<sys::zkpipe_snapshot>,
}

type Exporter = unsafe extern "C" fn(
    *mut c_char,
    usize,
    *mut usize,
    *const sys::zkpipe_snapshot,
) -> sys::zkpipe_status;

impl Snapshot {
    pub(crate) fn take(registry: &Registry) -> Result<Snapshot> {
        // SAFETY: plain data, filled in by the call below.
        let mut raw: Box<sys::zkpipe_snapshot> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: a valid registry and a snapshot of the C size.
        Error::check(unsafe { sys::zkpipe_acct_snapshot(registry.as_ptr(), &mut *raw) })?;
        Ok(Snapshot { raw })
    }

    /// Open ledgers, over all stages.
    pub fn live_items(&self) -> u64 {
        self.raw.live_items
    }

    /// Bytes charged and not released, over all stages and kinds.
    pub fn live_bytes(&self) -> u64 {
        self.raw.live_bytes
    }

    /// Items in synth, pending and queued: what an engine's `bound` (permits + capacity) is
    /// about (`zkpipe_snapshot_in_waist`).
    pub fn in_waist_items(&self) -> u64 {
        // SAFETY: a complete snapshot, read only.
        unsafe { sys::zkpipe_snapshot_in_waist(&*self.raw) }
    }

    /// `in_waist_items` plus the items in proving and finalize: the partitions holding
    /// buffers, what an engine's `resident_bound` is about (`zkpipe_snapshot_resident`).
    pub fn resident_items(&self) -> u64 {
        // SAFETY: as above.
        unsafe { sys::zkpipe_snapshot_resident(&*self.raw) }
    }

    /// Highest `live_bytes` since the registry was made or its peaks were reset.
    pub fn peak_bytes(&self) -> u64 {
        self.raw.peak_bytes
    }

    /// Every registered stage, in id order.
    pub fn stages(&self) -> impl Iterator<Item = Stage> {
        (0..self.raw.stage_count).map(Stage)
    }

    /// Every registered kind, in id order.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> {
        (0..self.raw.kind_count).map(Kind)
    }

    /// A stage's name, None when not registered.
    pub fn stage_name(&self, stage: Stage) -> Option<&str> {
        (stage.0 < self.raw.stage_count).then(|| text(&self.raw.stage_names[stage.0 as usize]))
    }

    /// A kind's name, None when not registered.
    pub fn kind_name(&self, kind: Kind) -> Option<&str> {
        (kind.0 < self.raw.kind_count).then(|| text(&self.raw.kind_names[kind.0 as usize]))
    }

    /// The stage named `name`.
    pub fn stage_named(&self, name: &str) -> Option<Stage> {
        self.stages().find(|&s| self.stage_name(s) == Some(name))
    }

    /// The kind named `name`.
    pub fn kind_named(&self, name: &str) -> Option<Kind> {
        self.kinds().find(|&k| self.kind_name(k) == Some(name))
    }

    /// One stage's counters, None when not registered.
    pub fn stage(&self, stage: Stage) -> Option<StageCounters> {
        (stage.0 < self.raw.stage_count).then(|| {
            let s = &self.raw.stage[stage.0 as usize];
            StageCounters {
                live_items: s.live_items,
                peak_items: s.peak_items,
                entered: s.entered,
                left: s.left,
                live_buffers: s.live_buffers,
                live_bytes: s.live_bytes,
            }
        })
    }

    /// One (stage, kind) pair's counters, None when either is not registered.
    pub fn kind(&self, stage: Stage, kind: Kind) -> Option<KindCounters> {
        (stage.0 < self.raw.stage_count && kind.0 < self.raw.kind_count).then(|| {
            let k = &self.raw.stage[stage.0 as usize].kind[kind.0 as usize];
            KindCounters {
                live_buffers: k.live_buffers,
                live_bytes: k.live_bytes,
                peak_buffers: k.peak_buffers,
                peak_bytes: k.peak_bytes,
            }
        })
    }

    /// One human line: items and live bytes per stage, then live and peak bytes, e.g.
    /// "synth=1 (4.0 KiB) pending=0 (0 B) ... live=4.0 KiB peak=4.0 KiB".
    pub fn summary(&self) -> Result<String> {
        self.export(sys::zkpipe_snapshot_summary)
    }

    /// One JSON object and a newline (zkpipe/acct.h's zkpipe_snapshot_json).
    pub fn json(&self) -> Result<String> {
        self.export(sys::zkpipe_snapshot_json)
    }

    /// Prometheus text exposition, format 0.0.4 (zkpipe/acct.h's zkpipe_snapshot_prometheus).
    pub fn prometheus(&self) -> Result<String> {
        self.export(sys::zkpipe_snapshot_prometheus)
    }

    /// The C snapshot, for calls through `zkpipe_sys`.
    pub fn as_raw(&self) -> &sys::zkpipe_snapshot {
        &self.raw
    }

    fn export(&self, f: Exporter) -> Result<String> {
        let mut len = 0;
        // SAFETY: cap 0 with a NULL buffer sizes the text.
        Error::check(unsafe { f(std::ptr::null_mut(), 0, &mut len, &*self.raw) })?;
        let mut buf = vec![0u8; len + 1];
        // SAFETY: buf has len + 1 bytes.
        Error::check(unsafe { f(buf.as_mut_ptr().cast(), buf.len(), &mut len, &*self.raw) })?;
        buf.truncate(len);
        String::from_utf8(buf).map_err(|_| Error::INVAL)
    }
}

fn text(name: &[c_char]) -> &str {
    // SAFETY: the names are NUL-terminated within their arrays (zkpipe/acct.h): the slice
    // holds the NUL, so the read stays inside it.
    let bytes = unsafe { std::slice::from_raw_parts(name.as_ptr().cast::<u8>(), name.len()) };
    CStr::from_bytes_until_nul(bytes)
        .ok()
        .and_then(|c| c.to_str().ok())
        .unwrap_or("")
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.summary() {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<snapshot: {e}>"),
        }
    }
}
