//! This package's own tests and examples find libzkpipe.so where pkg-config found it (an
//! rpath on those binaries only), so `cargo test` needs no LD_LIBRARY_PATH. Programs that
//! depend on this crate are not touched: where they find the library is their choice.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_ZKPIPE_LIBDIR");
    if let Ok(dir) = std::env::var("DEP_ZKPIPE_LIBDIR") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{dir}");
        println!("cargo:rustc-link-arg-examples=-Wl,-rpath,{dir}");
    }
}
