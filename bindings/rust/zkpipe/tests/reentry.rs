//! Calls into the engine from its own stage operations, from safe Rust: dropping the last
//! `Arc<Engine>` inside `prove` or `synthesize` tears the engine down once its workers are done
//! (no use after free), `drain` and a job's `wait` there are a clean `Err(STATE)` with the
//! engine's line, and dropping a job inside its own partition cancels the rest and returns.
//! Each case runs within a time limit; a hang fails it.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use zkpipe::{Backend, Call, Engine, EngineConfig, Error, Job, Registry, StageError, Stages};

const LIMIT: Duration = Duration::from_secs(60);
const PARTITIONS: usize = 8;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Action {
    DropEngine,
    Drain,
    WaitOwnJob,
    DropOwnJob,
}

struct Host {
    action: Action,
    in_synth: bool,
    engine: Mutex<Option<Arc<Engine<Host>>>>,
    job: Mutex<Option<Job<Host>>>,
    fired: AtomicBool,
    got: Mutex<Vec<zkpipe::Result<()>>>,
    proved: AtomicU64,
}

impl Host {
    fn new(action: Action, in_synth: bool) -> Host {
        Host {
            action,
            in_synth,
            engine: Mutex::new(None),
            job: Mutex::new(None),
            fired: AtomicBool::new(false),
            got: Mutex::new(Vec::new()),
            proved: AtomicU64::new(0),
        }
    }

    /// The misuse, once.
    fn act(&self) {
        if self.fired.swap(true, Ordering::AcqRel) {
            return;
        }
        match self.action {
            Action::DropEngine => drop(self.engine.lock().unwrap().take()),
            Action::Drain => {
                let engine = self.engine.lock().unwrap().clone().unwrap();
                let r = engine.drain();
                self.got.lock().unwrap().push(r);
            }
            Action::WaitOwnJob => {
                let job = self.published();
                let a = job.as_ref().unwrap().wait();
                let b = job.as_ref().unwrap().wait_timeout(Duration::from_millis(1));
                self.got.lock().unwrap().extend([a, b]);
            }
            Action::DropOwnJob => drop(self.published().take()),
        }
        // The engine's other threads run on meanwhile: a teardown done too early shows.
        thread::sleep(Duration::from_millis(20));
    }

    fn published(&self) -> std::sync::MutexGuard<'_, Option<Job<Host>>> {
        loop {
            let job = self.job.lock().unwrap();
            if job.is_some() {
                return job;
            }
            drop(job);
            thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Stages for Host {
    type Input = ();
    type Item = Vec<u8>;
    type Output = ();

    fn synthesize(&self, _call: &mut Call, _input: &()) -> Result<Vec<u8>, StageError> {
        if self.in_synth {
            self.act();
        }
        Ok(vec![7; 64])
    }

    fn prove(&self, _call: &mut Call, _input: &(), item: Vec<u8>) -> Result<(), StageError> {
        if !self.in_synth {
            self.act();
        }
        assert_eq!(item, vec![7; 64]);
        self.proved.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

fn config(registry: &Registry) -> EngineConfig {
    EngineConfig {
        synth_workers: 1,
        permits: 1,
        capacity: 1,
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        ..EngineConfig::default()
    }
}

/// Runs `f` on a thread of its own, failing the test when it has not returned within LIMIT.
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(LIMIT).expect("the case hung")
}

/// Every partition proved or cancelled; how many were proved.
fn proved(job: &Job<Host>) -> usize {
    (0..job.len())
        .filter(|&i| {
            let r = job.result(i).unwrap();
            assert!(
                r.status.is_ok() || r.status == Err(Error::CANCELED),
                "{r:?}"
            );
            r.status.is_ok()
        })
        .count()
}

fn drop_engine_inside(in_synth: bool) {
    within(move || {
        let registry = Registry::new().unwrap();
        let engine = Arc::new(
            Engine::new(&config(&registry), Host::new(Action::DropEngine, in_synth)).unwrap(),
        );
        *engine.stages().engine.lock().unwrap() = Some(engine.clone());
        let job = engine.submit(vec![(); PARTITIONS]).unwrap();
        // The partitions now hold the only reference: the engine goes from inside.
        drop(engine);
        job.wait_timeout(LIMIT).unwrap();
        let n = proved(&job);
        assert!(
            in_synth || n >= 1,
            "the partition that dropped the engine was proved"
        );
        // The job, and the registry the engine kept, outlive the engine.
        drop(job);
        drop(registry);
    });
}

#[test]
fn dropping_the_last_engine_inside_prove_is_sound() {
    drop_engine_inside(false);
}

#[test]
fn dropping_the_last_engine_inside_synthesize_is_sound() {
    drop_engine_inside(true);
}

#[test]
fn drain_inside_prove_is_an_error() {
    within(|| {
        let registry = Registry::new().unwrap();
        let engine =
            Arc::new(Engine::new(&config(&registry), Host::new(Action::Drain, false)).unwrap());
        *engine.stages().engine.lock().unwrap() = Some(engine.clone());
        let job = engine.submit(vec![(); PARTITIONS]).unwrap();
        job.wait_timeout(LIMIT).unwrap();
        assert_eq!(
            *engine.stages().got.lock().unwrap(),
            vec![Err(Error::STATE)]
        );
        assert_eq!(proved(&job), PARTITIONS);
        // Break the cycle engine -> stages -> engine, then drain from here: it works.
        engine.stages().engine.lock().unwrap().take();
        engine.drain().unwrap();
    });
}

#[test]
fn waiting_for_its_own_job_inside_prove_is_an_error() {
    within(|| {
        let registry = Registry::new().unwrap();
        let engine = Engine::new(&config(&registry), Host::new(Action::WaitOwnJob, false)).unwrap();
        let job = engine.submit(vec![(); PARTITIONS]).unwrap();
        // The job is the operations' to wait for; the test waits through the engine.
        *engine.stages().job.lock().unwrap() = Some(job);
        engine.drain().unwrap();
        assert_eq!(
            *engine.stages().got.lock().unwrap(),
            vec![Err(Error::STATE), Err(Error::STATE)]
        );
        let job = engine.stages().job.lock().unwrap().take().unwrap();
        assert_eq!(proved(&job), PARTITIONS);
    });
}

#[test]
fn dropping_its_own_job_inside_prove_cancels_the_rest() {
    within(|| {
        let registry = Registry::new().unwrap();
        let engine = Engine::new(&config(&registry), Host::new(Action::DropOwnJob, false)).unwrap();
        let job = engine.submit(vec![(); PARTITIONS]).unwrap();
        *engine.stages().job.lock().unwrap() = Some(job);
        engine.drain().unwrap();
        assert!(engine.stages().job.lock().unwrap().is_none());
        let s = engine.stats();
        assert_eq!(s.proved + s.canceled, PARTITIONS as u64);
        assert!(s.proved >= 1 && s.canceled >= 1, "{s:?}");
        assert_eq!(engine.stages().proved.load(Ordering::Relaxed), s.proved);
        // Nothing left accounted: every ledger of the freed job was closed.
        assert_eq!(registry.snapshot().unwrap().live_bytes(), 0);
    });
}
