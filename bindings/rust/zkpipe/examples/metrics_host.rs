//! A host prover that serves its engine's metrics while it works: the registry's counters and
//! the engine's series on `/metrics`, its state on `/status` (`zkpipe::http`), as a Prometheus
//! scraper would read them mid-run.
//!
//!   cargo run --example metrics_host -- [--partitions N] [--prove-ms T] [--port P] [--hold-s S]
//!
//! It serves on 127.0.0.1 (port 0: one the system picks, printed), proves N partitions of a
//! few MiB each, scrapes itself over TCP halfway through, prints the engine's series from that
//! scrape, and checks them against the engine's own counters; with --hold-s it keeps serving
//! that long after the work, for a scraper of yours (curl http://127.0.0.1:PORT/metrics).
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use zkpipe::http::{HttpConfig, Server};
use zkpipe::{Backend, Call, Engine, EngineConfig, Error, Kind, Registry, StageError, Stages};

mod cli;

struct Options {
    partitions: usize,
    prove_ms: u64,
    port: u16,
    hold_s: u64,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        partitions: 16,
        prove_ms: 20,
        port: 0,
        hold_s: 0,
    };
    cli::parse(&[], |flag, n| {
        match flag {
            "--partitions" => o.partitions = n as usize,
            "--prove-ms" => o.prove_ms = n,
            "--port" => o.port = u16::try_from(n).map_err(|_| format!("{flag}: not a port"))?,
            "--hold-s" => o.hold_s = n,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    if o.partitions < 2 {
        return Err("--partitions must be at least 2".into());
    }
    Ok(o)
}

/// A partition: a buffer synthesized and charged, proved in `prove` time.
struct Buffers {
    bytes: u64,
    prove: Duration,
}

impl Stages for Buffers {
    type Input = usize;
    type Item = Vec<u8>;
    type Output = u64;

    fn estimate(&self, _call: &Call, _input: &usize) -> Result<u64, StageError> {
        Ok(self.bytes)
    }

    fn synthesize(&self, call: &mut Call, seed: &usize) -> Result<Vec<u8>, StageError> {
        call.charge(Kind::ABC, self.bytes)?;
        Ok(vec![*seed as u8; self.bytes as usize])
    }

    fn prove(&self, call: &mut Call, _seed: &usize, item: Vec<u8>) -> Result<u64, StageError> {
        thread::sleep(self.prove);
        let sum = item.iter().map(|&b| u64::from(b)).sum();
        drop(item);
        call.release(Kind::ABC, self.bytes)?;
        Ok(sum)
    }
}

/// GET `path` from the server as a scraper does; the body.
fn scrape(port: u16, path: &str) -> Result<String, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").map_err(|e| e.to_string())?;
    let mut text = String::new();
    s.read_to_string(&mut text).map_err(|e| e.to_string())?;
    match text.split_once("\r\n\r\n") {
        Some((head, body))
            if head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200") =>
        {
            Ok(body.to_string())
        }
        _ => Err(format!(
            "{path}: {}",
            text.lines().next().unwrap_or("no answer")
        )),
    }
}

fn value(metrics: &str, name: &str) -> Option<u64> {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

fn run(o: &Options) -> Result<(), String> {
    let registry = Registry::new().map_err(|e| e.to_string())?;
    let config = EngineConfig {
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        ..EngineConfig::default()
    };
    let stages = Buffers {
        bytes: 2 << 20,
        prove: Duration::from_millis(o.prove_ms),
    };
    let engine = Arc::new(Engine::new(&config, stages).map_err(|e| e.to_string())?);
    let server = match Server::start(&HttpConfig {
        port: o.port,
        registry: Some(registry.clone()),
        ..HttpConfig::default()
    }) {
        Err(Error::UNSUPPORTED) => {
            println!("metrics_host: zkpipe was built without libmicrohttpd: nothing to serve");
            return Ok(());
        }
        r => r.map_err(|e| format!("serving: {e}"))?,
    };
    server
        .attach("engine", engine.clone())
        .map_err(|e| e.to_string())?;
    println!(
        "metrics_host: serving http://127.0.0.1:{}/metrics",
        server.port()
    );

    let job = engine
        .submit((0..o.partitions).collect())
        .map_err(|e| e.to_string())?;
    // Halfway: some proved, others in flight.
    while engine.stats().proved < (o.partitions / 2) as u64 {
        thread::sleep(Duration::from_millis(1));
    }
    let metrics = scrape(server.port(), "/metrics")?;
    let status = scrape(server.port(), "/status")?;
    for line in metrics
        .lines()
        .filter(|l| l.starts_with("zkpipe_partitions_") || l.starts_with("zkpipe_permits "))
    {
        println!("  {line}");
    }
    let submitted = value(&metrics, "zkpipe_partitions_submitted_total");
    let bound = value(&metrics, "zkpipe_partitions_resident_bound");
    let peak = value(&metrics, "zkpipe_partitions_peak_in_flight").unwrap_or(u64::MAX);
    let stats = engine.stats();
    if submitted != Some(o.partitions as u64)
        || bound != Some(stats.resident_bound)
        || peak > stats.bound
        || !status.contains("\"engine\":{")
    {
        return Err(format!("the scrape does not match the engine: {stats:?}"));
    }
    job.wait().map_err(|e| e.to_string())?;
    for i in 0..job.len() {
        job.result(i)
            .map_err(|e| e.to_string())?
            .status
            .map_err(|e| format!("partition {i}: {e}"))?;
    }
    if o.hold_s > 0 {
        println!("metrics_host: done; serving for {} s more", o.hold_s);
        thread::sleep(Duration::from_secs(o.hold_s));
    }
    println!(
        "metrics_host: {} partitions proved; the mid-run scrape matched the engine",
        o.partitions
    );
    Ok(())
}

fn main() {
    let o = cli::or_exit("metrics_host", options());
    if let Err(e) = run(&o) {
        eprintln!("metrics_host: FAILED\n{e}");
        std::process::exit(1);
    }
}
