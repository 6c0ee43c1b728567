//! The embedded HTTP endpoint (`zkpipe/http.h`) from Rust: a [`Server`] that serves a
//! registry's counters on `/metrics` (Prometheus text) and `/status` (JSON), plus what each
//! attached [`Source`] adds, an [`Engine`] above all (its series and its `/status` object); and
//! [`render`], the same text without a server, for a host that serves it from its own HTTP
//! stack (or writes it to a file at exit).
//!
//! The server runs on one thread of its own, binds to 127.0.0.1 unless told otherwise, bounds
//! its connections and their time, and can require a bearer token (see the C header). A
//! zkpipe built without libmicrohttpd starts no server ([`Error::UNSUPPORTED`]); [`render`]
//! works there too.
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use zkpipe_sys as sys;

use crate::{Engine, Error, Registry, Result, Stages};

/// What is asked for: `/metrics` or `/status`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Format {
    /// Prometheus text exposition 0.0.4 (what `/metrics` answers).
    Prometheus,
    /// One JSON object (what `/status` answers, without the server's `uptime_s`).
    Json,
}

impl Format {
    fn raw(self) -> sys::zkpipe_http_format {
        match self {
            Format::Prometheus => sys::ZKPIPE_HTTP_PROMETHEUS,
            Format::Json => sys::ZKPIPE_HTTP_JSON,
        }
    }
}

/// The server's settings (`zkpipe_http_config`); `Default`: loopback, a free port, the
/// process-wide registry, the prefix "zkpipe", no token, the C defaults for the limits.
#[derive(Clone)]
pub struct HttpConfig {
    /// A numeric IPv4 or IPv6 address; "0.0.0.0" or "::" serve every interface (only on a
    /// network you trust, or with a token).
    pub address: String,
    /// 0: a free port the system picks ([`Server::port`]).
    pub port: u16,
    /// The registry served; `None`: [`Registry::global`].
    pub registry: Option<Registry>,
    /// The series' prefix; `None`: "zkpipe".
    pub prefix: Option<String>,
    /// `/metrics` and `/status` then require "Authorization: Bearer <token>".
    pub bearer_token: Option<String>,
    /// Open connections at most (1..=4096); 0: the C default (64).
    pub max_connections: u32,
}

impl Default for HttpConfig {
    fn default() -> HttpConfig {
        HttpConfig {
            address: "127.0.0.1".into(),
            port: 0,
            registry: None,
            prefix: None,
            bearer_token: None,
            max_connections: 0,
        }
    }
}

/// The C strings a config points at, alive while it is used.
struct RawConfig {
    raw: sys::zkpipe_http_config,
    _strings: Vec<CString>,
    registry: Registry,
}

fn c_string(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::INVAL)
}

impl HttpConfig {
    fn raw(&self) -> Result<RawConfig> {
        let registry = self.registry.clone().unwrap_or_else(Registry::global);
        // SAFETY: zkpipe_http_config_init fills in every field.
        let mut raw: sys::zkpipe_http_config = unsafe { std::mem::zeroed() };
        unsafe { sys::zkpipe_http_config_init(&mut raw) };
        let mut strings = Vec::new();
        let mut keep = |s: &str| -> Result<*const c_char> {
            let c = c_string(s)?;
            let p = c.as_ptr();
            strings.push(c);
            Ok(p)
        };
        raw.address = keep(&self.address)?;
        raw.port = self.port;
        raw.acct = registry.as_ptr();
        if let Some(prefix) = &self.prefix {
            raw.prom.prefix = keep(prefix)?;
        }
        if let Some(token) = &self.bearer_token {
            raw.bearer_token = keep(token)?;
        }
        if self.max_connections > 0 {
            raw.max_connections = self.max_connections;
        }
        Ok(RawConfig {
            raw,
            _strings: strings,
            registry,
        })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Something that adds its part to `/metrics` and `/status`: an [`Engine`] (its series and
/// its object, `zkpipe_engine_http_provider`). Sealed: the library's providers only.
pub trait Source: sealed::Sealed + Send + Sync {
    #[doc(hidden)]
    fn provider(&self) -> (sys::zkpipe_http_provider_fn, *mut c_void);
}

impl<S: Stages> sealed::Sealed for Engine<S> {}

impl<S: Stages> Source for Engine<S> {
    fn provider(&self) -> (sys::zkpipe_http_provider_fn, *mut c_void) {
        (
            Some(sys::zkpipe_engine_http_provider),
            self.raw().as_ptr().cast(),
        )
    }
}

/// A running endpoint. Stopped on drop (well under a second, whatever the clients do); the
/// sources attached are kept alive until they are detached or the server stops.
pub struct Server {
    raw: NonNull<sys::zkpipe_http>,
    _registry: Registry,
    sources: Mutex<HashMap<String, Arc<dyn Source>>>,
}

// SAFETY: every zkpipe_http function but stop may run from any thread (zkpipe/http.h); stop
// runs from drop; the sources are Send + Sync and guarded by the mutex.
unsafe impl Send for Server {}
unsafe impl Sync for Server {}

impl Server {
    /// Binds and starts serving. Errors: INVAL (a bad address, prefix, token or limit), IO
    /// (the address cannot be bound), NOMEM, UNSUPPORTED (zkpipe built without
    /// libmicrohttpd).
    pub fn start(config: &HttpConfig) -> Result<Server> {
        let c = config.raw()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: a complete config; the server copies what it points at (strings too).
        Error::check(unsafe { sys::zkpipe_http_start(&mut raw, &c.raw) })?;
        let raw = NonNull::new(raw).ok_or(Error::NOMEM)?;
        Ok(Server {
            raw,
            _registry: c.registry,
            sources: Mutex::new(HashMap::new()),
        })
    }

    /// The port it listens on (the one the system picked for port 0).
    pub fn port(&self) -> u16 {
        // SAFETY: a live server.
        unsafe { sys::zkpipe_http_port(self.raw.as_ptr()) }
    }

    /// Adds `source` under `name` (1..=31 characters of [a-z0-9_]): `/status` gets
    /// `"<name>":{...}`, `/metrics` its series. The server keeps `source` alive until it is
    /// detached or the server stops. Errors: INVAL (a bad or taken name), LIMIT (8 already).
    pub fn attach<T: Source + 'static>(&self, name: &str, source: Arc<T>) -> Result<()> {
        let c_name = c_string(name)?;
        let (f, ctx) = source.provider();
        let mut sources = self.sources.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: a live server; ctx stays valid while attached (the map holds the Arc), and
        // this is not the server's thread (providers never reach Rust code).
        Error::check(unsafe {
            sys::zkpipe_http_attach(self.raw.as_ptr(), c_name.as_ptr(), f, ctx)
        })?;
        sources.insert(name.to_string(), source);
        Ok(())
    }

    /// Removes the source attached under `name`; once this returns it is not running and will
    /// not be called again, and the server no longer holds it. Errors: INVAL (no such name).
    pub fn detach(&self, name: &str) -> Result<()> {
        let c_name = c_string(name)?;
        let mut sources = self.sources.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: a live server.
        Error::check(unsafe { sys::zkpipe_http_detach(self.raw.as_ptr(), c_name.as_ptr()) })?;
        sources.remove(name);
        Ok(())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: ours; no provider runs after stop returns, so the sources may go after it.
        unsafe { sys::zkpipe_http_stop(self.raw.as_ptr()) }
    }
}

/// What `/metrics` ([`Format::Prometheus`]) or `/status` ([`Format::Json`]) would answer on a
/// server started with `config` and `sources` attached in this order, rendered here without a
/// server (`zkpipe_http_render`): for a host that serves the text from its own HTTP stack.
/// Errors: INVAL (a bad name or prefix, more than 8 sources), LIMIT (over 4 MiB), NOMEM.
pub fn render(
    config: &HttpConfig,
    format: Format,
    sources: &[(&str, &dyn Source)],
) -> Result<String> {
    let c = config.raw()?;
    let names: Vec<CString> = sources
        .iter()
        .map(|(name, _)| c_string(name))
        .collect::<Result<_>>()?;
    let providers: Vec<sys::zkpipe_http_provider> = sources
        .iter()
        .zip(&names)
        .map(|((_, source), name)| {
            let (f, ctx) = source.provider();
            sys::zkpipe_http_provider {
                name: name.as_ptr(),
                r#fn: f,
                ctx,
            }
        })
        .collect();
    let mut text = std::ptr::null_mut();
    let mut len = 0usize;
    // SAFETY: a complete config, providers whose contexts the caller's borrows keep alive.
    Error::check(unsafe {
        sys::zkpipe_http_render(
            &c.raw,
            format.raw(),
            providers.as_ptr(),
            providers.len(),
            &mut text,
            &mut len,
        )
    })?;
    // SAFETY: len bytes the library allocated with the C allocator (the config's is NULL).
    let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
    let out = String::from_utf8_lossy(bytes).into_owned();
    // SAFETY: as above: free() takes it back.
    unsafe { libc_free(text.cast()) };
    Ok(out)
}

extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut c_void);
}

impl<S: Stages> Engine<S> {
    /// What `/metrics` or `/status` would show for this engine on a server of its registry
    /// (the registry's counters, then the engine's part under "engine"), for a host that
    /// serves it itself. Errors: as [`render`].
    pub fn render_http(&self, format: Format) -> Result<String> {
        let config = HttpConfig {
            registry: Some(self.registry().clone()),
            ..HttpConfig::default()
        };
        render(&config, format, &[("engine", self)])
    }
}
