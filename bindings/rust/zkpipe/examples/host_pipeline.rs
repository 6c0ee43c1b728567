//! A host pipeline in Rust on zkpipe's narrow waist: synthesis workers fill large buffers
//! under a partition permit, send them through the accounted channel still holding the
//! permit, and provers consume them; a reporter prints the counters as they move.
//!
//!   cargo run --example host_pipeline -- [--partitions N] [--synth-workers W] [--permits P]
//!       [--capacity C] [--provers R] [--mib M] [--prove-ms T] [--json]
//!
//! At the end it prints the final counters (as JSON with --json) and checks that every
//! partition was proved, everything released, at most permits + capacity partitions were ever
//! held before the provers, and the accounted peak stayed within that plus the provers' own.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use zkpipe::{Channel, Kind, Ledger, Registry, Semaphore, Stage};

mod cli;

struct Options {
    partitions: usize,
    synth_workers: usize,
    permits: u64,
    capacity: usize,
    provers: usize,
    mib: usize,
    prove_ms: u64,
    json: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        partitions: 24,
        synth_workers: 4,
        permits: 2,
        capacity: 2,
        provers: 1,
        mib: 8,
        prove_ms: 5,
        json: false,
    };
    cli::parse(&["--json"], |flag, n| {
        match flag {
            "--partitions" => o.partitions = n as usize,
            "--synth-workers" => o.synth_workers = n as usize,
            "--permits" => o.permits = n,
            "--capacity" => o.capacity = n as usize,
            "--provers" => o.provers = n as usize,
            "--mib" => o.mib = n as usize,
            "--prove-ms" => o.prove_ms = n,
            "--json" => o.json = true,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    if o.synth_workers == 0 || o.provers == 0 || o.permits == 0 || o.capacity == 0 {
        return Err("workers, provers, permits and capacity must be at least 1".into());
    }
    Ok(o)
}

/// A synthesized partition: its a/b/c evaluations (one buffer here) and a checksum.
struct Partition {
    index: usize,
    abc: Vec<u64>,
    sum: u64,
}

fn synthesize(index: usize, words: usize) -> Partition {
    let abc: Vec<u64> = (0..words as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index as u64)
        .collect();
    let sum = abc.iter().fold(0u64, |a, &x| a.wrapping_add(x));
    Partition { index, abc, sum }
}

fn main() {
    let o = cli::or_exit("host_pipeline", options());
    let reg = Registry::new().expect("registry");
    let permits = Semaphore::new(o.permits).expect("semaphore");
    let chan = Arc::new(Channel::<Partition>::new(o.capacity).expect("channel"));
    let next = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let bytes = (o.mib << 20) as u64;
    let words = o.mib << 17;
    let started = Instant::now();

    // The reporter: the summary line, and the highest count of partitions before the provers.
    let reporter = {
        let (reg, stop) = (reg.clone(), stop.clone());
        thread::spawn(move || {
            let mut worst = 0;
            let mut last = Instant::now();
            while !stop.load(Ordering::Acquire) {
                let s = reg.snapshot().expect("snapshot");
                let waist: u64 = [Stage::SYNTH, Stage::PENDING, Stage::QUEUED]
                    .iter()
                    .map(|&st| s.stage(st).map_or(0, |c| c.live_items))
                    .sum();
                worst = worst.max(waist);
                if last.elapsed() >= Duration::from_millis(100) {
                    println!("{}", s.summary().expect("summary"));
                    last = Instant::now();
                }
                thread::sleep(Duration::from_millis(1));
            }
            worst
        })
    };

    let synth: Vec<_> = (0..o.synth_workers)
        .map(|_| {
            let (reg, permits, chan, next) =
                (reg.clone(), permits.clone(), chan.clone(), next.clone());
            let partitions = o.partitions as u64;
            thread::spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= partitions {
                    return;
                }
                // The permit bounds partitions in synthesis and waiting for the channel.
                let permit = permits.acquire(1).expect("permit");
                let mut ledger = Ledger::open(&reg, Stage::SYNTH).expect("ledger");
                ledger.charge(Kind::ABC, bytes).expect("charge");
                let part = synthesize(index as usize, words);
                ledger.move_to(Stage::PENDING).expect("move");
                // Held until the channel takes the partition: that is the narrow waist.
                if let Err(e) = chan.send(part, Some(ledger), Some(permit)) {
                    panic!("send: {e}");
                }
            })
        })
        .collect();

    let provers: Vec<_> = (0..o.provers)
        .map(|_| {
            let chan = chan.clone();
            let prove = Duration::from_millis(o.prove_ms);
            thread::spawn(move || {
                let mut proved = 0usize;
                while let Ok(r) = chan.recv() {
                    let mut ledger = r.ledger.expect("ledger");
                    let part = r.value;
                    let sum = part.abc.iter().fold(0u64, |a, &x| a.wrapping_add(x));
                    assert_eq!(sum, part.sum, "partition {} corrupted", part.index);
                    thread::sleep(prove);
                    drop(part.abc);
                    ledger.release(Kind::ABC, bytes).expect("release");
                    ledger.move_to(Stage::FINALIZE).expect("move");
                    ledger.close();
                    proved += 1;
                }
                proved
            })
        })
        .collect();

    for t in synth {
        t.join().expect("synthesis worker");
    }
    chan.close();
    let proved: usize = provers.into_iter().map(|t| t.join().expect("prover")).sum();
    stop.store(true, Ordering::Release);
    let worst = reporter.join().expect("reporter");

    let s = reg.snapshot().expect("snapshot");
    if o.json {
        print!("{}", s.json().expect("json"));
    } else {
        println!("{}", s.summary().expect("summary"));
    }
    let bound = o.permits + o.capacity as u64;
    let resident = (bound + o.provers as u64) * bytes;
    println!(
        "proved {proved}/{} partitions of {} MiB in {:.2} s; at most {worst} partitions before \
         the provers (bound {bound}); peak {} MiB accounted",
        o.partitions,
        o.mib,
        started.elapsed().as_secs_f64(),
        s.peak_bytes() >> 20
    );
    let ok = proved == o.partitions
        && s.live_items() == 0
        && s.live_bytes() == 0
        && worst <= bound
        && s.peak_bytes() <= resident;
    if !ok {
        eprintln!("host_pipeline: FAILED");
        std::process::exit(1);
    }
}
