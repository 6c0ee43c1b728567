//! Finds zkpipe with the system's pkg-config tool, tells rustc how to link it, and compiles
//! and runs layout.c against the installed headers so that the generated declarations are
//! checked against the C compiler's view of every type.
use std::env;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

fn fail(msg: &str) -> ! {
    eprintln!("zkpipe-sys: {msg}");
    std::process::exit(1);
}

fn pkg_config(args: &[&str]) -> String {
    let tool = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let out = Command::new(&tool)
        .args(args)
        .arg("zkpipe")
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run `{tool}` (install pkg-config): {e}")));
    if !out.status.success() {
        fail(&format!(
            "`{tool} {} zkpipe` failed: {}\nInstall zkpipe, or set PKG_CONFIG_PATH to the \
             folder holding its zkpipe.pc (<prefix>/lib/pkgconfig).",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).unwrap_or_else(|_| fail("pkg-config printed non-UTF-8"))
}

fn main() {
    for var in [
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
        "ZKPIPE_STATIC",
        "ZKPIPE_SYS_LAYOUT",
        "CC",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=layout.c");
    let wants_static = env::var("ZKPIPE_STATIC").is_ok_and(|v| !v.is_empty() && v != "0");

    let libs = pkg_config(if wants_static {
        &["--libs", "--static"]
    } else {
        &["--libs"]
    });
    let mut libdir = None;
    for flag in libs.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
            libdir.get_or_insert_with(|| dir.to_string());
        } else if let Some(name) = flag.strip_prefix("-l") {
            let kind = if wants_static && name == "zkpipe" {
                "static="
            } else {
                ""
            };
            println!("cargo:rustc-link-lib={kind}{name}");
        } else if flag != "-pthread" {
            println!("cargo:warning=zkpipe-sys: ignoring the link flag {flag}");
        }
    }
    // For dependents' build scripts (DEP_ZKPIPE_LIBDIR, DEP_ZKPIPE_CFLAGS).
    if let Some(dir) = &libdir {
        println!("cargo:libdir={dir}");
    }
    let cflags = pkg_config(&["--cflags"]);
    println!("cargo:cflags={}", cflags.trim());

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let layout = out_dir.join("layout.rs");
    if let Ok(given) = env::var("ZKPIPE_SYS_LAYOUT") {
        // Cross builds: the probe's output, produced on the target.
        fs::copy(&given, &layout).unwrap_or_else(|e| fail(&format!("ZKPIPE_SYS_LAYOUT: {e}")));
        return;
    }
    if env::var("TARGET").ok() != env::var("HOST").ok() {
        fail(
            "cross-compiling: run layout.c on the target (cc layout.c $(pkg-config --cflags \
              zkpipe)) and set ZKPIPE_SYS_LAYOUT to a file holding its output",
        );
    }
    let cc = env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let probe = out_dir.join("layout");
    let status = Command::new(&cc)
        .arg("-std=c11")
        .args(cflags.split_whitespace())
        .arg("layout.c")
        .arg("-o")
        .arg(&probe)
        .status()
        .unwrap_or_else(|e| fail(&format!("cannot run the C compiler `{cc}`: {e}")));
    if !status.success() {
        fail("layout.c does not compile against the installed zkpipe headers");
    }
    let out = Command::new(&probe)
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run the layout probe: {e}")));
    if !out.status.success() {
        fail("the layout probe failed");
    }
    fs::write(&layout, out.stdout).unwrap_or_else(|e| fail(&format!("{}: {e}", layout.display())));
}
