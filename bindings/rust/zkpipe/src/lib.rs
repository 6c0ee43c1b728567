//! Safe wrappers of zkpipe's accounting and narrow waist for Rust hosts.
//!
//! - [`Registry`]: counters per (stage, kind), the process-wide default one or a private one.
//! - [`Ledger`]: one in-flight item's accounting; `charge`, `release`, `move_to`, closed on drop.
//! - [`Semaphore`] and [`Permit`]: counts or bytes, FIFO; a permit is released on drop.
//! - [`Channel<T>`]: the bounded channel at the narrow waist, carrying Rust values with their
//!   ledgers; a permit handed to [`Channel::send`] is held until the value is delivered.
//! - [`Snapshot`]: a consistent copy of a registry's counters, with the summary, JSON and
//!   Prometheus exporters.
//! - [`Engine`]: the two-phase engine running a host's stage operations (the [`Stages`]
//!   trait): synthesis workers, the narrow waist, prover workers, [`Job`]s with their results.
//! - [`Zkey`], [`Witness`], [`Proof`], [`VerifyingKey`] and [`Pool`]: Groth16 proofs from
//!   circom/snarkjs files (`.zkey`, `.wtns`), with snarkjs's JSON for keys, proofs and public
//!   signals; failures carry the library's detail line ([`DetailedError`]).
//! - [`ZkeySource`] and [`Engine::submit_zkey`]: witness files proved with a zkey through the
//!   engine's built-in circom partitions, a [`ZkeyJob`]; [`NoStages`] for an engine that runs
//!   nothing else.
//!
//! - [`http`]: the embedded HTTP endpoint serving a registry and any engine on `/metrics` and
//!   `/status`, and the same text without a server for a host's own HTTP stack.
//!
//! Everything here is a thin layer over the C library (see `zkpipe-sys`); each type's C header
//! documents the guarantees. Errors are the library's status codes ([`Error`]).
#![deny(unsafe_op_in_unsafe_fn)]
// SendError gives the value, its ledger and the permit back, as std's channels give the value.
#![allow(clippy::result_large_err)]

mod acct;
mod chan;
mod engine;
mod error;
mod groth16;
pub mod http;
mod sem;
mod snapshot;
mod stages;

pub use acct::{Kind, Ledger, Registry, Stage};
pub use chan::{Channel, ChannelStats, Received, SendError};
pub use engine::{
    Backend, Call, Concurrency, Engine, EngineConfig, EngineStats, Job, NoStages, PartitionResult,
    Release, Reservation, StageError, Stages,
};
pub use error::{Error, Result};
pub use groth16::{
    public_from_snarkjs_json, public_to_snarkjs_json, Curve, DetailedError, Pool, Proof, Scalar,
    VerifyingKey, Witness, Zkey, ZkeyInfo, ZkeyOptions,
};
pub use sem::{Permit, Semaphore};
pub use snapshot::{KindCounters, Snapshot, StageCounters};
pub use stages::{ZkeyJob, ZkeySource};
pub use zkpipe_sys as sys;

/// The library's version as built, e.g. "0.1.0".
pub fn version() -> &'static str {
    // SAFETY: a static NUL-terminated string (zkpipe.h).
    unsafe { error::static_str(sys::zkpipe_version_string()) }
}
