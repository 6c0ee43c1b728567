//! A GPU-style host prover on the engine: each partition's synthesis fills an accounted
//! buffer, and the prover proves the partitions it finds ready in batches (as a device's MSM
//! kernels want them, or as supraseal proves a sector's partitions together), every partition
//! keeping its own ledger and its own result.
//!
//!   cargo run --example batch_prover -- [--partitions N] [--max-batch B] [--provers R]
//!       [--capacity C] [--kib K] [--batch-ms T] [--fail-every F]
//!
//! A batch costs `--batch-ms` whatever its size, so batching pays. Every F-th partition fails
//! alone (0: none). At the end it prints the batches it made and checks that every partition
//! has its own result, the largest batch stayed within max_batch, and the partitions holding
//! buffers never exceeded the engine's resident bound (permits + capacity + provers *
//! max_batch) on any snapshot taken while it ran.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use zkpipe::{Backend, Call, Engine, EngineConfig, Error, Kind, Registry, StageError, Stages};

mod cli;

struct Options {
    partitions: usize,
    max_batch: u32,
    provers: u32,
    capacity: usize,
    kib: usize,
    batch_ms: u64,
    fail_every: usize,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        partitions: 48,
        max_batch: 8,
        provers: 1,
        capacity: 8,
        kib: 64,
        batch_ms: 20,
        fail_every: 0,
    };
    cli::parse(&[], |flag, n| {
        match flag {
            "--partitions" => o.partitions = n as usize,
            "--max-batch" => o.max_batch = cli::small(flag, n)?,
            "--provers" => o.provers = cli::small(flag, n)?,
            "--capacity" => o.capacity = n as usize,
            "--kib" => o.kib = n as usize,
            "--batch-ms" => o.batch_ms = n,
            "--fail-every" => o.fail_every = n as usize,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    if o.partitions == 0 || o.max_batch == 0 || o.provers == 0 || o.capacity == 0 {
        return Err("partitions, max-batch, provers and capacity must be at least 1".into());
    }
    Ok(o)
}

/// The prover: a batch of partitions proved in one pass.
struct Device {
    bytes: usize,
    batch: Duration,
    fail_every: usize,
    batches: AtomicU64,
    largest: AtomicU64,
}

impl Stages for Device {
    type Input = usize; // the partition's seed
    type Item = Vec<u8>;
    type Output = u64; // the checksum of its buffer

    const BATCHED: bool = true;

    fn estimate(&self, _call: &Call, _seed: &usize) -> Result<u64, StageError> {
        Ok(self.bytes as u64)
    }

    fn synthesize(&self, call: &mut Call, seed: &usize) -> Result<Vec<u8>, StageError> {
        call.charge(Kind::ABC, self.bytes as u64)?;
        Ok((0..self.bytes).map(|i| (i ^ seed) as u8).collect())
    }

    fn prove(&self, call: &mut Call, seed: &usize, item: Vec<u8>) -> Result<u64, StageError> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.largest.fetch_max(1, Ordering::Relaxed);
        thread::sleep(self.batch);
        self.finish(call, *seed, item)
    }

    fn prove_batch(
        &self,
        calls: &mut [Call],
        seeds: &[&usize],
        items: Vec<Vec<u8>>,
    ) -> Vec<Result<u64, StageError>> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.largest
            .fetch_max(items.len() as u64, Ordering::Relaxed);
        thread::sleep(self.batch); // one launch for the whole batch
        calls
            .iter_mut()
            .zip(seeds)
            .zip(items)
            .map(|((call, &&seed), item)| self.finish(call, seed, item))
            .collect()
    }
}

impl Device {
    /// One partition's share of the work after the launch: its result, its buffer released.
    fn finish(&self, call: &mut Call, seed: usize, item: Vec<u8>) -> Result<u64, StageError> {
        let sum = item
            .iter()
            .fold(0u64, |h, &b| h.wrapping_mul(31) ^ u64::from(b));
        drop(item);
        call.release(Kind::ABC, self.bytes as u64)?;
        if self.fail_every > 0 && seed % self.fail_every == self.fail_every - 1 {
            return Err(StageError::new(
                Error::UNSATISFIED,
                format!("partition {} failed on its own", call.partition()),
            ));
        }
        Ok(sum)
    }
}

fn run(o: &Options) -> Result<(), String> {
    let registry = Registry::new().map_err(|e| e.to_string())?;
    let config = EngineConfig {
        capacity: o.capacity,
        prover_workers: o.provers,
        max_batch: o.max_batch,
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        ..EngineConfig::default()
    };
    let device = Device {
        bytes: o.kib * 1024,
        batch: Duration::from_millis(o.batch_ms),
        fail_every: o.fail_every,
        batches: AtomicU64::new(0),
        largest: AtomicU64::new(0),
    };
    let engine = Arc::new(Engine::new(&config, device).map_err(|e| e.to_string())?);
    let bound = engine.stats().resident_bound;

    // A reader of the registry while it runs: the partitions holding buffers, at most.
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (registry, stop) = (registry.clone(), stop.clone());
        thread::spawn(move || {
            let mut most = 0;
            while !stop.load(Ordering::Acquire) {
                if let Ok(s) = registry.snapshot() {
                    most = most.max(s.resident_items());
                }
                thread::yield_now();
            }
            most
        })
    };
    let t0 = Instant::now();
    let job = engine
        .submit((0..o.partitions).collect())
        .map_err(|e| e.to_string())?;
    job.wait().map_err(|e| e.to_string())?;
    let elapsed = t0.elapsed();
    stop.store(true, Ordering::Release);
    let most = watcher.join().map_err(|_| "the reader panicked")?;

    let (mut proved, mut failed) = (0, 0);
    for i in 0..job.len() {
        let r = job.result(i).map_err(|e| e.to_string())?;
        let should_fail = o.fail_every > 0 && i % o.fail_every == o.fail_every - 1;
        match (r.status, should_fail) {
            (Ok(()), false) if job.take_output(i).is_some() => proved += 1,
            (Err(Error::UNSATISFIED), true) if r.detail.contains(&format!("partition {i} ")) => {
                failed += 1
            }
            (status, _) => return Err(format!("partition {i}: {status:?} {}", r.detail)),
        }
    }
    let d = engine.stages();
    let (batches, largest) = (
        d.batches.load(Ordering::Relaxed),
        d.largest.load(Ordering::Relaxed),
    );
    println!(
        "batch_prover: {proved} proved, {failed} failed on their own, in {batches} batches \
         (largest {largest}, max_batch {}) in {:.2} s; at most {most} partitions held buffers \
         (resident bound {bound})",
        o.max_batch,
        elapsed.as_secs_f64()
    );
    if largest > u64::from(o.max_batch) || most > bound {
        return Err("a batch or the partitions holding buffers went past their bound".into());
    }
    engine.drain().map_err(|e| e.to_string())?;
    let live = registry.snapshot().map_err(|e| e.to_string())?.live_bytes();
    if live != 0 {
        return Err(format!("{live} bytes still accounted"));
    }
    Ok(())
}

fn main() {
    let o = cli::or_exit("batch_prover", options());
    if let Err(e) = run(&o) {
        eprintln!("batch_prover: FAILED\n{e}");
        std::process::exit(1);
    }
}
