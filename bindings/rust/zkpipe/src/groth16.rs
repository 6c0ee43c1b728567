//! Groth16 proofs from circom/snarkjs files: a `.zkey` proving key, `.wtns` witnesses,
//! snarkjs's `verification_key.json`, `proof.json` and `public.json` (`zkpipe/io.h`,
//! `zkpipe/groth16.h`, `zkpipe/pool.h`).

use std::ffi::{c_char, CStr, CString};
use std::fmt;
use std::path::Path;
use std::ptr::NonNull;

use zkpipe_sys as sys;

use crate::{Backend, Error, Result};

const DETAIL_CAP: usize = sys::ZKPIPE_DETAIL_MAX as usize;

/// A failure of a call that also says where and why: the status and the library's detail line
/// (e.g. "section 7: point 12 is not on the curve"), cut to 255 bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct DetailedError {
    pub error: Error,
    pub detail: String,
}

impl DetailedError {
    fn new(error: Error, detail: &[c_char; DETAIL_CAP]) -> DetailedError {
        // SAFETY: the library NUL-terminates the line within the array it was given (zeroed
        // beforehand, so also when it wrote nothing).
        let detail = unsafe { CStr::from_ptr(detail.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        DetailedError { error, detail }
    }
}

impl From<Error> for DetailedError {
    fn from(error: Error) -> DetailedError {
        DetailedError {
            error,
            detail: String::new(),
        }
    }
}

impl fmt::Display for DetailedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.detail.is_empty() {
            write!(f, "{}", self.error)
        } else {
            write!(f, "{} ({})", self.detail, self.error.name())
        }
    }
}

impl fmt::Debug for DetailedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", self.error.name(), self.detail)
    }
}

impl std::error::Error for DetailedError {}

/// Runs a call that writes a detail line, turning its status into a [`DetailedError`].
pub(crate) fn with_detail(
    f: impl FnOnce(*mut c_char, usize) -> sys::zkpipe_status,
) -> std::result::Result<(), DetailedError> {
    let mut detail = [0 as c_char; DETAIL_CAP];
    match Error::check(f(detail.as_mut_ptr(), DETAIL_CAP)) {
        Ok(()) => Ok(()),
        Err(e) => Err(DetailedError::new(e, &detail)),
    }
}

pub(crate) fn c_path(path: &Path) -> std::result::Result<CString, DetailedError> {
    let text = path.to_str().ok_or_else(|| DetailedError {
        error: Error::INVAL,
        detail: format!("{}: not a UTF-8 path", path.display()),
    })?;
    CString::new(text).map_err(|_| DetailedError {
        error: Error::INVAL,
        detail: format!("{text}: a NUL byte in the path"),
    })
}

/// The curves zkpipe proves on.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Curve {
    /// BLS12-381 (snarkjs's "bls12381").
    Bls12_381,
    /// BN254, alt_bn128 (snarkjs's "bn128").
    Bn254,
}

impl Curve {
    fn raw(self) -> sys::zkpipe_curve {
        match self {
            Curve::Bls12_381 => sys::ZKPIPE_CURVE_BLS12_381,
            Curve::Bn254 => sys::ZKPIPE_CURVE_BN254,
        }
    }

    pub(crate) fn from_raw(raw: sys::zkpipe_curve) -> Option<Curve> {
        match raw {
            sys::ZKPIPE_CURVE_BLS12_381 => Some(Curve::Bls12_381),
            sys::ZKPIPE_CURVE_BN254 => Some(Curve::Bn254),
            _ => None,
        }
    }

    /// The canonical lower-case name, "bls12-381" or "bn254".
    pub fn name(self) -> &'static str {
        // SAFETY: a static string for a valid curve (zkpipe/curve.h).
        unsafe { crate::error::static_str(sys::zkpipe_curve_name(self.raw())) }
    }
}

/// An element of the curve's scalar field as the canonical integer below r, in four
/// little-endian 64-bit limbs (`zkpipe_scalar`). Calls that take one refuse an integer >= r
/// with [`Error::NONCANONICAL`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Scalar(pub [u64; 4]);

impl Scalar {
    /// A small integer.
    pub fn from_u64(v: u64) -> Scalar {
        Scalar([v, 0, 0, 0])
    }
}

impl fmt::Debug for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "0x{:016x}{:016x}{:016x}{:016x}",
            self.0[3], self.0[2], self.0[1], self.0[0]
        )
    }
}

// Scalar and zkpipe_scalar are both four u64 and nothing else.
const _: () = assert!(std::mem::size_of::<Scalar>() == std::mem::size_of::<sys::zkpipe_scalar>());
const _: () = assert!(std::mem::align_of::<Scalar>() == std::mem::align_of::<sys::zkpipe_scalar>());

fn raw_scalars(s: &[Scalar]) -> *const sys::zkpipe_scalar {
    s.as_ptr().cast()
}

/// A fixed-size thread pool for the prover's NTTs and MSMs and the zkey's point checks
/// (`zkpipe_pool`). Calls from several threads on one pool take turns, so one pool may serve
/// every thread of a process.
pub struct Pool {
    raw: NonNull<sys::zkpipe_pool>,
}

// SAFETY: zkpipe_pool_parallel_for may be called from any thread, concurrently (serialised
// inside); destroy runs from drop, when no call can be using it.
unsafe impl Send for Pool {}
unsafe impl Sync for Pool {}

impl Pool {
    /// A pool of `threads` threads, the calling one included (it starts `threads - 1`
    /// workers); 0: one per online CPU. Errors: INVAL (over 1024), NOMEM, THREAD.
    pub fn new(threads: u32) -> Result<Pool> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: NULL allocator selects the C library.
        Error::check(unsafe { sys::zkpipe_pool_create(&mut raw, threads, std::ptr::null()) })?;
        Ok(Pool {
            raw: NonNull::new(raw).ok_or(Error::NOMEM)?,
        })
    }

    /// Its thread count, the caller included.
    pub fn threads(&self) -> u32 {
        // SAFETY: a live pool.
        unsafe { sys::zkpipe_pool_threads(self.raw.as_ptr()) }
    }

    pub(crate) fn ptr(pool: Option<&Pool>) -> *mut sys::zkpipe_pool {
        pool.map_or(std::ptr::null_mut(), |p| p.raw.as_ptr())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: made by zkpipe_pool_create; no call can be running (they borrow the pool).
        unsafe { sys::zkpipe_pool_destroy(self.raw.as_ptr()) }
    }
}

/// What a zkey's header says (`zkpipe_zkey_info`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ZkeyInfo {
    pub curve: Curve,
    /// Wires, the constant one included: a witness has this many values.
    pub num_vars: u32,
    /// Outputs and public inputs: the witness's values 1 ..= num_public.
    pub num_public: u32,
    /// The evaluation domain, a power of two.
    pub domain_size: u32,
}

impl ZkeyInfo {
    /// The header's counts as the library gives them; None for an unknown curve.
    pub(crate) fn from_raw(raw: &sys::zkpipe_zkey_info) -> Option<ZkeyInfo> {
        Some(ZkeyInfo {
            curve: Curve::from_raw(raw.curve)?,
            num_vars: raw.num_vars,
            num_public: raw.num_public,
            domain_size: raw.domain_size,
        })
    }
}

/// A verifying key prepared for checking proofs (`zkpipe_groth16_pvk`): from a zkey or from
/// snarkjs's `verification_key.json`. Immutable; any number of threads may verify with it.
pub struct VerifyingKey {
    raw: NonNull<sys::zkpipe_groth16_pvk>,
    curve: Curve,
    num_public: usize,
}

// SAFETY: zkpipe_groth16_verify only reads the key (zkpipe/groth16.h).
unsafe impl Send for VerifyingKey {}
unsafe impl Sync for VerifyingKey {}

impl VerifyingKey {
    /// Prepares `vk`, which it then destroys whatever the outcome.
    fn prepare(vk: *mut sys::zkpipe_groth16_vk) -> Result<VerifyingKey> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: vk is a live key made by the library and destroyed once, here.
        let (st, curve, n) = unsafe {
            let st = sys::zkpipe_groth16_pvk_create(&mut raw, vk, std::ptr::null());
            let curve = sys::zkpipe_groth16_vk_curve(vk);
            let n = sys::zkpipe_groth16_vk_num_inputs(vk);
            sys::zkpipe_groth16_vk_destroy(vk);
            (st, curve, n)
        };
        Error::check(st)?;
        let raw = NonNull::new(raw).ok_or(Error::NOMEM)?;
        let curve = match Curve::from_raw(curve) {
            Some(c) => c,
            None => {
                // SAFETY: made above, not shared.
                unsafe { sys::zkpipe_groth16_pvk_destroy(raw.as_ptr()) };
                return Err(Error::STATE);
            }
        };
        Ok(VerifyingKey {
            raw,
            curve,
            num_public: n.saturating_sub(1),
        })
    }

    /// The key of a snarkjs `verification_key.json`, validated as snarkjs reads it (strict
    /// JSON, canonical coordinates, points on the curve and in the subgroup).
    pub fn from_snarkjs_json(json: &str) -> std::result::Result<VerifyingKey, DetailedError> {
        let mut vk = std::ptr::null_mut();
        with_detail(|d, cap| {
            // SAFETY: the text and its length; the detail buffer of cap bytes.
            unsafe {
                sys::zkpipe_snarkjs_vk_parse(
                    &mut vk,
                    d,
                    cap,
                    json.as_ptr().cast(),
                    json.len(),
                    std::ptr::null(),
                )
            }
        })?;
        Ok(VerifyingKey::prepare(vk)?)
    }

    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// How many public inputs a proof for this key is checked against (the constant one not
    /// counted).
    pub fn num_public(&self) -> usize {
        self.num_public
    }

    /// Checks `proof` for the public inputs `public`. Errors: VERIFY (it does not verify),
    /// INVAL (not [`num_public`](Self::num_public) inputs), MISMATCH (a proof on another
    /// curve), NONCANONICAL (an input >= r).
    pub fn verify(&self, public: &[Scalar], proof: &Proof) -> Result<()> {
        // SAFETY: the key is live; `public` holds public.len() scalars.
        Error::check(unsafe {
            sys::zkpipe_groth16_verify(
                self.raw.as_ptr(),
                raw_scalars(public),
                public.len(),
                &proof.raw,
            )
        })
    }
}

impl Drop for VerifyingKey {
    fn drop(&mut self) {
        // SAFETY: made by zkpipe_groth16_pvk_create, dropped once.
        unsafe { sys::zkpipe_groth16_pvk_destroy(self.raw.as_ptr()) }
    }
}

/// A circom/snarkjs Groth16 `.zkey`, mapped and checked, with its verifying key prepared: what
/// proves witnesses (`zkpipe_zkey_open`, `zkpipe_groth16_prove_witness`). Immutable; any
/// number of threads may prove with one key at once.
pub struct Zkey {
    raw: NonNull<sys::zkpipe_zkey>,
    info: ZkeyInfo,
    vk: VerifyingKey,
}

// SAFETY: the reader is immutable after open and zkpipe_groth16_prove_witness only reads its
// key (zkpipe/io.h, zkpipe/groth16.h).
unsafe impl Send for Zkey {}
unsafe impl Sync for Zkey {}

/// How a zkey is opened.
#[derive(Copy, Clone, Default)]
pub struct ZkeyOptions<'a> {
    /// Also check every query point for the prime-order subgroup (batched; see
    /// `zkpipe_zkey_open`). Without it those points are checked to be canonical and on the
    /// curve only, which is safe for proving: the prover checks the proof's own points and
    /// verifies the proof before returning it.
    pub full_check: bool,
    /// Runs the point checks; None: the calling thread alone.
    pub pool: Option<&'a Pool>,
}

impl ZkeyOptions<'_> {
    /// The C options these stand for.
    pub(crate) fn raw(&self) -> sys::zkpipe_io_options {
        // SAFETY: plain data, then initialised by the library.
        let mut io: sys::zkpipe_io_options = unsafe { std::mem::zeroed() };
        // SAFETY: a valid options struct to fill.
        unsafe { sys::zkpipe_io_options_init(&mut io) };
        io.pool = Pool::ptr(self.pool);
        io.flags = if self.full_check {
            0
        } else {
            sys::ZKPIPE_IO_DEFER_SUBGROUP
        };
        io
    }
}

impl Zkey {
    /// Maps and checks the zkey at `path`. Errors, with the detail line: IO, FORMAT,
    /// NONCANONICAL, NOTONCURVE, NOTINSUBGROUP, UNSUPPORTED (e.g. a PLONK zkey), TOOBIG, NOMEM.
    pub fn open(
        path: impl AsRef<Path>,
        opts: &ZkeyOptions<'_>,
    ) -> std::result::Result<Zkey, DetailedError> {
        let path = c_path(path.as_ref())?;
        let io = opts.raw();
        let mut raw = std::ptr::null_mut();
        with_detail(|d, cap| {
            // SAFETY: a NUL-terminated path, initialised options, the detail buffer.
            unsafe { sys::zkpipe_zkey_open(&mut raw, d, cap, path.as_ptr(), &io) }
        })?;
        let raw = NonNull::new(raw).ok_or(Error::NOMEM)?;
        // From here `guard` destroys the reader on every early return.
        let guard = ZkeyGuard(raw);
        // SAFETY: plain data filled by the library.
        let mut info: sys::zkpipe_zkey_info = unsafe { std::mem::zeroed() };
        // SAFETY: a live reader.
        Error::check(unsafe { sys::zkpipe_zkey_info_get(&mut info, raw.as_ptr()) })?;
        let mut vk = std::ptr::null_mut();
        // SAFETY: a live reader; the key is handed to prepare, which destroys it.
        Error::check(unsafe { sys::zkpipe_zkey_vk(&mut vk, raw.as_ptr(), std::ptr::null()) })?;
        let vk = VerifyingKey::prepare(vk)?;
        let info = ZkeyInfo::from_raw(&info).ok_or(Error::STATE)?;
        std::mem::forget(guard);
        Ok(Zkey { raw, info, vk })
    }

    pub fn info(&self) -> ZkeyInfo {
        self.info
    }

    /// The zkey's verifying key, prepared (what snarkjs exports as `verification_key.json`).
    pub fn verifying_key(&self) -> &VerifyingKey {
        &self.vk
    }

    /// A proof of `witness`, computed as snarkjs's `groth16 prove` computes it (with fresh
    /// blinding from the operating system), and checked against the zkey's verifying key before
    /// it is returned. `pool` runs the NTTs and MSMs (None: the calling thread alone).
    /// Errors, with the detail line: MISMATCH (a witness for another curve, or not
    /// `num_vars` values), UNSATISFIED (the witness breaks a constraint), NONCANONICAL,
    /// NOTINSUBGROUP (a zkey point outside the subgroup, opened without `full_check`),
    /// NODEVICE / DEVICE (CUDA asked for), NOMEM.
    pub fn prove(
        &self,
        witness: &Witness,
        pool: Option<&Pool>,
        backend: Backend,
    ) -> std::result::Result<Proof, DetailedError> {
        // The C prover takes bare scalars; the curve is the reader's to check.
        if witness.curve() != self.info.curve {
            return Err(DetailedError {
                error: Error::MISMATCH,
                detail: format!(
                    "a {} witness for a {} zkey",
                    witness.curve().name(),
                    self.info.curve.name()
                ),
            });
        }
        // SAFETY: plain data; filled on success.
        let mut raw: sys::zkpipe_groth16_proof = unsafe { std::mem::zeroed() };
        with_detail(|d, cap| {
            // SAFETY: live key, witness values (count of them) and prepared key; the pool or
            // NULL; no ledger.
            unsafe {
                sys::zkpipe_groth16_prove_witness(
                    &mut raw,
                    std::ptr::null_mut(),
                    d,
                    cap,
                    sys::zkpipe_zkey_pk(self.raw.as_ptr()),
                    sys::zkpipe_wtns_values(witness.raw.as_ptr()),
                    sys::zkpipe_wtns_count(witness.raw.as_ptr()),
                    self.vk.raw.as_ptr(),
                    Pool::ptr(pool),
                    backend.raw(),
                    std::ptr::null_mut(),
                )
            }
        })?;
        Ok(Proof { raw })
    }
}

struct ZkeyGuard(NonNull<sys::zkpipe_zkey>);

impl Drop for ZkeyGuard {
    fn drop(&mut self) {
        // SAFETY: a reader not yet handed to a Zkey.
        unsafe { sys::zkpipe_zkey_destroy(self.0.as_ptr()) }
    }
}

impl Drop for Zkey {
    fn drop(&mut self) {
        // SAFETY: made by zkpipe_zkey_open; no proof can be running (they borrow the key).
        unsafe { sys::zkpipe_zkey_destroy(self.raw.as_ptr()) }
    }
}

/// A circom `.wtns` witness, mapped and checked (`zkpipe_wtns_open`). Immutable; any number of
/// threads may read it.
pub struct Witness {
    raw: NonNull<sys::zkpipe_wtns>,
}

// SAFETY: the reader is immutable after open (zkpipe/io.h).
unsafe impl Send for Witness {}
unsafe impl Sync for Witness {}

impl Witness {
    /// Maps and checks the witness at `path`. Errors, with the detail line: IO, FORMAT (also
    /// a value 0 that is not 1), NONCANONICAL, TOOBIG, NOMEM.
    pub fn open(path: impl AsRef<Path>) -> std::result::Result<Witness, DetailedError> {
        let path = c_path(path.as_ref())?;
        let mut raw = std::ptr::null_mut();
        with_detail(|d, cap| {
            // SAFETY: a NUL-terminated path; NULL options are the defaults.
            unsafe { sys::zkpipe_wtns_open(&mut raw, d, cap, path.as_ptr(), std::ptr::null()) }
        })?;
        Ok(Witness {
            raw: NonNull::new(raw).ok_or(Error::NOMEM)?,
        })
    }

    pub fn curve(&self) -> Curve {
        // SAFETY: a live reader; it only opens files of a known curve.
        Curve::from_raw(unsafe { sys::zkpipe_wtns_curve(self.raw.as_ptr()) })
            .unwrap_or(Curve::Bn254)
    }

    /// Every value, the constant one (value 0) included.
    pub fn values(&self) -> &[Scalar] {
        // SAFETY: count canonical scalars owned by the reader, valid while it lives; Scalar has
        // zkpipe_scalar's layout (checked above).
        unsafe {
            let n = sys::zkpipe_wtns_count(self.raw.as_ptr());
            let p = sys::zkpipe_wtns_values(self.raw.as_ptr());
            std::slice::from_raw_parts(p.cast::<Scalar>(), n)
        }
    }

    /// The public signals a proof of this witness for `zkey` is verified against: values
    /// 1 ..= num_public (what snarkjs writes as `public.json`). Errors: MISMATCH (another
    /// curve, or fewer values than the zkey's wires).
    pub fn public(&self, zkey: &Zkey) -> Result<&[Scalar]> {
        let v = self.values();
        let info = zkey.info();
        if self.curve() != info.curve || v.len() != info.num_vars as usize {
            return Err(Error::MISMATCH);
        }
        Ok(&v[1..=info.num_public as usize])
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        // SAFETY: made by zkpipe_wtns_open; no borrow of its values outlives it.
        unsafe { sys::zkpipe_wtns_destroy(self.raw.as_ptr()) }
    }
}

/// A Groth16 proof as its wire encoding (`zkpipe_groth16_proof`): BLS12-381 192 bytes
/// (compressed, zcash layout), BN254 256 bytes (uncompressed, EIP-196/197 layout).
#[derive(Copy, Clone)]
pub struct Proof {
    raw: sys::zkpipe_groth16_proof,
}

impl Proof {
    /// A proof the library made: None unless its curve and size are a proof's.
    pub(crate) fn from_raw(raw: sys::zkpipe_groth16_proof) -> Option<Proof> {
        let curve = Curve::from_raw(raw.curve)?;
        // SAFETY: any curve value.
        let size = unsafe { sys::zkpipe_groth16_proof_size(curve.raw()) };
        (size != 0 && raw.size == size).then_some(Proof { raw })
    }

    pub fn curve(&self) -> Curve {
        Curve::from_raw(self.raw.curve).unwrap_or(Curve::Bn254)
    }

    /// The encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.raw.bytes[..self.raw.size]
    }

    /// A proof from its encoding, fully validated. Errors: FORMAT (not the curve's size),
    /// FLAGS, NONCANONICAL, NOTONCURVE, NOTINSUBGROUP.
    pub fn from_bytes(curve: Curve, bytes: &[u8]) -> Result<Proof> {
        // SAFETY: plain data; filled on success.
        let mut raw: sys::zkpipe_groth16_proof = unsafe { std::mem::zeroed() };
        // SAFETY: bytes.len() bytes to read.
        Error::check(unsafe {
            sys::zkpipe_groth16_proof_decode(&mut raw, curve.raw(), bytes.as_ptr(), bytes.len())
        })?;
        Ok(Proof { raw })
    }

    /// snarkjs's `proof.json` for it.
    pub fn to_snarkjs_json(&self) -> String {
        write_text(|buf, cap, len| {
            // SAFETY: the writer's contract (zkpipe/io.h): at most cap bytes into buf.
            unsafe { sys::zkpipe_snarkjs_proof_write(buf, cap, len, &self.raw) }
        })
    }

    /// A proof from the text of a `proof.json`, as snarkjs writes it or as rapidsnark does
    /// (without "curve"); `curve` is the verifying key's (None: the text must name it).
    /// Errors, with the detail line: FORMAT, TOOBIG, MISMATCH (the text names another curve),
    /// NONCANONICAL, NOTONCURVE, NOTINSUBGROUP.
    pub fn from_snarkjs_json(
        curve: Option<Curve>,
        json: &str,
    ) -> std::result::Result<Proof, DetailedError> {
        // SAFETY: plain data; filled on success.
        let mut raw: sys::zkpipe_groth16_proof = unsafe { std::mem::zeroed() };
        let c = curve.map_or(sys::ZKPIPE_CURVE_COUNT, Curve::raw);
        with_detail(|d, cap| {
            // SAFETY: the text and its length, the detail buffer.
            unsafe {
                sys::zkpipe_snarkjs_proof_parse(
                    &mut raw,
                    d,
                    cap,
                    c,
                    json.as_ptr().cast(),
                    json.len(),
                )
            }
        })?;
        Ok(Proof { raw })
    }
}

impl fmt::Debug for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Proof({:?}, {} bytes)", self.curve(), self.raw.size)
    }
}

impl PartialEq for Proof {
    fn eq(&self, other: &Proof) -> bool {
        self.raw.curve == other.raw.curve && self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Proof {}

/// Runs one of the library's text writers twice: once to size the text, once to write it.
fn write_text(f: impl Fn(*mut c_char, usize, &mut usize) -> sys::zkpipe_status) -> String {
    let mut len = 0usize;
    // The writers fail only on arguments these wrappers never pass (a NULL, a malformed proof
    // value, which Proof cannot hold).
    Error::check(f(std::ptr::null_mut(), 0, &mut len)).expect("sizing a zkpipe text");
    let mut buf = vec![0u8; len + 1];
    Error::check(f(buf.as_mut_ptr().cast(), buf.len(), &mut len)).expect("writing a zkpipe text");
    buf.truncate(len);
    String::from_utf8(buf).expect("zkpipe writes ASCII")
}

/// snarkjs's `public.json` for the public signals `public`: an array of decimal strings.
pub fn public_to_snarkjs_json(public: &[Scalar]) -> String {
    write_text(|buf, cap, len| {
        // SAFETY: public.len() scalars; the writer's contract for buf.
        unsafe {
            sys::zkpipe_snarkjs_public_write(buf, cap, len, raw_scalars(public), public.len())
        }
    })
}

/// The public signals of a `public.json`, each checked below `curve`'s r. Errors, with the
/// detail line: FORMAT, TOOBIG, NONCANONICAL, NOMEM.
pub fn public_from_snarkjs_json(
    curve: Curve,
    json: &str,
) -> std::result::Result<Vec<Scalar>, DetailedError> {
    let mut n = 0usize;
    let parse = |out: *mut Scalar, cap: usize, n: &mut usize| {
        with_detail(|d, dcap| {
            // SAFETY: out holds cap scalars (NULL with 0); the text and its length.
            unsafe {
                sys::zkpipe_snarkjs_public_parse(
                    out.cast(),
                    cap,
                    n,
                    d,
                    dcap,
                    curve.raw(),
                    json.as_ptr().cast(),
                    json.len(),
                )
            }
        })
    };
    match parse(std::ptr::null_mut(), 0, &mut n) {
        Ok(()) => return Ok(Vec::new()),
        Err(e) if e.error == Error::LIMIT => {}
        Err(e) => return Err(e),
    }
    let mut out = vec![Scalar::default(); n];
    parse(out.as_mut_ptr(), out.len(), &mut n)?;
    Ok(out)
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pool({} threads)", self.threads())
    }
}

impl fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "VerifyingKey({:?}, {} public)",
            self.curve, self.num_public
        )
    }
}

impl fmt::Debug for Zkey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Zkey({:?})", self.info)
    }
}

impl fmt::Debug for Witness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Witness({:?}, {} values)",
            self.curve(),
            self.values().len()
        )
    }
}
