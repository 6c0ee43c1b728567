//! The engine with a host's stage operations written in Rust: every partition proved with its
//! output, the narrow waist's bound, conservation in the registry, failures and panics as
//! results with their lines, cancel and drop discarding what was synthesized.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use zkpipe::{
    Backend, Call, Concurrency, Engine, EngineConfig, Error, Kind, Registry, Reservation, Stage,
    StageError, Stages,
};

/// A partition: `bytes` of data filled from `seed`; proving checksums them.
struct Part {
    seed: u64,
    bytes: usize,
    fail_synth: bool,
    panic_prove: bool,
}

fn part(seed: u64, bytes: usize) -> Part {
    Part {
        seed,
        bytes,
        fail_synth: false,
        panic_prove: false,
    }
}

fn checksum(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

fn fill(seed: u64, bytes: usize) -> Vec<u8> {
    (0..bytes)
        .map(|i| (seed as usize).wrapping_mul(31).wrapping_add(i) as u8)
        .collect()
}

#[derive(Default)]
struct Buffers {
    synthesized: AtomicU64,
    proved: AtomicU64,
    discarded: AtomicU64,
    /// Set while a test wants synthesis to wait (for cancel).
    hold: AtomicBool,
    synth_ms: u64,
    prove_ms: u64,
}

impl Stages for Buffers {
    type Input = Part;
    type Item = Vec<u8>;
    type Output = u64;

    fn estimate(&self, _call: &Call, input: &Part) -> Result<u64, StageError> {
        Ok(input.bytes as u64)
    }

    fn synthesize(&self, call: &mut Call, input: &Part) -> Result<Vec<u8>, StageError> {
        assert_eq!(call.stage(), Some(Stage::SYNTH));
        while self.hold.load(Ordering::Acquire) {
            thread::sleep(Duration::from_millis(1));
        }
        if input.fail_synth {
            return Err(StageError::new(
                Error::INVAL,
                format!("partition {} refused", call.partition()),
            ));
        }
        thread::sleep(Duration::from_millis(self.synth_ms));
        let data = fill(input.seed, input.bytes);
        call.charge(Kind::ABC, data.len() as u64)?;
        self.synthesized.fetch_add(1, Ordering::Relaxed);
        Ok(data)
    }

    fn prove(&self, call: &mut Call, input: &Part, item: Vec<u8>) -> Result<u64, StageError> {
        assert_eq!(call.stage(), Some(Stage::PROVING));
        if input.panic_prove {
            panic!("prover bug on partition {}", call.partition());
        }
        thread::sleep(Duration::from_millis(self.prove_ms));
        let sum = checksum(&item);
        call.release(Kind::ABC, item.len() as u64)?;
        self.proved.fetch_add(1, Ordering::Relaxed);
        Ok(sum)
    }

    fn discard(&self, _call: &mut Call, _input: &Part, item: Vec<u8>) {
        self.discarded.fetch_add(1, Ordering::Relaxed);
        drop(item);
    }
}

fn config(registry: &Registry) -> EngineConfig {
    EngineConfig {
        synth_workers: 3,
        permits: 2,
        capacity: 1,
        prover_workers: 1,
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        ..EngineConfig::default()
    }
}

#[test]
fn every_partition_proved_within_the_bound() {
    let registry = Registry::new().unwrap();
    let stages = Buffers {
        prove_ms: 2,
        ..Buffers::default()
    };
    let engine = Engine::new(&config(&registry), stages).unwrap();
    assert_eq!(engine.backend(), Backend::Cpu);
    let n = 24u64;
    let job = engine
        .submit((0..n).map(|i| part(i, 64 << 10)).collect())
        .unwrap();
    job.wait().unwrap();
    for i in 0..n as usize {
        let r = job.result(i).unwrap();
        assert_eq!(r.status, Ok(()), "partition {i}: {}", r.detail);
        assert_eq!(
            job.take_output(i),
            Some(checksum(&fill(i as u64, 64 << 10)))
        );
        assert_eq!(job.take_output(i), None);
    }
    let stats = engine.stats();
    assert_eq!(stats.proved, n);
    assert_eq!(stats.bound, 3);
    assert!(stats.peak_in_flight <= stats.bound, "{stats:?}");
    assert!(stats.peak_in_flight >= 1);
    assert_eq!(engine.stages().synthesized.load(Ordering::Relaxed), n);
    let snap = registry.snapshot().unwrap();
    assert_eq!(snap.live_bytes(), 0);
    // the peak of ABC bytes stayed within what the bound allows: bound + one being proved
    assert!(snap.peak_bytes() <= (stats.resident_bound) * (64 << 10));
}

#[test]
fn failures_and_panics_are_results() {
    // The prover's panic below is expected: keep its message out of the test's output.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map_or("", String::as_str);
        if !text.starts_with("prover bug") {
            default_hook(info);
        }
    }));
    let registry = Registry::new().unwrap();
    let engine = Engine::new(&config(&registry), Buffers::default()).unwrap();
    let mut parts: Vec<Part> = (0..6).map(|i| part(i, 4096)).collect();
    parts[2].fail_synth = true;
    parts[4].panic_prove = true;
    let job = engine.submit(parts).unwrap();
    assert!(matches!(job.result(0), Err(Error::STATE) | Ok(_)));
    job.wait().unwrap();
    let r2 = job.result(2).unwrap();
    assert_eq!(r2.status, Err(Error::INVAL));
    assert_eq!(r2.detail, "partition 2 refused");
    let r4 = job.result(4).unwrap();
    assert_eq!(r4.status, Err(Error::STATE));
    assert!(
        r4.detail
            .contains("prove panicked: prover bug on partition 4"),
        "{}",
        r4.detail
    );
    assert_eq!(job.take_output(4), None);
    for i in [0, 1, 3, 5] {
        assert_eq!(job.result(i).unwrap().status, Ok(()));
        assert!(job.take_output(i).is_some());
    }
    assert_eq!(job.result(6).unwrap_err(), Error::INVAL);
    let stats = engine.stats();
    assert_eq!((stats.proved, stats.failed), (4, 2));
    // the panicking prover's charge was released by the engine when it closed the ledger
    assert_eq!(registry.snapshot().unwrap().live_bytes(), 0);
}

#[test]
fn cancel_and_drop_discard_what_was_synthesized() {
    let registry = Registry::new().unwrap();
    let stages = Buffers {
        prove_ms: 20,
        ..Buffers::default()
    };
    let engine = Arc::new(Engine::new(&config(&registry), stages).unwrap());
    let n = 16u64;
    let job = engine
        .submit((0..n).map(|i| part(i, 1 << 16)).collect())
        .unwrap();
    while engine.stages().synthesized.load(Ordering::Relaxed) < 3 {
        thread::sleep(Duration::from_millis(1));
    }
    job.cancel();
    assert_eq!(job.wait_timeout(Duration::from_secs(60)), Ok(()));
    let (mut ok, mut canceled) = (0u64, 0u64);
    for i in 0..n as usize {
        match job.result(i).unwrap().status {
            Ok(()) => ok += 1,
            Err(Error::CANCELED) => canceled += 1,
            Err(e) => panic!("partition {i}: {e}"),
        }
    }
    assert_eq!(ok + canceled, n);
    assert!(canceled > 0);
    let s = engine.stages();
    let synthesized = s.synthesized.load(Ordering::Relaxed);
    assert_eq!(
        synthesized,
        s.proved.load(Ordering::Relaxed) + s.discarded.load(Ordering::Relaxed)
    );
    assert_eq!(registry.snapshot().unwrap().live_bytes(), 0);

    // A second job, held in synthesis, then the engine dropped: its partitions end canceled,
    // the job stays readable, nothing stays charged.
    engine.stages().hold.store(true, Ordering::Release);
    let job2 = engine
        .submit((0..4).map(|i| part(i, 4096)).collect())
        .unwrap();
    let releaser = {
        let engine = engine.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            engine.stages().hold.store(false, Ordering::Release);
        })
    };
    releaser.join().unwrap();
    let engine = Arc::try_unwrap(engine).ok().expect("the only handle");
    drop(engine);
    job2.wait().unwrap();
    for i in 0..4 {
        let r = job2.result(i).unwrap();
        assert!(matches!(r.status, Ok(()) | Err(Error::CANCELED)), "{r:?}");
    }
    assert_eq!(registry.snapshot().unwrap().live_bytes(), 0);
}

#[test]
fn the_byte_budget_refuses_a_partition_larger_than_all_of_it() {
    let registry = Registry::new().unwrap();
    let cfg = EngineConfig {
        budget_bytes: 1 << 20,
        ..config(&registry)
    };
    let engine = Engine::new(&cfg, Buffers::default()).unwrap();
    let job = engine
        .submit(vec![part(1, 4096), part(2, 2 << 20)])
        .unwrap();
    job.wait().unwrap();
    assert_eq!(job.result(0).unwrap().status, Ok(()));
    assert_eq!(job.result(1).unwrap().status, Err(Error::TOOBIG));
    engine.drain().unwrap();
    assert_eq!(engine.submit(vec![part(3, 1)]).err(), Some(Error::CLOSED));
    assert_eq!(engine.submit(Vec::new()).err(), Some(Error::INVAL));
}

/// Auto concurrency from the safe wrapper: synthesis the bottleneck, started at one permit, the
/// prover finds nothing ready while partitions wait for a permit, so the engine admits every
/// synthesis worker; the budget it was given bounds the bytes, and every unit comes back.
#[test]
fn auto_concurrency_admits_more_for_a_starved_prover() {
    let registry = Registry::new().unwrap();
    let cfg = EngineConfig {
        synth_workers: 3,
        permits: 1,
        budget_bytes: 64 << 20,
        concurrency: Concurrency::Auto,
        ..config(&registry)
    };
    let stages = Buffers {
        synth_ms: 20,
        ..Buffers::default()
    };
    let engine = Engine::new(&cfg, stages).unwrap();
    let first = engine.stats();
    assert_eq!(first.permits_admitted, 1);
    assert_eq!(first.budget_bytes, 64 << 20);
    assert_eq!(first.bound, 3 + 1); // synth_workers + capacity with auto
    let n = 30u64;
    let job = engine
        .submit((0..n).map(|i| part(i, 4096)).collect())
        .unwrap();
    job.wait().unwrap();
    for i in 0..n as usize {
        let r = job.result(i).unwrap();
        assert_eq!(r.status, Ok(()), "partition {i}: {}", r.detail);
    }
    engine.drain().unwrap();
    let stats = engine.stats();
    assert_eq!(stats.proved, n);
    assert_eq!(stats.permits_admitted, 3, "{stats:?}");
    assert!(stats.prover_idle_ns > 0);
    assert!(stats.peak_in_flight <= stats.bound);
    assert_eq!(stats.budget_available, stats.budget_bytes);
    assert_eq!(stats.over_reservation_events, 0);
    assert_eq!(registry.snapshot().unwrap().live_bytes(), 0);
}

/// Reservations that follow the ledgers give bytes back before their partitions end; whole
/// ones never do.
#[test]
fn reservations_follow_the_ledgers_or_stay_whole() {
    for (reservation, early) in [(Reservation::Follow, true), (Reservation::Whole, false)] {
        let registry = Registry::new().unwrap();
        let cfg = EngineConfig {
            budget_bytes: 1 << 20,
            reservation,
            ..config(&registry)
        };
        let engine = Engine::new(&cfg, Buffers::default()).unwrap();
        let job = engine
            .submit((0..8).map(|i| part(i, 64 << 10)).collect())
            .unwrap();
        job.wait().unwrap();
        engine.drain().unwrap();
        let stats = engine.stats();
        assert_eq!(stats.proved, 8);
        assert_eq!(
            stats.budget_returned_early > 0,
            early,
            "{reservation:?}: {stats:?}"
        );
        assert_eq!(stats.budget_available, 1 << 20);
    }
}
