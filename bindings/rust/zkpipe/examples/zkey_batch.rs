//! Many circom witnesses proved with one zkey through the engine (the Rust counterpart of
//! `zkpipe-pipeline --zkey`): synthesis workers compute each witness's a, b, c, the narrow
//! waist bounds how many wait, provers finish them, every buffer accounted.
//!
//!   cargo run --example zkey_batch -- [--synth-workers N] [--permits P]
//!       [--prover-workers R] [--prover-threads T] [--budget-mib B] [--full-check]
//!       --out DIR ZKEY WTNS...
//!
//! Writes DIR/<k>-<name>.proof.json and DIR/<k>-<name>.public.json for the k-th witness
//! (snarkjs's files; every proof was checked against the zkey's verifying key before it is
//! returned), prints one line per failed witness with the library's detail line, and a summary:
//! proved, failed, wall time, the accounted peak in bytes. Exits 0 when every witness was proved, 1 when
//! one was not or a file could not be written, 2 on a usage error.
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use zkpipe::{
    public_to_snarkjs_json, Backend, Engine, EngineConfig, NoStages, Registry, ZkeyOptions,
    ZkeySource,
};

const USAGE: &str = "usage: zkey_batch [--synth-workers N] [--permits P] [--prover-workers R] \
                     [--prover-threads T] [--budget-mib B] [--full-check] --out DIR ZKEY WTNS...";

struct Options {
    config: EngineConfig,
    full_check: bool,
    out: Option<PathBuf>,
    files: Vec<PathBuf>,
}

fn count(flag: &str, value: Option<String>) -> Result<u64, String> {
    let v = value.ok_or(format!("{flag} needs a value"))?;
    v.parse().map_err(|_| format!("{flag}: not a count: {v}"))
}

fn small(flag: &str, value: Option<String>) -> Result<u32, String> {
    let n = count(flag, value)?;
    u32::try_from(n).map_err(|_| format!("{flag}: too large: {n}"))
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        config: EngineConfig {
            backend: Backend::Cpu,
            ..EngineConfig::default()
        },
        full_check: false,
        out: None,
        files: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let c = &mut o.config;
        match arg.as_str() {
            "--synth-workers" => c.synth_workers = small(&arg, args.next())?,
            "--permits" => c.permits = count(&arg, args.next())?,
            "--prover-workers" => c.prover_workers = small(&arg, args.next())?,
            "--prover-threads" => c.prover_threads = small(&arg, args.next())?,
            "--budget-mib" => {
                let mib = count(&arg, args.next())?;
                c.budget_bytes = mib.checked_mul(1 << 20).ok_or("--budget-mib: too large")?;
            }
            "--full-check" => o.full_check = true,
            "--out" => o.out = Some(args.next().ok_or("--out needs a directory")?.into()),
            _ if arg.starts_with("--") => return Err(format!("unknown flag {arg}")),
            _ => o.files.push(arg.into()),
        }
    }
    if o.out.is_none() || o.files.len() < 2 {
        return Err(USAGE.into());
    }
    Ok(o)
}

fn fail(what: &str, why: impl std::fmt::Display) -> ! {
    eprintln!("zkey_batch: {what}: {why}");
    std::process::exit(1)
}

fn main() {
    let mut o = options().unwrap_or_else(|e| {
        eprintln!("zkey_batch: {e}");
        std::process::exit(2)
    });
    let out = o.out.take().unwrap_or_default();
    let zkey_path = o.files.remove(0);
    let registry = Registry::new().unwrap_or_else(|e| fail("registry", e));
    o.config.registry = Some(registry.clone());
    let t = Instant::now();
    let source = ZkeySource::open(
        &zkey_path,
        &ZkeyOptions {
            full_check: o.full_check,
            pool: None,
        },
    )
    .unwrap_or_else(|e| fail(&zkey_path.display().to_string(), e));
    let source = Arc::new(source);
    let engine = Engine::new(&o.config, NoStages).unwrap_or_else(|e| fail("engine", e));
    let job = engine
        .submit_zkey(&source, &o.files)
        .unwrap_or_else(|e| fail("submit", e));
    job.wait().unwrap();
    let wall_s = t.elapsed().as_secs_f64();
    let mut failed = 0;
    for (k, file) in o.files.iter().enumerate() {
        let name = file.file_stem().unwrap_or_default().to_string_lossy();
        match job.proof(k) {
            Ok((proof, public)) => {
                let proof_path = out.join(format!("{k}-{name}.proof.json"));
                let public_path = out.join(format!("{k}-{name}.public.json"));
                std::fs::write(&proof_path, proof.to_snarkjs_json())
                    .unwrap_or_else(|e| fail(&proof_path.display().to_string(), e));
                std::fs::write(&public_path, public_to_snarkjs_json(public))
                    .unwrap_or_else(|e| fail(&public_path.display().to_string(), e));
            }
            Err(e) => {
                failed += 1;
                // The detail line names the witness file, when there is one.
                let detail = job.result(k).map(|r| r.detail).unwrap_or_default();
                let detail = if detail.is_empty() {
                    file.display().to_string()
                } else {
                    detail
                };
                eprintln!("zkey_batch: {detail} ({})", e.name());
            }
        }
    }
    let peak = registry
        .snapshot()
        .map(|s| s.peak_bytes())
        .unwrap_or_else(|e| fail("snapshot", e));
    let stats = engine.stats();
    println!(
        "{} of {} witnesses proved in {wall_s:.3} s ({} failed); at most {} in flight \
         (bound {}); peak {} bytes accounted",
        stats.proved,
        o.files.len(),
        failed,
        stats.peak_in_flight,
        stats.bound,
        peak
    );
    if failed > 0 {
        std::process::exit(1);
    }
}
