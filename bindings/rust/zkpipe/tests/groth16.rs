//! Groth16 from circom/snarkjs files through the safe wrappers, on the interop fixtures that
//! circom and snarkjs made (tests/interop/fixtures, with proof.json and public.json written by
//! snarkjs): proofs verify with the zkey's key and with snarkjs's verification_key.json,
//! snarkjs's own proof verifies, the JSON and byte encodings round-trip, and bad input is an
//! error with the library's detail line.

use std::sync::Arc;

mod common;
use common::fixture;
use zkpipe::{
    public_from_snarkjs_json, public_to_snarkjs_json, Backend, Curve, Error, Pool, Proof, Scalar,
    VerifyingKey, Witness, Zkey, ZkeyOptions,
};

const CURVES: [(&str, Curve, usize); 2] = [
    ("bn128", Curve::Bn254, 256),
    ("bls12381", Curve::Bls12_381, 192),
];

fn text(curve_dir: &str, file: &str) -> String {
    std::fs::read_to_string(fixture(curve_dir, file)).expect("a fixture file")
}

fn open_zkey(curve_dir: &str, pool: Option<&Pool>, full_check: bool) -> Zkey {
    Zkey::open(
        fixture(curve_dir, "circuit.zkey"),
        &ZkeyOptions { full_check, pool },
    )
    .expect("the fixture zkey opens")
}

#[test]
fn proofs_verify_with_both_keys_and_round_trip() {
    let pool = Pool::new(2).unwrap();
    assert_eq!(pool.threads(), 2);
    for (dir, curve, size) in CURVES {
        let zkey = open_zkey(dir, Some(&pool), true);
        let info = zkey.info();
        assert_eq!(info.curve, curve);
        assert!(info.domain_size.is_power_of_two());
        let witness = Witness::open(fixture(dir, "witness.wtns")).unwrap();
        assert_eq!(witness.curve(), curve);
        assert_eq!(witness.values().len(), info.num_vars as usize);
        assert_eq!(witness.values()[0], Scalar::from_u64(1));
        let public = witness.public(&zkey).unwrap();
        assert_eq!(public.len(), info.num_public as usize);
        // The public signals are snarkjs's, and write back as snarkjs wrote them.
        let snarkjs_public = public_from_snarkjs_json(curve, &text(dir, "public.json")).unwrap();
        assert_eq!(public, &snarkjs_public[..]);
        let written = public_to_snarkjs_json(public);
        assert_eq!(
            public_from_snarkjs_json(curve, &written).unwrap(),
            snarkjs_public
        );

        let proof = zkey.prove(&witness, Some(&pool), Backend::Cpu).unwrap();
        assert_eq!(proof.curve(), curve);
        assert_eq!(proof.as_bytes().len(), size);
        let vk = zkey.verifying_key();
        assert_eq!(vk.curve(), curve);
        assert_eq!(vk.num_public(), public.len());
        vk.verify(public, &proof).unwrap();
        let snarkjs_vk =
            VerifyingKey::from_snarkjs_json(&text(dir, "verification_key.json")).unwrap();
        snarkjs_vk.verify(public, &proof).unwrap();

        // Encodings: JSON (with and without the curve given) and bytes.
        let json = proof.to_snarkjs_json();
        assert!(json.contains("\"pi_a\""), "{json}");
        assert_eq!(Proof::from_snarkjs_json(Some(curve), &json).unwrap(), proof);
        assert_eq!(Proof::from_snarkjs_json(None, &json).unwrap(), proof);
        assert_eq!(Proof::from_bytes(curve, proof.as_bytes()).unwrap(), proof);

        // snarkjs's own proof of the same witness verifies too.
        let theirs = Proof::from_snarkjs_json(Some(curve), &text(dir, "proof.json")).unwrap();
        vk.verify(public, &theirs).unwrap();
        // Fresh blinding: a second proof of the same witness differs, and verifies.
        let again = zkey.prove(&witness, None, Backend::Cpu).unwrap();
        assert_ne!(again, proof);
        snarkjs_vk.verify(public, &again).unwrap();
    }
}

#[test]
fn wrong_statements_do_not_verify() {
    for (dir, curve, _) in CURVES {
        let zkey = open_zkey(dir, None, false);
        let witness = Witness::open(fixture(dir, "witness.wtns")).unwrap();
        let public = witness.public(&zkey).unwrap().to_vec();
        let proof = zkey.prove(&witness, None, Backend::Cpu).unwrap();
        let vk = zkey.verifying_key();
        let mut other = public.clone();
        other[0].0[0] ^= 1;
        assert_eq!(vk.verify(&other, &proof), Err(Error::VERIFY));
        assert_eq!(vk.verify(&public[1..], &proof), Err(Error::INVAL));
        // r itself is not a scalar.
        let r = match curve {
            Curve::Bn254 => {
                "21888242871839275222246405745257275088548364400416034343698204186575808495617"
            }
            Curve::Bls12_381 => {
                "52435875175126190479447740508185965837690552500527637822603658699938581184513"
            }
        };
        let e = public_from_snarkjs_json(curve, &format!("[\"{r}\"]")).unwrap_err();
        assert_eq!(e.error, Error::NONCANONICAL);
        assert!(!e.detail.is_empty());
        // A proof's bytes flipped: refused when decoded, or it does not verify.
        let mut bytes = proof.as_bytes().to_vec();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        if let Ok(bad) = Proof::from_bytes(curve, &bytes) {
            assert_eq!(vk.verify(&public, &bad), Err(Error::VERIFY));
        }
        assert_eq!(
            Proof::from_bytes(curve, &bytes[1..]).unwrap_err(),
            Error::FORMAT
        );
    }
}

#[test]
fn bad_files_are_errors_with_a_detail_line() {
    let missing =
        Zkey::open(fixture("bn128", "no-such.zkey"), &ZkeyOptions::default()).unwrap_err();
    assert_eq!(missing.error, Error::IO);
    assert!(!missing.detail.is_empty());
    // A witness is not a zkey.
    let not_zkey =
        Zkey::open(fixture("bn128", "witness.wtns"), &ZkeyOptions::default()).unwrap_err();
    assert_eq!(not_zkey.error, Error::FORMAT);
    assert!(!not_zkey.detail.is_empty(), "{not_zkey:?}");
    assert!(format!("{not_zkey}").contains("ZKPIPE_EFORMAT"));
    let not_wtns = Witness::open(fixture("bn128", "circuit.zkey")).unwrap_err();
    assert_eq!(not_wtns.error, Error::FORMAT);
    let bad_json = VerifyingKey::from_snarkjs_json("{\"protocol\": \"groth16\",}").unwrap_err();
    assert_eq!(bad_json.error, Error::FORMAT);
    assert!(!bad_json.detail.is_empty());
    // A witness of the other curve: the prover refuses it.
    let zkey = open_zkey("bn128", None, false);
    let bls = Witness::open(fixture("bls12381", "witness.wtns")).unwrap();
    assert_eq!(bls.public(&zkey).unwrap_err(), Error::MISMATCH);
    let e = zkey.prove(&bls, None, Backend::Cpu).unwrap_err();
    assert_eq!(e.error, Error::MISMATCH);
    assert_eq!(e.detail, "a bls12-381 witness for a bn254 zkey");
    // A proof on the other curve: refused by the verifier.
    let bls_zkey = open_zkey("bls12381", None, false);
    let bls_proof = bls_zkey.prove(&bls, None, Backend::Cpu).unwrap();
    let bn = Witness::open(fixture("bn128", "witness.wtns")).unwrap();
    let bn_public = bn.public(&zkey).unwrap();
    assert_eq!(
        zkey.verifying_key().verify(bn_public, &bls_proof),
        Err(Error::MISMATCH)
    );
    let e = Proof::from_snarkjs_json(Some(Curve::Bn254), &bls_proof.to_snarkjs_json()).unwrap_err();
    assert_eq!(e.error, Error::MISMATCH);
}

#[test]
fn one_key_proves_on_several_threads() {
    let zkey = Arc::new(open_zkey("bn128", None, false));
    let witness = Arc::new(Witness::open(fixture("bn128", "witness.wtns")).unwrap());
    let pool = Arc::new(Pool::new(2).unwrap());
    let threads: Vec<_> = (0..3)
        .map(|i| {
            let (zkey, witness, pool) = (zkey.clone(), witness.clone(), pool.clone());
            std::thread::spawn(move || {
                // Two threads share the pool (their calls take turns), one proves alone.
                let pool = if i < 2 { Some(&*pool) } else { None };
                zkey.prove(&witness, pool, Backend::Cpu).unwrap()
            })
        })
        .collect();
    let public = witness.public(&zkey).unwrap();
    for t in threads {
        zkey.verifying_key()
            .verify(public, &t.join().unwrap())
            .unwrap();
    }
}
