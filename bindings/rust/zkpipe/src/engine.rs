use std::ffi::{c_void, CStr};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use zkpipe_sys as sys;

use crate::{Error, Kind, Registry, Result, Stage};

/// Where the built-in provers run (`zkpipe/backend.h`). The engine passes its configured
/// backend to the stage operations unresolved ([`Call::backend`]) and never loads the CUDA
/// plug-in itself: a host's own stages may resolve it, or ignore it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Backend {
    /// CUDA when its plug-in is there and a device is usable, else the CPU.
    Auto,
    Cpu,
    Cuda,
}

impl Backend {
    pub(crate) fn raw(self) -> sys::zkpipe_backend {
        match self {
            Backend::Auto => sys::ZKPIPE_BACKEND_AUTO,
            Backend::Cpu => sys::ZKPIPE_BACKEND_CPU,
            Backend::Cuda => sys::ZKPIPE_BACKEND_CUDA,
        }
    }

    fn from_raw(raw: sys::zkpipe_backend) -> Backend {
        match raw {
            sys::ZKPIPE_BACKEND_CPU => Backend::Cpu,
            sys::ZKPIPE_BACKEND_CUDA => Backend::Cuda,
            _ => Backend::Auto,
        }
    }
}

/// When a synthesis worker gives its partition permit back (`zkpipe_release`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Release {
    /// Once the channel has taken the item: the narrow waist's bound holds (the default).
    Delivery,
    /// Before sending: an experiment that reproduces the pile-up, never for production.
    Early,
}

/// How a partition's share of the byte budget is held (`zkpipe_reservation`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Reservation {
    /// It follows the partition's ledger: bytes freed (a, b, c once h is computed) go back to
    /// the budget at once, so the next synthesis may start (the default).
    Follow,
    /// Held whole until the partition ends: for comparison.
    Whole,
}

/// How many partitions are admitted to synthesis (`zkpipe_concurrency`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Concurrency {
    /// `permits` of them, always (the default).
    Fixed,
    /// The engine chooses, within [1, synth_workers], starting at `permits`, so that the
    /// provers are kept fed (zkpipe/engine.h says the rule); [`EngineStats::permits_admitted`]
    /// shows its choice. Without a byte budget it takes half of MemAvailable at creation.
    Auto,
}

/// The engine's settings (`zkpipe_engine_config`); `Default` gives the C defaults: 2 synthesis
/// workers, 2 permits, no byte budget, capacity 2, 1 prover worker of 1 thread, backend auto,
/// release on delivery, reservations that follow the ledgers, fixed concurrency, the
/// process-wide registry.
#[derive(Clone)]
pub struct EngineConfig {
    pub synth_workers: u32,
    pub permits: u64,
    /// The byte budget over all in-flight partitions, by their estimates; 0: none.
    pub budget_bytes: u64,
    pub capacity: usize,
    pub prover_workers: u32,
    pub prover_threads: u32,
    pub backend: Backend,
    pub release: Release,
    pub reservation: Reservation,
    pub concurrency: Concurrency,
    /// The registry the partitions' ledgers count in; `None`: [`Registry::global`].
    pub registry: Option<Registry>,
    /// The most partitions a prover worker holds at once (1..=1024): with more, and
    /// [`Stages::BATCHED`], a worker takes what else is ready in the channel and proves it in
    /// one [`Stages::prove_batch`]; the resident bound becomes bound + prover_workers *
    /// max_batch.
    pub max_batch: u32,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            synth_workers: 2,
            permits: 2,
            budget_bytes: 0,
            capacity: 2,
            prover_workers: 1,
            prover_threads: 1,
            backend: Backend::Auto,
            release: Release::Delivery,
            reservation: Reservation::Follow,
            concurrency: Concurrency::Fixed,
            registry: None,
            max_batch: 1,
        }
    }
}

/// A stage operation's failure: the status the partition ends with and the line its result
/// carries (`zkpipe_partition_result.detail`, cut to 255 bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageError {
    pub error: Error,
    pub detail: String,
}

impl StageError {
    pub fn new(error: Error, detail: impl Into<String>) -> StageError {
        StageError {
            error,
            detail: detail.into(),
        }
    }
}

impl From<Error> for StageError {
    fn from(error: Error) -> StageError {
        StageError {
            error,
            detail: String::new(),
        }
    }
}

/// What a stage operation is given (`zkpipe_stage_call`), for the duration of the call: which
/// partition, and its ledger to charge what it keeps and release what it frees. Not `Send`:
/// only the thread the operation runs on may touch the ledger.
pub struct Call<'a> {
    raw: &'a sys::zkpipe_stage_call,
    _not_send: PhantomData<*mut ()>,
}

impl Call<'_> {
    /// The partition's index in its job.
    pub fn partition(&self) -> usize {
        self.raw.partition
    }

    /// The job's number, from 1.
    pub fn job(&self) -> u64 {
        self.raw.job
    }

    /// The index of the calling worker among those of its kind.
    pub fn worker(&self) -> u32 {
        self.raw.worker
    }

    /// The engine's configured backend, unresolved (Auto too).
    pub fn backend(&self) -> Backend {
        Backend::from_raw(self.raw.backend)
    }

    /// The threads of each prover worker's pool.
    pub fn prover_threads(&self) -> u32 {
        self.raw.prover_threads
    }

    /// Whether the call has the partition's ledger: in synthesize and prove; not in estimate,
    /// nor in discard once the engine has closed the ledger (its charges are gone then).
    pub fn has_ledger(&self) -> bool {
        !self.raw.ledger.is_null()
    }

    /// The stage the partition's ledger is in (SYNTH in synthesize, PROVING when prove
    /// starts); `None` without a ledger.
    pub fn stage(&self) -> Option<Stage> {
        // SAFETY: the engine's open ledger, read by the thread the call runs on.
        (!self.raw.ledger.is_null())
            .then(|| Stage(unsafe { sys::zkpipe_ledger_stage(self.raw.ledger) }))
    }

    /// One more live buffer of `kind` with `bytes` bytes in the partition's ledger. Errors:
    /// INVAL (no ledger in this call, an unregistered kind), OVERFLOW.
    pub fn charge(&mut self, kind: Kind, bytes: u64) -> Result<()> {
        if self.raw.ledger.is_null() {
            return Err(Error::INVAL);
        }
        // SAFETY: the engine's open ledger; only this thread uses it during the call.
        Error::check(unsafe { sys::zkpipe_ledger_charge(self.raw.ledger, kind.0, bytes) })
    }

    /// One live buffer of `kind` with `bytes` bytes is gone. Errors: INVAL, UNDERFLOW.
    pub fn release(&mut self, kind: Kind, bytes: u64) -> Result<()> {
        if self.raw.ledger.is_null() {
            return Err(Error::INVAL);
        }
        // SAFETY: as for charge.
        Error::check(unsafe { sys::zkpipe_ledger_release(self.raw.ledger, kind.0, bytes) })
    }
}

/// A host's stage operations: what one partition is and how it is synthesized and proved.
/// The engine runs everything around them (permits, the byte budget, the narrow waist, ledger
/// moves, cancel, results), the same as for its built-in partitions. Calls for different
/// partitions run concurrently on the engine's workers, hence `Send + Sync`.
///
/// Each partition of a job is one `Input`. `synthesize` turns it into an `Item`, which goes
/// through the channel, charging every buffer it keeps to [`Call::charge`]; `prove` consumes
/// the item, releasing buffers as they die, and gives an `Output` ([`Job::take_output`]).
/// Whatever a partition still has charged when it ends is released by the engine. A panic in
/// an operation ends its partition with [`Error::STATE`] and a detail line saying so; it never
/// crosses into C.
pub trait Stages: Send + Sync + 'static {
    type Input: Send + Sync + 'static;
    type Item: Send + 'static;
    type Output: Send + 'static;

    /// The most bytes the partition's ledger holds at once, for the byte budget (0: none).
    fn estimate(&self, call: &Call, input: &Self::Input) -> std::result::Result<u64, StageError> {
        let _ = (call, input);
        Ok(0)
    }

    /// Synthesis, on a synthesis worker holding the partition's permit.
    fn synthesize(
        &self,
        call: &mut Call,
        input: &Self::Input,
    ) -> std::result::Result<Self::Item, StageError>;

    /// Proving, on a prover worker; `item` is consumed whatever the outcome.
    fn prove(
        &self,
        call: &mut Call,
        input: &Self::Input,
        item: Self::Item,
    ) -> std::result::Result<Self::Output, StageError>;

    /// Whether the engine hands this type's partitions to [`Stages::prove_batch`] (with
    /// [`EngineConfig::max_batch`] > 1); `false`: each goes to `prove`.
    const BATCHED: bool = false;

    /// Proving several partitions at once (a GPU prover's batch), on a prover worker, when
    /// [`Stages::BATCHED`]: `calls[i]`, `inputs[i]` and `items[i]` are one partition's, each
    /// with its own ledger (in PROVING) to charge and release; the `i`th result is that
    /// partition's outcome, so partitions that fail do so individually. A result vector of the
    /// wrong length fails the partitions it leaves out with [`Error::STATE`]; a panic fails them
    /// all. The default proves each with `prove`.
    fn prove_batch(
        &self,
        calls: &mut [Call],
        inputs: &[&Self::Input],
        items: Vec<Self::Item>,
    ) -> Vec<std::result::Result<Self::Output, StageError>> {
        calls
            .iter_mut()
            .zip(inputs)
            .zip(items)
            .map(|((call, input), item)| self.prove(call, input, item))
            .collect()
    }

    /// An item that will never be proved (cancel, a dropped engine); the default drops it.
    fn discard(&self, call: &mut Call, input: &Self::Input, item: Self::Item) {
        let _ = (call, input);
        drop(item);
    }
}

/// The stage operations of an engine that runs only the library's built-in partitions
/// ([`Engine::submit_zkey`]): it has no input, so [`Engine::submit`] can be given none.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoStages;

impl Stages for NoStages {
    type Input = std::convert::Infallible;
    type Item = std::convert::Infallible;
    type Output = std::convert::Infallible;

    fn synthesize(
        &self,
        _call: &mut Call,
        input: &Self::Input,
    ) -> std::result::Result<Self::Item, StageError> {
        match *input {}
    }

    fn prove(
        &self,
        _call: &mut Call,
        input: &Self::Input,
        _item: Self::Item,
    ) -> std::result::Result<Self::Output, StageError> {
        match *input {}
    }
}

/// The C table of a `Stages` type and the value it calls; shared by the engine and its jobs,
/// since a job may outlive its engine.
struct Shared<S: Stages> {
    ops: sys::zkpipe_stage_ops,
    stages: S,
}

// SAFETY: the table holds static function pointers and a static name; S is Send + Sync.
unsafe impl<S: Stages> Send for Shared<S> {}
unsafe impl<S: Stages> Sync for Shared<S> {}

/// One partition's context (the C partition's ctx): owned by its job, valid until the job is
/// destroyed, which waits for every partition to end first.
struct PartCtx<S: Stages> {
    shared: Arc<Shared<S>>,
    input: S::Input,
    output: Mutex<Option<S::Output>>,
}

const NAME: &CStr = c"rust";

fn write_detail(call: &sys::zkpipe_stage_call, text: &str) {
    if call.detail.is_null() || call.detail_cap == 0 {
        return;
    }
    let mut n = text.len().min(call.detail_cap - 1);
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    // SAFETY: the engine's buffer of detail_cap bytes, for this call only.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), call.detail.cast::<u8>(), n);
        *call.detail.add(n) = 0;
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

/// Runs an operation's body, turning its error or panic into a status and a detail line.
fn run(
    call: &sys::zkpipe_stage_call,
    what: &str,
    f: impl FnOnce() -> std::result::Result<(), StageError>,
) -> sys::zkpipe_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => sys::ZKPIPE_OK,
        Ok(Err(e)) => {
            // An empty line keeps what the engine wrote there (a refused call's reason).
            if !e.detail.is_empty() {
                write_detail(call, &e.detail);
            }
            e.error.code()
        }
        Err(panic) => {
            write_detail(call, &format!("{what} panicked: {}", panic_text(&*panic)));
            sys::ZKPIPE_ESTATE
        }
    }
}

/// # Safety
/// `call` is the engine's, and its ctx a live PartCtx<S> (every partition of a Job<S>).
unsafe fn parts<'a, S: Stages>(
    call: *const sys::zkpipe_stage_call,
) -> (&'a sys::zkpipe_stage_call, &'a PartCtx<S>) {
    // SAFETY: the caller's promise.
    unsafe {
        let call = &*call;
        (call, &*call.ctx.cast::<PartCtx<S>>())
    }
}

fn call_of(raw: &sys::zkpipe_stage_call) -> Call<'_> {
    Call {
        raw,
        _not_send: PhantomData,
    }
}

unsafe extern "C" fn estimate_op<S: Stages>(
    call: *const sys::zkpipe_stage_call,
    bytes: *mut u64,
) -> sys::zkpipe_status {
    // SAFETY: called by the engine for a partition of a Job<S>.
    let (raw, ctx) = unsafe { parts::<S>(call) };
    run(raw, "estimate", || {
        let n = ctx.shared.stages.estimate(&call_of(raw), &ctx.input)?;
        // SAFETY: the engine's out parameter.
        unsafe { *bytes = n };
        Ok(())
    })
}

unsafe extern "C" fn synthesize_op<S: Stages>(
    call: *const sys::zkpipe_stage_call,
    item: *mut *mut c_void,
) -> sys::zkpipe_status {
    // SAFETY: as in estimate_op.
    let (raw, ctx) = unsafe { parts::<S>(call) };
    run(raw, "synthesize", || {
        let value = ctx
            .shared
            .stages
            .synthesize(&mut call_of(raw), &ctx.input)?;
        // Never NULL (a zero-sized item gets a dangling, non-NULL pointer).
        // SAFETY: the engine's out parameter; the box goes back in prove or discard.
        unsafe { *item = Box::into_raw(Box::new(value)).cast() };
        Ok(())
    })
}

unsafe extern "C" fn prove_op<S: Stages>(
    call: *const sys::zkpipe_stage_call,
    item: *mut c_void,
    _out: *mut sys::zkpipe_partition_result,
) -> sys::zkpipe_status {
    // SAFETY: as in estimate_op; item is the box synthesize_op made, handed over once.
    let (raw, ctx) = unsafe { parts::<S>(call) };
    let value = unsafe { Box::from_raw(item.cast::<S::Item>()) };
    run(raw, "prove", || {
        let output = ctx
            .shared
            .stages
            .prove(&mut call_of(raw), &ctx.input, *value)?;
        *ctx.output.lock().unwrap_or_else(|e| e.into_inner()) = Some(output);
        Ok(())
    })
}

unsafe extern "C" fn prove_batch_op<S: Stages>(
    calls: *const sys::zkpipe_stage_call,
    items: *const *mut c_void,
    _outs: *const *mut sys::zkpipe_partition_result,
    statuses: *mut sys::zkpipe_status,
    n: usize,
) {
    // SAFETY: the engine's n calls, items and statuses, each call's ctx a live PartCtx<S> and
    // each item the box synthesize_op made, handed over once.
    let (calls, items, statuses) = unsafe {
        (
            std::slice::from_raw_parts(calls, n),
            std::slice::from_raw_parts(items, n),
            std::slice::from_raw_parts_mut(statuses, n),
        )
    };
    let ctxs: Vec<&PartCtx<S>> = calls
        .iter()
        // SAFETY: as above.
        .map(|c| unsafe { &*c.ctx.cast::<PartCtx<S>>() })
        .collect();
    let values: Vec<S::Item> = items
        .iter()
        // SAFETY: as above.
        .map(|&p| *unsafe { Box::from_raw(p.cast::<S::Item>()) })
        .collect();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut wrapped: Vec<Call> = calls.iter().map(call_of).collect();
        let inputs: Vec<&S::Input> = ctxs.iter().map(|c| &c.input).collect();
        ctxs[0]
            .shared
            .stages
            .prove_batch(&mut wrapped, &inputs, values)
    }));
    match outcome {
        Ok(results) => {
            let got = results.len();
            let mut results = results.into_iter();
            for (i, call) in calls.iter().enumerate() {
                statuses[i] = match results.next() {
                    Some(Ok(output)) => {
                        *ctxs[i].output.lock().unwrap_or_else(|e| e.into_inner()) = Some(output);
                        sys::ZKPIPE_OK
                    }
                    Some(Err(e)) => {
                        if !e.detail.is_empty() {
                            write_detail(call, &e.detail);
                        }
                        e.error.code()
                    }
                    None => {
                        write_detail(
                            call,
                            &format!("prove_batch gave {got} results for {n} partitions"),
                        );
                        sys::ZKPIPE_ESTATE
                    }
                };
            }
        }
        Err(panic) => {
            let line = format!("prove_batch panicked: {}", panic_text(&*panic));
            for (status, call) in statuses.iter_mut().zip(calls) {
                write_detail(call, &line);
                *status = sys::ZKPIPE_ESTATE;
            }
        }
    }
}

unsafe extern "C" fn discard_op<S: Stages>(call: *const sys::zkpipe_stage_call, item: *mut c_void) {
    // SAFETY: as in prove_op.
    let (raw, ctx) = unsafe { parts::<S>(call) };
    let value = unsafe { Box::from_raw(item.cast::<S::Item>()) };
    // A panic here has nowhere to go: the item is dropped during the unwind, and that is all.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        ctx.shared
            .stages
            .discard(&mut call_of(raw), &ctx.input, *value)
    }));
}

/// The engine's counters (`zkpipe_engine_counters`), each read atomically.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineStats {
    pub submitted: u64,
    pub proved: u64,
    pub failed: u64,
    pub canceled: u64,
    /// Partitions in synth + pending + queued now, and the most there ever were.
    pub in_flight: u64,
    pub peak_in_flight: u64,
    /// permits + capacity: what `peak_in_flight` stays within on release at delivery.
    pub bound: u64,
    /// `bound` + prover workers: the most partitions holding buffers at once.
    pub resident_bound: u64,
    pub proving: u64,
    pub channel_items: u64,
    pub waiting_senders: u64,
    /// The permits lent now (with [`Concurrency::Auto`], the controller's choice), and how many
    /// of them are free.
    pub permits_admitted: u64,
    pub permits_available: u64,
    /// The byte budget (with auto and none set: the one the engine took) and what is free.
    pub budget_bytes: u64,
    pub budget_available: u64,
    /// Budget bytes given back before their partitions ended (reservations that follow).
    pub budget_returned_early: u64,
    /// Ledgers that charged beyond the bytes they were admitted with (their reservation grew
    /// to cover it), and by how much in all.
    pub over_reservation_events: u64,
    pub over_reservation_bytes: u64,
    /// Time the prover workers spent waiting for an item, all together.
    pub prover_idle_ns: u64,
    /// The estimate of bytes no ledger holds (resident set less accounted), now and its peak.
    pub unaccounted_bytes: u64,
    pub unaccounted_peak_bytes: u64,
    /// Admissions that waited for their reservation of the budget, and growths (a ledger
    /// charging beyond its reservation) that waited for the bytes, with the time each waited in
    /// all. Rising with `prover_idle_ns`: the budget, not the CPU, limits throughput.
    pub budget_admission_waits: u64,
    pub budget_admission_wait_ns: u64,
    pub budget_growth_waits: u64,
    pub budget_growth_wait_ns: u64,
    /// Growths let past the budget because nothing else could move, and the largest excess:
    /// the accounted bytes stay within `budget_bytes` + `budget_overdraft_peak_bytes`.
    pub budget_overdrafts: u64,
    pub budget_overdraft_peak_bytes: u64,
}

/// The two-phase engine (`zkpipe/engine.h`) running a host's [`Stages`]: synthesis workers,
/// the accounted narrow waist, prover workers. Dropping it cancels the jobs not yet finished
/// (their partitions not yet proving end with [`Error::CANCELED`], their items are discarded)
/// and joins its threads; [`Engine::drain`] first to finish them instead. Its jobs stay
/// readable after it is gone.
///
/// Calls from the stage operations (which may hold an `Arc<Engine>` or a [`Job`]) are sound:
/// [`Engine::drain`], [`Job::wait`] and [`Job::wait_timeout`] of this engine's jobs return
/// [`Error::STATE`] there, since they would wait for the calling thread; dropping the last
/// reference to the engine there stops it and leaves its teardown to its last worker thread
/// (the registry and the stages are kept until then); dropping a job there cancels it, and it
/// is freed as its last partition ends.
pub struct Engine<S: Stages> {
    raw: NonNull<sys::zkpipe_engine>,
    backend: Backend,
    shared: Arc<Shared<S>>,
    registry: Registry,
}

/// What the C engine points at (the registry, the operations' table), handed to it at create
/// and released by its `on_destroyed`, which comes after its last thread is done, whichever
/// thread destroyed it.
struct EngineKeep<S: Stages> {
    _registry: Registry,
    _shared: Arc<Shared<S>>,
}

unsafe extern "C" fn engine_destroyed<S: Stages>(ctx: *mut c_void) {
    // SAFETY: the box Engine::new handed over, given back once by the engine.
    drop(unsafe { Box::from_raw(ctx.cast::<EngineKeep<S>>()) });
}

// SAFETY: every engine function but destroy may run from any thread concurrently
// (zkpipe/engine.h); destroy runs from drop.
unsafe impl<S: Stages> Send for Engine<S> {}
unsafe impl<S: Stages> Sync for Engine<S> {}

impl<S: Stages> Engine<S> {
    /// Starts an engine. Errors: INVAL (a zero count), NOMEM, THREAD. The backend is not
    /// resolved here (see [`Backend`]).
    pub fn new(config: &EngineConfig, stages: S) -> Result<Engine<S>> {
        let registry = config.registry.clone().unwrap_or_else(Registry::global);
        let mut c = MaybeUninit::<sys::zkpipe_engine_config>::uninit();
        // SAFETY: zkpipe_engine_config_init fills in every field.
        let mut c = unsafe {
            sys::zkpipe_engine_config_init(c.as_mut_ptr());
            c.assume_init()
        };
        c.synth_workers = config.synth_workers;
        c.permits = config.permits;
        c.budget_bytes = config.budget_bytes;
        c.capacity = config.capacity;
        c.prover_workers = config.prover_workers;
        c.prover_threads = config.prover_threads;
        c.backend = config.backend.raw();
        c.release = match config.release {
            Release::Delivery => sys::ZKPIPE_RELEASE_DELIVERY,
            Release::Early => sys::ZKPIPE_RELEASE_EARLY,
        };
        c.reservation = match config.reservation {
            Reservation::Follow => sys::ZKPIPE_RESERVATION_FOLLOW,
            Reservation::Whole => sys::ZKPIPE_RESERVATION_WHOLE,
        };
        c.concurrency = match config.concurrency {
            Concurrency::Fixed => sys::ZKPIPE_CONCURRENCY_FIXED,
            Concurrency::Auto => sys::ZKPIPE_CONCURRENCY_AUTO,
        };
        c.acct = registry.as_ptr();
        c.max_batch = config.max_batch;
        c.on_destroyed = Some(engine_destroyed::<S>);
        let shared = Arc::new(Shared {
            ops: sys::zkpipe_stage_ops {
                struct_size: std::mem::size_of::<sys::zkpipe_stage_ops>(),
                name: NAME.as_ptr(),
                estimate: Some(estimate_op::<S>),
                synthesize: Some(synthesize_op::<S>),
                prove: Some(prove_op::<S>),
                discard: Some(discard_op::<S>),
                result_free: None,
                validate: None,
                source: None,
                key: None,
                prove_batch: if S::BATCHED {
                    Some(prove_batch_op::<S>)
                } else {
                    None
                },
            },
            stages,
        });
        let keep = Box::into_raw(Box::new(EngineKeep {
            _registry: registry.clone(),
            _shared: shared.clone(),
        }));
        c.on_destroyed_ctx = keep.cast();
        let mut raw = std::ptr::null_mut();
        // SAFETY: a complete config; what it points at is kept until on_destroyed.
        let st = Error::check(unsafe { sys::zkpipe_engine_create(&mut raw, &c) });
        match (st, NonNull::new(raw)) {
            (Ok(()), Some(raw)) => Ok(Engine {
                raw,
                backend: config.backend,
                shared,
                registry,
            }),
            (st, _) => {
                // SAFETY: create failed, so the engine never took the box.
                drop(unsafe { Box::from_raw(keep) });
                Err(st.err().unwrap_or(Error::NOMEM))
            }
        }
    }

    /// The backend the engine passes to its stage operations, as configured (unresolved).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub(crate) fn raw(&self) -> NonNull<sys::zkpipe_engine> {
        self.raw
    }

    /// The registry its partitions' ledgers count in.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The stage operations the engine calls.
    pub fn stages(&self) -> &S {
        &self.shared.stages
    }

    /// Queues a job, one partition per input, started in order. Errors: INVAL (no input),
    /// CLOSED (the engine is closed or draining), NOMEM, OVERFLOW.
    pub fn submit(&self, inputs: Vec<S::Input>) -> Result<Job<S>> {
        if inputs.is_empty() {
            return Err(Error::INVAL);
        }
        let ctxs: Arc<[PartCtx<S>]> = inputs
            .into_iter()
            .map(|input| PartCtx {
                shared: self.shared.clone(),
                input,
                output: Mutex::new(None),
            })
            .collect();
        let parts: Vec<sys::zkpipe_partition> = ctxs
            .iter()
            .map(|ctx| sys::zkpipe_partition {
                ops: &self.shared.ops,
                ctx: (ctx as *const PartCtx<S>).cast_mut().cast(),
                reserved: [0; 2],
            })
            .collect();
        // SAFETY: the partitions point at the shared table and at ctxs, which the job keeps.
        let handle = unsafe { submit_keeping(self.raw, &parts, ctxs.clone()) }?;
        Ok(Job { handle, ctxs })
    }

    /// Later submissions fail with CLOSED; jobs already submitted go on.
    pub fn close(&self) {
        // SAFETY: a live engine.
        unsafe { sys::zkpipe_engine_close(self.raw.as_ptr()) }
    }

    /// Closes the engine and waits until every submitted job has finished. Errors: STATE
    /// from one of this engine's stage operations (it would wait for itself; nothing done).
    pub fn drain(&self) -> Result<()> {
        // SAFETY: a live engine; from its own threads the call is refused.
        Error::check(unsafe { sys::zkpipe_engine_drain(self.raw.as_ptr()) })
    }

    /// A copy of the engine's counters.
    pub fn stats(&self) -> EngineStats {
        // SAFETY: zkpipe_engine_counters is plain data.
        let mut c: sys::zkpipe_engine_counters = unsafe { std::mem::zeroed() };
        // SAFETY: a live engine; cannot fail with valid arguments.
        unsafe { sys::zkpipe_engine_stats(self.raw.as_ptr(), &mut c) };
        EngineStats {
            submitted: c.submitted,
            proved: c.proved,
            failed: c.failed,
            canceled: c.canceled,
            in_flight: c.in_flight,
            peak_in_flight: c.peak_in_flight,
            bound: c.bound,
            resident_bound: c.resident_bound,
            proving: c.proving,
            channel_items: c.channel_items,
            waiting_senders: c.waiting_senders,
            permits_admitted: c.permits_admitted,
            permits_available: c.permits_available,
            budget_bytes: c.budget_bytes,
            budget_available: c.budget_available,
            budget_returned_early: c.budget_returned_early,
            over_reservation_events: c.over_reservation_events,
            over_reservation_bytes: c.over_reservation_bytes,
            prover_idle_ns: c.prover_idle_ns,
            unaccounted_bytes: c.unaccounted_bytes,
            unaccounted_peak_bytes: c.unaccounted_peak_bytes,
            budget_admission_waits: c.budget_admission_waits,
            budget_admission_wait_ns: c.budget_admission_wait_ns,
            budget_growth_waits: c.budget_growth_waits,
            budget_growth_wait_ns: c.budget_growth_wait_ns,
            budget_overdrafts: c.budget_overdrafts,
            budget_overdraft_peak_bytes: c.budget_overdraft_peak_bytes,
        }
    }
}

impl<S: Stages> Drop for Engine<S> {
    fn drop(&mut self) {
        // SAFETY: the last reference; jobs keep their own handles and contexts. From a stage
        // operation the teardown is deferred, and EngineKeep outlives it.
        unsafe { sys::zkpipe_engine_destroy(self.raw.as_ptr()) }
    }
}

unsafe extern "C" fn job_done_release<K: ?Sized>(_job: *mut sys::zkpipe_job, ctx: *mut c_void) {
    // SAFETY: the box submit_keeping handed over, given back once, after every partition of
    // the job has ended (nothing of the job's operations uses `K` after this).
    drop(unsafe { Box::from_raw(ctx.cast::<Arc<K>>()) });
}

/// Submits `parts` with a done callback that holds `keep` (what the partitions point at) until
/// the job's last partition has ended, so a job dropped from one of its engine's own threads
/// (freed by the engine at its end) never outlives what it uses.
///
/// # Safety
/// `engine` is live and `parts` point only at what `keep` owns or at static data.
pub(crate) unsafe fn submit_keeping<K: Send + Sync + 'static + ?Sized>(
    engine: NonNull<sys::zkpipe_engine>,
    parts: &[sys::zkpipe_partition],
    keep: Arc<K>,
) -> Result<JobHandle> {
    let ctx = Box::into_raw(Box::new(keep));
    let mut raw = std::ptr::null_mut();
    // SAFETY: the caller's promise; the box goes back in job_done_release.
    let st = Error::check(unsafe {
        sys::zkpipe_engine_submit(
            engine.as_ptr(),
            &mut raw,
            parts.as_ptr(),
            parts.len(),
            Some(job_done_release::<K>),
            ctx.cast(),
        )
    });
    match (st, NonNull::new(raw)) {
        (Ok(()), Some(raw)) => Ok(JobHandle(raw)),
        (st, _) => {
            // SAFETY: the submission failed, so no callback will take the box.
            drop(unsafe { Box::from_raw(ctx) });
            Err(st.err().unwrap_or(Error::NOMEM))
        }
    }
}

/// What became of one partition (`zkpipe_partition_result`).
#[derive(Clone, Debug)]
pub struct PartitionResult {
    /// `Ok` when proved; the error otherwise (CANCELED for a cancelled partition).
    pub status: Result<()>,
    /// What the failing operation (or the engine) said; empty when nothing failed.
    pub detail: String,
    pub synth_s: f64,
    pub wait_s: f64,
    pub prove_s: f64,
}

/// Partition `index`'s result, and the C struct it came from (its proof, for the built-in
/// stages). Errors: INVAL (out of range), STATE (the job has not finished).
pub(crate) fn job_result(
    job: NonNull<sys::zkpipe_job>,
    index: usize,
) -> Result<(PartitionResult, sys::zkpipe_partition_result)> {
    // SAFETY: plain data, filled by zkpipe_job_result.
    let mut r: sys::zkpipe_partition_result = unsafe { std::mem::zeroed() };
    // SAFETY: a live job (the caller's).
    Error::check(unsafe { sys::zkpipe_job_result(job.as_ptr(), index, &mut r) })?;
    // SAFETY: the engine NUL-terminates the detail line within its array.
    let detail = unsafe { CStr::from_ptr(r.detail.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    let result = PartitionResult {
        status: Error::check(r.status),
        detail,
        synth_s: r.synth_s,
        wait_s: r.wait_s,
        prove_s: r.prove_s,
    };
    Ok((result, r))
}

/// A submitted job. Dropping it cancels it if it has not finished, waits for it and frees it.
pub struct Job<S: Stages> {
    handle: JobHandle,
    // Shared with the job's done callback: alive until its last partition has ended.
    ctxs: Arc<[PartCtx<S>]>,
}

/// A C job, destroyed on drop: what [`Job`] and [`crate::ZkeyJob`] share.
pub(crate) struct JobHandle(pub(crate) NonNull<sys::zkpipe_job>);

impl JobHandle {
    pub(crate) fn wait(&self) -> Result<()> {
        // SAFETY: a live job; on its engine's threads the call is refused.
        Error::check(unsafe { sys::zkpipe_job_wait(self.0.as_ptr()) })
    }

    pub(crate) fn wait_timeout(&self, timeout: Duration) -> Result<()> {
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: as for wait.
        Error::check(unsafe { sys::zkpipe_job_wait_timed(self.0.as_ptr(), ns) })
    }

    pub(crate) fn cancel(&self) {
        // SAFETY: a live job.
        unsafe { sys::zkpipe_job_cancel(self.0.as_ptr()) }
    }
}

impl Drop for JobHandle {
    fn drop(&mut self) {
        // SAFETY: ours; it cancels and waits for every partition, or, on one of its engine's
        // threads, leaves the job to be freed at its end (what the partitions point at is
        // kept by the done callback until then).
        unsafe { sys::zkpipe_job_destroy(self.0.as_ptr()) }
    }
}

// SAFETY: job functions may run from any thread (zkpipe/engine.h); outputs are taken under
// their mutex; destroy runs from drop.
unsafe impl<S: Stages> Send for Job<S> {}
unsafe impl<S: Stages> Sync for Job<S> {}

impl<S: Stages> Job<S> {
    /// The number of partitions.
    pub fn len(&self) -> usize {
        self.ctxs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ctxs.is_empty()
    }

    /// Blocks until every partition has ended. Errors: STATE from one of the stage
    /// operations of the engine running it (it could wait for itself).
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

    /// What became of partition `index`. Errors: INVAL (out of range), STATE (the job has not
    /// finished: wait first).
    pub fn result(&self, index: usize) -> Result<PartitionResult> {
        job_result(self.handle.0, index).map(|(r, _)| r)
    }

    /// Takes partition `index`'s output (once; `None` after, for a partition that did not
    /// prove, or one still running).
    pub fn take_output(&self, index: usize) -> Option<S::Output> {
        self.ctxs
            .get(index)?
            .output
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The inputs, in partition order.
    pub fn inputs(&self) -> impl Iterator<Item = &S::Input> {
        self.ctxs.iter().map(|c| &c.input)
    }
}
