//! The examples' command lines: `--flag N` pairs, every value a number, and switches that
//! take no value, as the C examples' (a directory of its own, so that cargo does not take it
//! for an example).

/// Hands each `--flag N` pair of the command line to `take`, which stores `N` and returns
/// `Ok(true)`, or returns `Ok(false)` for a flag that is not its own; a flag named in
/// `switches` takes no value and reaches `take` with `N` = 1.
pub fn parse(
    switches: &[&str],
    mut take: impl FnMut(&str, u64) -> Result<bool, String>,
) -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if switches.contains(&flag.as_str()) {
            if !take(&flag, 1)? {
                return Err(format!("unknown flag {flag}"));
            }
            continue;
        }
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let n: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: not a number: {value}"))?;
        if !take(&flag, n)? {
            return Err(format!("unknown flag {flag}"));
        }
    }
    Ok(())
}

/// `n` as a `u32` (a count of threads), or why not.
#[allow(dead_code)] // not every example has such a flag
pub fn small(flag: &str, n: u64) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| format!("{flag}: too large: {n}"))
}

/// The options, or exit status 2 after `prog: why` on stderr.
pub fn or_exit<T>(prog: &str, options: Result<T, String>) -> T {
    options.unwrap_or_else(|e| {
        eprintln!("{prog}: {e}");
        std::process::exit(2)
    })
}
