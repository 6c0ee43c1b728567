//! The HTTP endpoint from Rust, scraped for real over TCP while an engine works: /metrics holds
//! the registry's and the engine's series (a partition shown proving while it is held there),
//! /status the engine's object, a token is required once set, a detached engine is gone from
//! the answers, and `render` gives the same series without a server.
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use zkpipe::http::{self, Format, HttpConfig, Server};
use zkpipe::{Backend, Call, Engine, EngineConfig, Error, Kind, Registry, StageError, Stages};

/// Proves only once let go, so a scrape sees partitions in flight.
struct Held {
    go: AtomicBool,
}

impl Stages for Held {
    type Input = ();
    type Item = ();
    type Output = ();

    fn synthesize(&self, call: &mut Call, _input: &()) -> Result<(), StageError> {
        call.charge(Kind::ABC, 1 << 20)?;
        Ok(())
    }

    fn prove(&self, _call: &mut Call, _input: &(), _item: ()) -> Result<(), StageError> {
        while !self.go.load(Ordering::Acquire) {
            thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }
}

/// One GET over a fresh connection: the status code and the body.
fn get(port: u16, path: &str, token: Option<&str>) -> (u32, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n{auth}\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (code, body)
}

/// The value of the sample `name` (no labels) in Prometheus text.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn a_scrape_mid_run_sees_the_engine() {
    let registry = Registry::new().unwrap();
    let config = EngineConfig {
        backend: Backend::Cpu,
        registry: Some(registry.clone()),
        ..EngineConfig::default()
    };
    let engine = Arc::new(
        Engine::new(
            &config,
            Held {
                go: AtomicBool::new(false),
            },
        )
        .unwrap(),
    );
    let server = match Server::start(&HttpConfig {
        registry: Some(registry.clone()),
        ..HttpConfig::default()
    }) {
        Err(Error::UNSUPPORTED) => {
            eprintln!("note: zkpipe built without libmicrohttpd: no server to scrape");
            return;
        }
        r => r.unwrap(),
    };
    server.attach("engine", engine.clone()).unwrap();
    let job = engine.submit(vec![(); 6]).unwrap();
    // Wait until the prover holds one: the engine is mid-run.
    while engine.stats().proving == 0 {
        thread::sleep(Duration::from_millis(1));
    }
    let (code, metrics) = get(server.port(), "/metrics", None);
    assert_eq!(code, 200);
    assert_eq!(
        sample(&metrics, "zkpipe_partitions_submitted_total"),
        Some(6.0)
    );
    assert_eq!(sample(&metrics, "zkpipe_partitions_proving"), Some(1.0));
    let resident = engine.stats().resident_bound as f64;
    assert_eq!(
        sample(&metrics, "zkpipe_partitions_resident_bound"),
        Some(resident)
    );
    assert!(metrics.contains("zkpipe_partition_prove_seconds_bucket"));
    let (code, status) = get(server.port(), "/status", None);
    assert_eq!(code, 200);
    assert!(status.contains("\"engine\":{"), "{status}");
    assert!(status.contains("\"proving\":1"), "{status}");
    // The same series without a server, from the engine itself.
    let text = engine.render_http(Format::Prometheus).unwrap();
    assert_eq!(
        sample(&text, "zkpipe_partitions_submitted_total"),
        Some(6.0)
    );
    let json = http::render(&HttpConfig::default(), Format::Json, &[("mine", &*engine)]).unwrap();
    assert!(json.contains("\"mine\":{"), "{json}");

    engine.stages().go.store(true, Ordering::Release);
    job.wait_timeout(Duration::from_secs(60)).unwrap();
    let (_, metrics) = get(server.port(), "/metrics", None);
    assert_eq!(
        sample(&metrics, "zkpipe_partitions_total{result=\"proved\"}"),
        Some(6.0)
    );
    server.detach("engine").unwrap();
    assert_eq!(server.detach("engine"), Err(Error::INVAL));
    let (_, metrics) = get(server.port(), "/metrics", None);
    assert_eq!(sample(&metrics, "zkpipe_partitions_submitted_total"), None);
}

#[test]
fn a_token_is_required_once_set() {
    let server = match Server::start(&HttpConfig {
        bearer_token: Some("s3cret".into()),
        ..HttpConfig::default()
    }) {
        Err(Error::UNSUPPORTED) => return,
        r => r.unwrap(),
    };
    assert_eq!(get(server.port(), "/metrics", None).0, 401);
    assert_eq!(get(server.port(), "/metrics", Some("wrong")).0, 401);
    assert_eq!(get(server.port(), "/metrics", Some("s3cret")).0, 200);
    assert!(Server::start(&HttpConfig {
        address: "not an address".into(),
        ..HttpConfig::default()
    })
    .is_err());
}
