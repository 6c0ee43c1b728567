//! A Rust host's own stage operations through zkpipe's engine (the Rust counterpart of
//! tools/zkpipe_host_pipeline.c): synthesis allocates, fills and charges real buffers (a/b/c as
//! kind `abc`, the rest as a kind the host registers) with some work; proving releases a/b/c
//! first, then the rest. The engine does the permits, the byte budget, the accounted narrow
//! waist, the ledger moves and the results.
//!
//!   cargo run --example engine_pipeline -- [--partitions N] [--synth-workers W]
//!       [--permits P] [--capacity C] [--prover-workers R] [--abc-mib A] [--aux-mib X]
//!       [--synth-ms S] [--prove-ms T] [--budget-mib B] [--auto] [--json]
//!
//! With `--auto` the engine chooses how many partitions it admits (starting at --permits, up
//! to --synth-workers); the permits it ended on are printed (`permits_final` in the JSON).
//!
//! At the end it prints the counters (as JSON with --json) and checks that every partition
//! was proved with the right checksum, nothing stays charged, at most permits + capacity
//! partitions were ever in flight, and the accounted peak stayed within what the partitions
//! the engine lets hold buffers at once can charge.
use std::thread;
use std::time::{Duration, Instant};

use zkpipe::{
    Backend, Call, Concurrency, Engine, EngineConfig, Kind, Registry, StageError, Stages,
};

mod cli;

struct Options {
    partitions: u64,
    synth_workers: u32,
    permits: u64,
    capacity: usize,
    prover_workers: u32,
    abc_mib: u64,
    aux_mib: u64,
    synth_ms: u64,
    prove_ms: u64,
    budget_mib: u64,
    auto: bool,
    json: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        partitions: 16,
        synth_workers: 4,
        permits: 2,
        capacity: 2,
        prover_workers: 1,
        abc_mib: 8,
        aux_mib: 2,
        synth_ms: 5,
        prove_ms: 10,
        budget_mib: 0,
        auto: false,
        json: false,
    };
    cli::parse(&["--auto", "--json"], |flag, n| {
        match flag {
            "--partitions" => o.partitions = n,
            "--synth-workers" => o.synth_workers = cli::small(flag, n)?,
            "--permits" => o.permits = n,
            "--capacity" => o.capacity = n as usize,
            "--prover-workers" => o.prover_workers = cli::small(flag, n)?,
            "--abc-mib" => o.abc_mib = n,
            "--aux-mib" => o.aux_mib = n,
            "--synth-ms" => o.synth_ms = n,
            "--prove-ms" => o.prove_ms = n,
            "--budget-mib" => o.budget_mib = n,
            "--auto" => o.auto = true,
            "--json" => o.json = true,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    if o.partitions == 0 || o.abc_mib + o.aux_mib > 1024 {
        return Err("--partitions at least 1, --abc-mib + --aux-mib at most 1024".into());
    }
    Ok(o)
}

/// One partition's buffers between the phases.
struct Witness {
    abc: Vec<u8>,
    aux: Vec<u8>,
}

struct HostStages {
    aux_kind: Kind,
    abc_bytes: usize,
    aux_bytes: usize,
    synth_ms: u64,
    prove_ms: u64,
}

fn fill(buf: &mut [u8], seed: u64) {
    let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
    for chunk in buf.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let bytes = x.to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

fn checksum(buf: &[u8]) -> u64 {
    buf.chunks(8).fold(0u64, |s, c| {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        s.rotate_left(5) ^ u64::from_le_bytes(b)
    })
}

impl Stages for HostStages {
    type Input = u64; // the partition's seed
    type Item = Witness;
    type Output = u64; // the checksum of its buffers

    fn estimate(&self, _call: &Call, _seed: &u64) -> Result<u64, StageError> {
        Ok((self.abc_bytes + self.aux_bytes) as u64)
    }

    fn synthesize(&self, call: &mut Call, seed: &u64) -> Result<Witness, StageError> {
        let mut w = Witness {
            abc: vec![0; self.abc_bytes],
            aux: vec![0; self.aux_bytes],
        };
        call.charge(Kind::ABC, w.abc.len() as u64)?;
        call.charge(self.aux_kind, w.aux.len() as u64)?;
        fill(&mut w.abc, *seed);
        fill(&mut w.aux, !*seed);
        thread::sleep(Duration::from_millis(self.synth_ms));
        Ok(w)
    }

    fn prove(&self, call: &mut Call, _seed: &u64, w: Witness) -> Result<u64, StageError> {
        let sum = checksum(&w.abc);
        call.release(Kind::ABC, w.abc.len() as u64)?;
        drop(w.abc);
        thread::sleep(Duration::from_millis(self.prove_ms));
        let sum = sum ^ checksum(&w.aux).rotate_left(1);
        call.release(self.aux_kind, w.aux.len() as u64)?;
        Ok(sum)
    }
}

fn expected(seed: u64, abc: usize, aux: usize) -> u64 {
    let (mut a, mut x) = (vec![0; abc], vec![0; aux]);
    fill(&mut a, seed);
    fill(&mut x, !seed);
    checksum(&a) ^ checksum(&x).rotate_left(1)
}

fn run(o: &Options) -> Result<(), String> {
    let registry = Registry::new().map_err(|e| e.to_string())?;
    let aux_kind = registry
        .register_kind("host_aux")
        .map_err(|e| e.to_string())?;
    let mib = 1usize << 20;
    let stages = HostStages {
        aux_kind,
        abc_bytes: o.abc_mib as usize * mib,
        aux_bytes: o.aux_mib as usize * mib,
        synth_ms: o.synth_ms,
        prove_ms: o.prove_ms,
    };
    let config = EngineConfig {
        synth_workers: o.synth_workers,
        permits: o.permits,
        capacity: o.capacity,
        prover_workers: o.prover_workers,
        budget_bytes: o.budget_mib << 20,
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        concurrency: if o.auto {
            Concurrency::Auto
        } else {
            Concurrency::Fixed
        },
        ..EngineConfig::default()
    };
    let engine = Engine::new(&config, stages).map_err(|e| format!("engine: {e}"))?;
    let start = Instant::now();
    let job = engine
        .submit((1..=o.partitions).collect())
        .map_err(|e| format!("submit: {e}"))?;
    job.wait().unwrap();
    let secs = start.elapsed().as_secs_f64();
    let stats = engine.stats();
    let snap = registry.snapshot().map_err(|e| e.to_string())?;
    let s = engine.stages();
    let mut problems = Vec::new();
    for (i, seed) in job.inputs().enumerate() {
        let r = job.result(i).map_err(|e| e.to_string())?;
        if let Err(e) = r.status {
            problems.push(format!("partition {i}: {e}: {}", r.detail));
        } else if job.take_output(i) != Some(expected(*seed, s.abc_bytes, s.aux_bytes)) {
            problems.push(format!("partition {i}: wrong checksum"));
        }
    }
    let per_partition = (s.abc_bytes + s.aux_bytes) as u64;
    if snap.live_bytes() != 0 {
        problems.push(format!("{} bytes still charged", snap.live_bytes()));
    }
    if stats.peak_in_flight > stats.bound {
        problems.push(format!(
            "{} in flight, over the bound {}",
            stats.peak_in_flight, stats.bound
        ));
    }
    if snap.peak_bytes() > stats.resident_bound * per_partition {
        problems.push(format!(
            "peak {} bytes over {} partitions' worth",
            snap.peak_bytes(),
            stats.resident_bound
        ));
    }
    if o.json {
        println!(
            "{{\"partitions\":{},\"proved\":{},\"seconds\":{secs:.3},\"peak_in_flight\":{},\"bound\":{},\"resident_bound\":{},\"permits_final\":{},\"peak_bytes\":{},\"counters\":{}}}",
            o.partitions,
            stats.proved,
            stats.peak_in_flight,
            stats.bound,
            stats.resident_bound,
            stats.permits_admitted,
            snap.peak_bytes(),
            snap.json().map_err(|e| e.to_string())?
        );
    } else {
        println!("{}", snap.summary().map_err(|e| e.to_string())?);
        println!(
            "{} of {} partitions proved in {secs:.2} s; at most {} in flight (bound {}), {} permits admitted at the end, peak {:.1} MiB (at most {} partitions of {:.1} MiB)",
            stats.proved,
            o.partitions,
            stats.peak_in_flight,
            stats.bound,
            stats.permits_admitted,
            snap.peak_bytes() as f64 / mib as f64,
            stats.resident_bound,
            per_partition as f64 / mib as f64
        );
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn main() {
    let o = cli::or_exit("engine_pipeline", options());
    if let Err(e) = run(&o) {
        eprintln!("engine_pipeline: FAILED\n{e}");
        std::process::exit(1);
    }
}
