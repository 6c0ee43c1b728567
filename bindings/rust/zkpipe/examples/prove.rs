//! A Groth16 proof from a snarkjs `.zkey` and a circom `.wtns` (the Rust counterpart of
//! zkpipe-prove, with its argument order): writes snarkjs's proof.json and public.json.
//!
//!   cargo run --example prove -- [--threads N] [--full-check] ZKEY WTNS PROOF_JSON PUBLIC_JSON
//!
//! --threads: the pool's threads (default 0: one per CPU). --full-check: also check every
//! zkey point for the prime-order subgroup at open. The proof is checked against the zkey's
//! verifying key before it is written (the library does that inside prove), and again here
//! after reading both files back, as a verifier would. Prints the curve, the sizes and the
//! time of each step on stderr. Exits 0, 1 (a failure, one line naming the file and the
//! library's detail line) or 2 (usage).
use std::time::Instant;

use zkpipe::{
    public_from_snarkjs_json, public_to_snarkjs_json, Backend, Pool, Proof, Witness, Zkey,
    ZkeyOptions,
};

const USAGE: &str = "usage: prove [--threads N] [--full-check] ZKEY WTNS PROOF_JSON PUBLIC_JSON";

struct Options {
    threads: u32,
    full_check: bool,
    paths: Vec<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        threads: 0,
        full_check: false,
        paths: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--full-check" => o.full_check = true,
            "--threads" => {
                let v = args.next().ok_or("--threads needs a value")?;
                o.threads = v
                    .parse()
                    .map_err(|_| format!("--threads: not a count: {v}"))?;
            }
            _ if arg.starts_with("--") => return Err(format!("unknown flag {arg}")),
            _ => o.paths.push(arg),
        }
    }
    if o.paths.len() != 4 {
        return Err(USAGE.into());
    }
    Ok(o)
}

fn fail(what: &str, why: impl std::fmt::Display) -> ! {
    eprintln!("prove: {what}: {why}");
    std::process::exit(1)
}

fn main() {
    let o = options().unwrap_or_else(|e| {
        eprintln!("prove: {e}");
        std::process::exit(2)
    });
    let (zkey_path, wtns_path, proof_path, public_path) =
        (&o.paths[0], &o.paths[1], &o.paths[2], &o.paths[3]);
    let pool = Pool::new(o.threads).unwrap_or_else(|e| fail("thread pool", e));

    let t = Instant::now();
    let zkey = Zkey::open(
        zkey_path,
        &ZkeyOptions {
            full_check: o.full_check,
            pool: Some(&pool),
        },
    )
    .unwrap_or_else(|e| fail(zkey_path, e));
    let info = zkey.info();
    let open_s = t.elapsed().as_secs_f64();
    let witness = Witness::open(wtns_path).unwrap_or_else(|e| fail(wtns_path, e));
    let public = witness.public(&zkey).unwrap_or_else(|e| {
        fail(
            wtns_path,
            format!(
                "{} values on {}, the zkey wants {} on {}: {e}",
                witness.values().len(),
                witness.curve().name(),
                info.num_vars,
                info.curve.name()
            ),
        )
    });

    let t = Instant::now();
    let proof = zkey
        .prove(&witness, Some(&pool), Backend::Auto)
        .unwrap_or_else(|e| fail(wtns_path, e));
    let prove_s = t.elapsed().as_secs_f64();
    std::fs::write(public_path, public_to_snarkjs_json(public))
        .unwrap_or_else(|e| fail(public_path, e));
    std::fs::write(proof_path, proof.to_snarkjs_json()).unwrap_or_else(|e| fail(proof_path, e));

    // What a verifier does with the two files.
    let read = |p: &String| std::fs::read_to_string(p).unwrap_or_else(|e| fail(p, e));
    let their_public = public_from_snarkjs_json(info.curve, &read(public_path))
        .unwrap_or_else(|e| fail(public_path, e));
    let their_proof = Proof::from_snarkjs_json(Some(info.curve), &read(proof_path))
        .unwrap_or_else(|e| fail(proof_path, e));
    zkey.verifying_key()
        .verify(&their_public, &their_proof)
        .unwrap_or_else(|e| fail(proof_path, format!("does not verify: {e}")));
    eprintln!(
        "prove: {} zkey, {} wires, {} public, domain {}; opened in {:.3} s ({}), proved in {:.3} s \
         on {} threads; written and verified",
        info.curve.name(),
        info.num_vars,
        info.num_public,
        info.domain_size,
        open_s,
        if o.full_check { "every check" } else { "subgroups deferred" },
        prove_s,
        pool.threads()
    );
}
