//! Registries, ledgers, snapshots and their exporters, semaphores and permits.
use std::time::Duration;

use zkpipe::{Error, Kind, Ledger, Registry, Semaphore, Stage};

#[test]
fn ledger_charges_moves_and_closes_on_drop() {
    let reg = Registry::new().unwrap();
    let mut ledger = Ledger::open(&reg, Stage::SYNTH).unwrap();
    ledger.charge(Kind::ABC, 3 << 20).unwrap();
    ledger.charge(Kind::AUX, 1000).unwrap();
    assert_eq!(ledger.release(Kind::H, 1), Err(Error::UNDERFLOW));
    ledger.move_to(Stage::PENDING).unwrap();
    assert_eq!(ledger.stage(), Stage::PENDING);

    let s = reg.snapshot().unwrap();
    assert_eq!(s.live_items(), 1);
    assert_eq!(s.live_bytes(), (3 << 20) + 1000);
    assert_eq!(s.stage(Stage::PENDING).unwrap().live_items, 1);
    assert_eq!(s.stage(Stage::SYNTH).unwrap().live_items, 0);
    assert_eq!(
        s.kind(Stage::PENDING, Kind::ABC).unwrap().live_bytes,
        3 << 20
    );

    // Moving the Rust value moves the open C ledger by memcpy, which zkpipe allows.
    let mut moved = vec![ledger];
    let mut ledger = moved.pop().unwrap();
    ledger.release(Kind::AUX, 1000).unwrap();
    assert_eq!(reg.snapshot().unwrap().live_bytes(), 3 << 20);
    drop(ledger);

    let s = reg.snapshot().unwrap();
    assert_eq!(
        (s.live_items(), s.live_bytes(), s.peak_bytes()),
        (0, 0, (3 << 20) + 1000)
    );
    let pending = s.stage(Stage::PENDING).unwrap();
    assert_eq!((pending.entered, pending.left), (1, 1));
}

#[test]
fn registered_names_and_bad_names() {
    let reg = Registry::new().unwrap();
    let witness = reg.register_kind("witness").unwrap();
    assert_eq!(reg.register_kind("witness").unwrap(), witness);
    let staged = reg.register_stage("staged").unwrap();
    assert_eq!(reg.kind_name(witness), Some("witness"));
    assert_eq!(reg.stage_name(staged), Some("staged"));
    assert_eq!(reg.kind_name(Kind::ABC), Some("abc"));
    assert_eq!(reg.stage_name(Stage(11)), None);
    assert_eq!(reg.register_kind("Bad-Name"), Err(Error::INVAL));
    assert_eq!(reg.register_kind("nul\0inside"), Err(Error::INVAL));
    assert_eq!(Ledger::open(&reg, Stage(11)).err(), Some(Error::INVAL));

    let mut ledger = Ledger::open(&reg, staged).unwrap();
    ledger.charge(witness, 64).unwrap();
    let s = reg.snapshot().unwrap();
    assert_eq!(s.stage_named("staged"), Some(staged));
    assert_eq!(s.kind_named("witness"), Some(witness));
    assert_eq!(s.kind(staged, witness).unwrap().live_bytes, 64);
}

#[test]
fn global_registry_is_shared() {
    let a = Registry::global();
    let b = Registry::global();
    assert_eq!(a.as_ptr(), b.as_ptr());
    assert_eq!(a.as_ptr(), unsafe { zkpipe::sys::zkpipe_acct_default() });
    let kind = a.register_kind("rust_global_test").unwrap();
    let mut ledger = Ledger::open(&b, Stage::SYNTH).unwrap();
    ledger.charge(kind, 7).unwrap();
    assert_eq!(
        a.snapshot()
            .unwrap()
            .kind(Stage::SYNTH, kind)
            .unwrap()
            .live_bytes,
        7
    );
    drop(ledger);
    assert_eq!(
        a.snapshot()
            .unwrap()
            .kind(Stage::SYNTH, kind)
            .unwrap()
            .live_bytes,
        0
    );
}

#[test]
fn exporters_text() {
    let reg = Registry::new().unwrap();
    let witness = reg.register_kind("witness").unwrap();
    let mut ledger = Ledger::open(&reg, Stage::SYNTH).unwrap();
    ledger.charge(Kind::ABC, 4096).unwrap();
    ledger.charge(witness, 3 << 30).unwrap();
    let s = reg.snapshot().unwrap();

    assert_eq!(
        s.summary().unwrap(),
        "synth=1 (3.0 GiB) pending=0 (0 B) queued=0 (0 B) proving=0 (0 B) finalize=0 (0 B) \
         live=3.0 GiB peak=3.0 GiB"
    );

    let json = s.json().unwrap();
    assert!(json.ends_with("}\n"), "{json}");
    let total = 4096 + (3u64 << 30);
    assert!(
        json.starts_with(&format!(
        "{{\"live_items\":1,\"live_bytes\":{total},\"peak_bytes\":{total},\"stages\":{{\"synth\":\
         {{\"live_items\":1,\"peak_items\":1,\"entered\":1,\"left\":0,\"live_buffers\":2,\
         \"live_bytes\":{total},\"kinds\":{{\"abc\":{{\"live_buffers\":1,\"live_bytes\":4096,\
         \"peak_buffers\":1,\"peak_bytes\":4096}}"
    )),
        "{json}"
    );
    assert!(
        json.contains(&format!(
        "\"witness\":{{\"live_buffers\":1,\"live_bytes\":{},\"peak_buffers\":1,\"peak_bytes\":{}}}",
        3u64 << 30,
        3u64 << 30
    )),
        "{json}"
    );
    assert!(json.contains("\"finalize\":{\"live_items\":0"), "{json}");

    let prom = s.prometheus().unwrap();
    for line in [
        "# TYPE zkpipe_inflight_bytes gauge".to_string(),
        format!("zkpipe_inflight_bytes {total}"),
        "zkpipe_stage_items{stage=\"synth\"} 1".to_string(),
        "zkpipe_stage_entered_total{stage=\"synth\"} 1".to_string(),
        "zkpipe_buffer_bytes{stage=\"synth\",kind=\"abc\"} 4096".to_string(),
        format!(
            "zkpipe_buffer_bytes{{stage=\"synth\",kind=\"witness\"}} {}",
            3u64 << 30
        ),
        "zkpipe_buffers{stage=\"queued\",kind=\"abc\"} 0".to_string(),
    ] {
        assert!(
            prom.lines().any(|l| l == line),
            "no line {line:?} in:\n{prom}"
        );
    }
}

#[test]
fn reset_peaks() {
    let reg = Registry::new().unwrap();
    let mut ledger = Ledger::open(&reg, Stage::SYNTH).unwrap();
    ledger.charge(Kind::ABC, 100).unwrap();
    ledger.release(Kind::ABC, 100).unwrap();
    assert_eq!(reg.snapshot().unwrap().peak_bytes(), 100);
    reg.reset_peaks().unwrap();
    assert_eq!(reg.snapshot().unwrap().peak_bytes(), 0);
}

#[test]
fn semaphore_permits_release_on_drop() {
    let sem = Semaphore::new(10).unwrap();
    let a = sem.acquire(4).unwrap();
    let b = sem.try_acquire(6).unwrap();
    assert_eq!((a.units(), b.units(), sem.available()), (4, 6, 0));
    assert_eq!(sem.try_acquire(1).err(), Some(Error::AGAIN));
    assert_eq!(
        sem.acquire_timeout(1, Duration::from_millis(5)).err(),
        Some(Error::TIMEDOUT)
    );
    assert_eq!(sem.acquire(11).err(), Some(Error::TOOBIG));
    drop(a);
    assert_eq!(sem.available(), 4);
    b.release().unwrap();
    assert_eq!(sem.available(), 10);
    let empty = sem.acquire(0).unwrap();
    assert!(!empty.is_held());
    assert_eq!(Semaphore::new(0).err(), Some(Error::INVAL));

    // A permit keeps its semaphore alive, and a close wakes a waiter.
    let held = sem.acquire(10).unwrap();
    let waiter = {
        let sem = sem.clone();
        std::thread::spawn(move || sem.acquire(1).err())
    };
    while sem.waiters() == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    sem.close();
    assert_eq!(waiter.join().unwrap(), Some(Error::CLOSED));
    drop(sem);
    assert!(held.is_held());
    drop(held);
}

#[test]
fn errors_name_themselves() {
    assert_eq!(Error::INVAL.name(), "ZKPIPE_EINVAL");
    assert_eq!(Error::INVAL.code(), -1);
    assert!(Error::CLOSED.to_string().contains("ZKPIPE_ECLOSED"));
    assert_eq!(zkpipe::version().split('.').count(), 3);
}
