//! Batched proving from Rust: with `max_batch` > 1 and `BATCHED` stages, the prover worker
//! proves what is ready together, never more than `max_batch`, each partition with its own
//! ledger and result; a batch that returns too few results or panics fails its partitions with
//! a line each, never the process.
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use zkpipe::{Backend, Call, Engine, EngineConfig, Error, Kind, Registry, StageError, Stages};

const LIMIT: Duration = Duration::from_secs(120);

#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    Good,
    Short,
    Panic,
}

struct Batcher {
    mode: Mode,
    largest: AtomicU64,
    batches: AtomicU64,
}

impl Stages for Batcher {
    type Input = usize;
    type Item = Vec<u8>;
    type Output = usize;

    const BATCHED: bool = true;

    fn synthesize(&self, call: &mut Call, input: &usize) -> Result<Vec<u8>, StageError> {
        call.charge(Kind::ABC, 1024)?;
        Ok(vec![*input as u8; 1024])
    }

    fn prove(&self, call: &mut Call, input: &usize, item: Vec<u8>) -> Result<usize, StageError> {
        assert_eq!(item[0], *input as u8);
        call.release(Kind::ABC, 1024)?;
        if input % 3 == 2 {
            return Err(StageError::new(
                Error::UNSATISFIED,
                format!("{input} alone"),
            ));
        }
        Ok(*input)
    }

    fn prove_batch(
        &self,
        calls: &mut [Call],
        inputs: &[&usize],
        items: Vec<Vec<u8>>,
    ) -> Vec<Result<usize, StageError>> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.largest
            .fetch_max(items.len() as u64, Ordering::Relaxed);
        thread::sleep(Duration::from_millis(5));
        let mut out: Vec<_> = calls
            .iter_mut()
            .zip(inputs)
            .zip(items)
            .map(|((call, input), item)| self.prove(call, input, item))
            .collect();
        match self.mode {
            Mode::Good => {}
            Mode::Short => {
                out.pop();
            }
            Mode::Panic => panic!("the device fell over"),
        }
        out
    }
}

fn engine(mode: Mode, registry: &Registry) -> Engine<Batcher> {
    let config = EngineConfig {
        capacity: 4,
        max_batch: 4,
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        ..EngineConfig::default()
    };
    let stages = Batcher {
        mode,
        largest: AtomicU64::new(0),
        batches: AtomicU64::new(0),
    };
    Engine::new(&config, stages).unwrap()
}

#[test]
fn batches_form_and_fail_individually() {
    let registry = Registry::new().unwrap();
    let engine = engine(Mode::Good, &registry);
    assert_eq!(
        engine.stats().resident_bound,
        engine.stats().bound + 4,
        "one prover of batches of 4"
    );
    let job = engine.submit((0..40).collect()).unwrap();
    job.wait_timeout(LIMIT).unwrap();
    for i in 0..job.len() {
        let r = job.result(i).unwrap();
        if i % 3 == 2 {
            assert_eq!(r.status, Err(Error::UNSATISFIED));
            assert_eq!(r.detail, format!("{i} alone"));
        } else {
            assert_eq!(r.status, Ok(()), "{}", r.detail);
            assert_eq!(job.take_output(i), Some(i));
        }
    }
    let largest = engine.stages().largest.load(Ordering::Relaxed);
    assert!((2..=4).contains(&largest), "largest batch {largest}");
    engine.drain().unwrap();
    assert_eq!(registry.snapshot().unwrap().live_bytes(), 0);
}

#[test]
fn a_short_or_panicking_batch_fails_its_partitions() {
    for mode in [Mode::Short, Mode::Panic] {
        let registry = Registry::new().unwrap();
        let engine = engine(mode, &registry);
        let job = engine.submit((0..12).collect()).unwrap();
        job.wait_timeout(LIMIT).unwrap();
        let mut failed = 0;
        for i in 0..job.len() {
            let r = job.result(i).unwrap();
            if r.status == Err(Error::STATE) {
                let said = if mode == Mode::Short {
                    "results for"
                } else {
                    "the device fell over"
                };
                assert!(r.detail.contains(said), "{}", r.detail);
                failed += 1;
            }
        }
        assert!(failed >= 1);
        drop(job);
        drop(engine);
        assert_eq!(registry.snapshot().unwrap().live_bytes(), 0);
    }
}
