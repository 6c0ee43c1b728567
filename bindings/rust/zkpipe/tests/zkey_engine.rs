//! Circom witnesses through the engine's built-in zkey partitions from Rust, on the interop
//! fixtures: every proof verifies with its public signals, a bad partition fails alone with a
//! detail line naming its file, a host's own partitions run beside them in one engine, and
//! nothing stays accounted.

use std::path::PathBuf;
use std::sync::Arc;

mod common;
use common::fixture;
use zkpipe::{
    Backend, Call, Engine, EngineConfig, Error, NoStages, Registry, StageError, Stages, Witness,
    Zkey, ZkeyOptions, ZkeySource,
};

fn config(registry: &Registry, budget_bytes: u64) -> EngineConfig {
    EngineConfig {
        synth_workers: 2,
        permits: 2,
        budget_bytes,
        prover_workers: 2,
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        ..EngineConfig::default()
    }
}

#[test]
fn witnesses_prove_through_the_engine() {
    for (dir, other) in [("bn128", "bls12381"), ("bls12381", "bn128")] {
        let registry = Registry::new().unwrap();
        // A budget well above one partition's estimate: admission by bytes is exercised.
        let engine = Engine::new(&config(&registry, 64 << 20), NoStages).unwrap();
        let source = Arc::new(
            ZkeySource::open(fixture(dir, "circuit.zkey"), &ZkeyOptions::default()).unwrap(),
        );
        let zkey = Zkey::open(fixture(dir, "circuit.zkey"), &ZkeyOptions::default()).unwrap();
        assert_eq!(source.info(), zkey.info());
        let good = fixture(dir, "witness.wtns");
        let missing = fixture(dir, "no-such.wtns");
        let foreign = fixture(other, "witness.wtns");
        let paths = [&good, &good, &missing, &good, &foreign, &good];
        let job = engine.submit_zkey(&source, &paths).unwrap();
        assert_eq!(job.len(), paths.len());
        job.wait().unwrap();
        let witness = Witness::open(&good).unwrap();
        let want = witness.public(&zkey).unwrap();
        let mut proofs = Vec::new();
        for i in [0, 1, 3, 5] {
            let r = job.result(i).unwrap();
            assert_eq!(r.status, Ok(()), "{}", r.detail);
            let (proof, public) = job.proof(i).unwrap();
            assert_eq!(public, want);
            zkey.verifying_key().verify(public, &proof).unwrap();
            proofs.push(proof);
        }
        assert_ne!(proofs[0], proofs[1]); // fresh blinding per partition
        let r = job.result(2).unwrap();
        assert_eq!(r.status, Err(Error::IO));
        assert!(r.detail.contains("no-such.wtns"), "{}", r.detail);
        assert_eq!(job.proof(2).unwrap_err(), Error::IO);
        let r = job.result(4).unwrap();
        assert_eq!(r.status, Err(Error::MISMATCH));
        assert!(r.detail.contains("witness.wtns"), "{}", r.detail);
        assert_eq!(job.result(6).unwrap_err(), Error::INVAL);
        let stats = engine.stats();
        assert_eq!((stats.proved, stats.failed), (4, 2));
        drop(job);
        drop(engine);
        let s = registry.snapshot().unwrap();
        assert_eq!((s.live_items(), s.live_bytes()), (0, 0));
    }
}

/// A host's own partitions: each "proves" by summing its input, charging a buffer meanwhile.
struct Summer;

impl Stages for Summer {
    type Input = Vec<u64>;
    type Item = Vec<u64>;
    type Output = u64;

    fn synthesize(&self, call: &mut Call, input: &Vec<u64>) -> Result<Vec<u64>, StageError> {
        call.charge(zkpipe::Kind::ABC, 8 * input.len() as u64)?;
        Ok(input.clone())
    }

    fn prove(&self, call: &mut Call, _input: &Vec<u64>, item: Vec<u64>) -> Result<u64, StageError> {
        call.release(zkpipe::Kind::ABC, 8 * item.len() as u64)?;
        Ok(item.iter().sum())
    }
}

#[test]
fn host_and_circom_partitions_share_one_engine() {
    let registry = Registry::new().unwrap();
    let engine = Engine::new(&config(&registry, 0), Summer).unwrap();
    let source = Arc::new(
        ZkeySource::open(fixture("bn128", "circuit.zkey"), &ZkeyOptions::default()).unwrap(),
    );
    let circom = engine
        .submit_zkey(&source, &vec![fixture("bn128", "witness.wtns"); 3])
        .unwrap();
    let host = engine.submit(vec![vec![1, 2, 3], vec![10, 20]]).unwrap();
    engine.drain().unwrap();
    assert_eq!(host.take_output(0), Some(6));
    assert_eq!(host.take_output(1), Some(30));
    let zkey = Zkey::open(fixture("bn128", "circuit.zkey"), &ZkeyOptions::default()).unwrap();
    for i in 0..circom.len() {
        let (proof, public) = circom.proof(i).unwrap();
        zkey.verifying_key().verify(public, &proof).unwrap();
    }
    // The source outlives the caller's handle while a job holds it.
    drop(source);
    assert!(circom.proof(0).is_ok());
    drop((circom, host, engine));
    let s = registry.snapshot().unwrap();
    assert_eq!((s.live_items(), s.live_bytes()), (0, 0));
}

#[test]
fn bad_submissions_are_refused() {
    let engine = Engine::new(&EngineConfig::default(), NoStages).unwrap();
    let source = Arc::new(
        ZkeySource::open(fixture("bn128", "circuit.zkey"), &ZkeyOptions::default()).unwrap(),
    );
    let none: [PathBuf; 0] = [];
    assert_eq!(
        engine.submit_zkey(&source, &none).unwrap_err(),
        Error::INVAL
    );
    assert_eq!(engine.submit(Vec::new()).err(), Some(Error::INVAL));
    let e =
        ZkeySource::open(fixture("bn128", "witness.wtns"), &ZkeyOptions::default()).unwrap_err();
    assert_eq!(e.error, Error::FORMAT);
    assert!(!e.detail.is_empty());
    engine.close();
    assert_eq!(
        engine
            .submit_zkey(&source, &[fixture("bn128", "witness.wtns")])
            .unwrap_err(),
        Error::CLOSED
    );
}
