//! The engine's built-in circom partitions (`zkpipe/stages.h`): witness files proved with a
//! zkey through the engine's synthesis workers, narrow waist and provers, every buffer
//! accounted, under the engine's permits and byte budget, beside any host partitions.

use std::ffi::CString;
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

use zkpipe_sys as sys;

use crate::engine::{job_result, submit_keeping, JobHandle};
use crate::groth16::{c_path, with_detail};
use crate::{
    Curve, DetailedError, Engine, Error, PartitionResult, Proof, Result, Scalar, Stages, ZkeyInfo,
    ZkeyOptions,
};

/// A zkey shared by the partitions proved with it (`zkpipe_zkey_source`): mapped and checked
/// once, its verifying key prepared; every proof is checked against that key before it is
/// returned. Immutable; any number of jobs on any engines may use it at once.
pub struct ZkeySource {
    raw: NonNull<sys::zkpipe_zkey_source>,
    info: ZkeyInfo,
}

// SAFETY: immutable once made (zkpipe/stages.h); destroyed from drop, when no job holds it
// (each holds an Arc).
unsafe impl Send for ZkeySource {}
unsafe impl Sync for ZkeySource {}

impl ZkeySource {
    /// Maps and checks the zkey at `path` as [`crate::Zkey::open`] does; it stays mapped until
    /// the source is dropped. Errors: those of `Zkey::open`, with the detail line.
    pub fn open(
        path: impl AsRef<Path>,
        opts: &ZkeyOptions<'_>,
    ) -> std::result::Result<ZkeySource, DetailedError> {
        let path = c_path(path.as_ref())?;
        let io = opts.raw();
        let mut raw = std::ptr::null_mut();
        with_detail(|d, cap| {
            // SAFETY: a NUL-terminated path, initialised options, no key cache.
            unsafe {
                sys::zkpipe_zkey_source_open(
                    &mut raw,
                    d,
                    cap,
                    path.as_ptr(),
                    &io,
                    std::ptr::null_mut(),
                )
            }
        })?;
        let raw = NonNull::new(raw).ok_or(Error::NOMEM)?;
        // SAFETY: plain data filled by the library.
        let mut info: sys::zkpipe_zkey_info = unsafe { std::mem::zeroed() };
        // SAFETY: a live source.
        let st = unsafe { sys::zkpipe_zkey_source_info(&mut info, raw.as_ptr()) };
        match Error::check(st).and_then(|()| ZkeyInfo::from_raw(&info).ok_or(Error::STATE)) {
            Ok(info) => Ok(ZkeySource { raw, info }),
            Err(e) => {
                // SAFETY: made above, not shared.
                unsafe { sys::zkpipe_zkey_source_destroy(raw.as_ptr()) };
                Err(e.into())
            }
        }
    }

    pub fn info(&self) -> ZkeyInfo {
        self.info
    }
}

impl Drop for ZkeySource {
    fn drop(&mut self) {
        // SAFETY: made by zkpipe_zkey_source_open; no job uses it (each holds an Arc).
        unsafe { sys::zkpipe_zkey_source_destroy(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for ZkeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ZkeySource({:?})", self.info)
    }
}

/// A job of circom partitions ([`Engine::submit_zkey`]): one witness file each. Dropping it
/// cancels it if it has not finished, waits for it and frees it (from one of its engine's
/// stage operations: cancels it, and it is freed as it ends).
pub struct ZkeyJob {
    handle: JobHandle,
    keep: Arc<ZkeyKeep>,
    num_public: usize,
    curve: Curve,
}

/// What the C partitions point at, shared with the job's done callback so that it lives until
/// the last partition has ended: the source, the paths, the partitions themselves, and the
/// public signals the engine writes (num_public per partition; read only once the job has
/// finished).
struct ZkeyKeep {
    _source: Arc<ZkeySource>,
    _paths: Box<[CString]>,
    parts: Box<[sys::zkpipe_zkey_partition]>,
    public: *mut Scalar,
    public_len: usize,
}

// SAFETY: the partitions and paths are read-only C data; the public signals are written by
// the engine before the job finishes and only read after (zkpipe_job_result refuses an
// unfinished job, and its wait orders the writes before the read).
unsafe impl Send for ZkeyKeep {}
unsafe impl Sync for ZkeyKeep {}

impl Drop for ZkeyKeep {
    fn drop(&mut self) {
        // SAFETY: the allocation made at submit; the last holder, so the job has ended and
        // nothing writes it.
        drop(unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                self.public,
                self.public_len,
            ))
        });
    }
}

impl<S: Stages> Engine<S> {
    /// Queues a job of circom partitions: each witness file proved with `source`'s zkey by the
    /// engine's built-in zkey stage operations (`zkpipe_zkey_stage_ops`), started in order,
    /// with the same permits, budget and narrow waist as every other job of this engine.
    /// A partition's failure (a missing or bad file, a witness of another curve or size) is
    /// its result, with a detail line naming the file. Errors: INVAL (no witness, or a path
    /// that is not UTF-8 or holds a NUL byte), CLOSED, NOMEM, OVERFLOW.
    pub fn submit_zkey<P: AsRef<Path>>(
        &self,
        source: &Arc<ZkeySource>,
        witnesses: &[P],
    ) -> Result<ZkeyJob> {
        if witnesses.is_empty() {
            return Err(Error::INVAL);
        }
        let paths: Box<[CString]> = witnesses
            .iter()
            .map(|p| c_path(p.as_ref()).map_err(|e| e.error))
            .collect::<Result<_>>()?;
        let num_public = source.info.num_public as usize;
        let public_len = num_public.checked_mul(paths.len()).ok_or(Error::OVERFLOW)?;
        let public = Box::into_raw(vec![Scalar::default(); public_len].into_boxed_slice());
        let public = public.cast::<Scalar>();
        let parts: Box<[sys::zkpipe_zkey_partition]> = paths
            .iter()
            .enumerate()
            .map(|(i, path)| sys::zkpipe_zkey_partition {
                source: source.raw.as_ptr(),
                wtns_path: path.as_ptr(),
                // SAFETY: within the allocation of public_len scalars (i < paths.len()).
                public_out: unsafe { public.add(i * num_public) }.cast(),
                insecure_blinding: std::ptr::null(),
            })
            .collect();
        // SAFETY: the engine's table of the built-in zkey operations, static.
        let ops = unsafe { sys::zkpipe_zkey_stage_ops() };
        let raw_parts: Vec<sys::zkpipe_partition> = parts
            .iter()
            .map(|p| sys::zkpipe_partition {
                ops,
                ctx: (p as *const sys::zkpipe_zkey_partition).cast_mut().cast(),
                reserved: [0; 2],
            })
            .collect();
        let keep = Arc::new(ZkeyKeep {
            _source: source.clone(),
            _paths: paths,
            parts,
            public,
            public_len,
        });
        // SAFETY: the partitions point at the static table and at what `keep` owns (source,
        // paths, partitions, the public signals).
        let handle = unsafe { submit_keeping(self.raw(), &raw_parts, keep.clone()) }?;
        Ok(ZkeyJob {
            handle,
            keep,
            num_public,
            curve: source.info.curve,
        })
    }
}

impl ZkeyJob {
    /// The number of partitions.
    pub fn len(&self) -> usize {
        self.keep.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keep.parts.is_empty()
    }

    /// Blocks until every partition has ended. Errors: STATE from one of the stage operations
    /// of the engine running it (it could wait for itself).
    pub fn wait(&self) -> Result<()> {
        self.handle.wait()
    }

    /// `wait` giving up after `timeout`: TIMEDOUT, STATE (as `wait`).
    pub fn wait_timeout(&self, timeout: Duration) -> Result<()> {
        self.handle.wait_timeout(timeout)
    }

    /// Partitions that have not started proving end with CANCELED; proofs under way finish.
    pub fn cancel(&self) {
        self.handle.cancel()
    }

    /// What became of partition `index`; its detail line names the witness file. Errors:
    /// INVAL (out of range), STATE (the job has not finished: wait first).
    pub fn result(&self, index: usize) -> Result<PartitionResult> {
        job_result(self.handle.0, index).map(|(r, _)| r)
    }

    /// Partition `index`'s proof, checked against the zkey's verifying key, and its public
    /// signals (what snarkjs writes as public.json). Errors: the partition's own failure
    /// (its detail line is in [`result`](Self::result)), INVAL, STATE (not finished).
    pub fn proof(&self, index: usize) -> Result<(Proof, &[Scalar])> {
        let (result, raw) = job_result(self.handle.0, index)?;
        result.status?;
        // SAFETY: zeroed is a valid zkpipe_groth16_proof (plain bytes and a size).
        let mut out: sys::zkpipe_groth16_proof = unsafe { std::mem::zeroed() };
        // SAFETY: `raw` is the finished job's result, whose output the job (alive: self holds
        // it) still owns; zkpipe_stage_proof only copies the proof out of it.
        Error::check(unsafe { sys::zkpipe_stage_proof(&mut out, &raw) })?;
        let proof = Proof::from_raw(out).ok_or(Error::STATE)?;
        if proof.curve() != self.curve {
            return Err(Error::STATE);
        }
        // SAFETY: the job has finished (job_result would have refused it otherwise), so the
        // engine wrote these num_public scalars and writes nothing more; within the allocation.
        let public = unsafe {
            std::slice::from_raw_parts(
                self.keep.public.add(index * self.num_public),
                self.num_public,
            )
        };
        Ok((proof, public))
    }
}

impl std::fmt::Debug for ZkeyJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ZkeyJob({} partitions)", self.len())
    }
}
