//! What the integration tests share (a directory of its own, so that cargo does not take it
//! for a test).

use std::path::PathBuf;

/// `file` of the circom/snarkjs multiplier fixture on `curve_dir` ("bn128" or "bls12381").
pub fn fixture(curve_dir: &str, file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/interop/fixtures")
        .join(curve_dir)
        .join("multiplier")
        .join(file)
}
