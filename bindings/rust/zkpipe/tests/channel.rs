//! The narrow waist from Rust: conservation across threads, the permit held until delivery,
//! and values dropped with the channel.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use zkpipe::{Channel, Error, Kind, Ledger, Registry, Semaphore, Stage};

/// A value that checks its own contents and counts its drops.
struct Item {
    producer: usize,
    seq: usize,
    payload: Vec<u8>,
}

fn payload(producer: usize, seq: usize) -> Vec<u8> {
    let len = 1 + (producer * 131 + seq * 17) % 4000;
    (0..len).map(|i| (i + producer + seq) as u8).collect()
}

#[test]
fn conservation_with_several_threads() {
    const PRODUCERS: usize = 3;
    const CONSUMERS: usize = 2;
    const ITEMS: usize = 300;
    const PERMITS: u64 = 3;
    const CAPACITY: usize = 2;
    let reg = Registry::new().unwrap();
    let sem = Semaphore::new(PERMITS).unwrap();
    let chan = Arc::new(Channel::<Item>::new(CAPACITY).unwrap());
    let done = Arc::new(AtomicBool::new(false));

    // Watches the bound of the hold-until-delivery policy while the items flow.
    let monitor = {
        let (reg, done) = (reg.clone(), done.clone());
        thread::spawn(move || {
            let mut samples = 0u64;
            while !done.load(Ordering::Acquire) {
                let s = reg.snapshot().unwrap();
                let waist: u64 = [Stage::SYNTH, Stage::PENDING, Stage::QUEUED]
                    .iter()
                    .map(|&st| s.stage(st).unwrap().live_items)
                    .sum();
                assert!(
                    waist <= PERMITS + CAPACITY as u64,
                    "{waist} items before the waist"
                );
                let live: u64 = s.stages().map(|st| s.stage(st).unwrap().live_items).sum();
                assert_eq!(live, s.live_items());
                assert!(s.live_bytes() <= s.peak_bytes());
                samples += 1;
                thread::yield_now();
            }
            samples
        })
    };

    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let (reg, sem, chan) = (reg.clone(), sem.clone(), chan.clone());
            thread::spawn(move || {
                for seq in 0..ITEMS {
                    let permit = sem.acquire(1).unwrap();
                    let mut ledger = Ledger::open(&reg, Stage::SYNTH).unwrap();
                    let payload = payload(p, seq);
                    ledger.charge(Kind::ABC, payload.len() as u64).unwrap();
                    ledger.charge(Kind::AUX, 8).unwrap();
                    ledger.move_to(Stage::PENDING).unwrap();
                    let item = Item {
                        producer: p,
                        seq,
                        payload,
                    };
                    chan.send(item, Some(ledger), Some(permit)).unwrap();
                }
            })
        })
        .collect();
    let consumers: Vec<_> = (0..CONSUMERS)
        .map(|_| {
            let chan = chan.clone();
            thread::spawn(move || {
                let mut got = Vec::new();
                loop {
                    let r = match chan.recv() {
                        Ok(r) => r,
                        Err(e) => {
                            assert_eq!(e, Error::CLOSED);
                            return got;
                        }
                    };
                    let mut ledger = r.ledger.expect("every item carries its ledger");
                    assert_eq!(ledger.stage(), Stage::PROVING);
                    let item = r.value;
                    assert_eq!(item.payload, payload(item.producer, item.seq));
                    ledger
                        .release(Kind::ABC, item.payload.len() as u64)
                        .unwrap();
                    ledger.move_to(Stage::FINALIZE).unwrap();
                    got.push((item.producer, item.seq));
                    // closing the ledger releases the AUX buffer it still holds
                }
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    chan.close();
    let mut got: Vec<_> = consumers
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    done.store(true, Ordering::Release);
    assert!(monitor.join().unwrap() > 0);

    got.sort();
    let want: Vec<_> = (0..PRODUCERS)
        .flat_map(|p| (0..ITEMS).map(move |s| (p, s)))
        .collect();
    assert_eq!(got, want, "every item received exactly once");
    let stats = chan.stats();
    let n = (PRODUCERS * ITEMS) as u64;
    assert_eq!(
        (stats.sent, stats.received, stats.dropped, stats.queued),
        (n, n, 0, 0)
    );
    assert_eq!(sem.available(), PERMITS);

    let s = reg.snapshot().unwrap();
    assert_eq!((s.live_items(), s.live_bytes()), (0, 0));
    for st in s.stages() {
        let c = s.stage(st).unwrap();
        assert_eq!(
            (c.live_items, c.live_buffers, c.live_bytes),
            (0, 0, 0),
            "{st:?}"
        );
        assert_eq!(c.entered, c.left, "{st:?}");
    }
    for st in [
        Stage::SYNTH,
        Stage::PENDING,
        Stage::QUEUED,
        Stage::PROVING,
        Stage::FINALIZE,
    ] {
        assert_eq!(s.stage(st).unwrap().entered, n, "{st:?}");
    }
    assert!(s.stage(Stage::QUEUED).unwrap().peak_items <= CAPACITY as u64);
}

#[test]
fn permit_held_until_delivery() {
    let reg = Registry::new().unwrap();
    let sem = Semaphore::new(1).unwrap();
    let chan = Arc::new(Channel::<u32>::new(1).unwrap());
    chan.send(1, None, None).unwrap();

    let sender = {
        let (reg, sem, chan) = (reg.clone(), sem.clone(), chan.clone());
        thread::spawn(move || {
            let permit = sem.acquire(1).unwrap();
            let mut ledger = Ledger::open(&reg, Stage::PENDING).unwrap();
            ledger.charge(Kind::ABC, 1 << 20).unwrap();
            chan.send(2, Some(ledger), Some(permit)).unwrap();
        })
    };
    while chan.stats().waiting_senders == 0 {
        thread::sleep(Duration::from_millis(1));
    }
    // The sender is blocked on the full channel, still holding its permit and its item.
    for _ in 0..20 {
        assert_eq!(
            sem.available(),
            0,
            "the permit was released before delivery"
        );
        let s = reg.snapshot().unwrap();
        assert_eq!(s.stage(Stage::PENDING).unwrap().live_items, 1);
        thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(chan.recv().unwrap().value, 1);
    sender.join().unwrap();
    assert_eq!(sem.available(), 1, "delivery released the permit");
    let s = reg.snapshot().unwrap();
    assert_eq!(s.stage(Stage::QUEUED).unwrap().live_items, 1);
    assert_eq!(
        s.kind(Stage::QUEUED, Kind::ABC).unwrap().live_bytes,
        1 << 20
    );

    let r = chan.recv().unwrap();
    assert_eq!(r.value, 2);
    assert_eq!(r.ledger.as_ref().unwrap().stage(), Stage::PROVING);
    drop(r);
    assert_eq!(reg.snapshot().unwrap().live_bytes(), 0);
}

#[test]
fn refused_send_gives_everything_back() {
    let reg = Registry::new().unwrap();
    let sem = Semaphore::new(1).unwrap();
    let chan = Channel::<String>::new(1).unwrap();
    chan.try_send("first".into(), None, None).unwrap();

    let permit = sem.acquire(1).unwrap();
    let ledger = Ledger::open(&reg, Stage::PENDING).unwrap();
    let e = chan
        .try_send("second".into(), Some(ledger), Some(permit))
        .unwrap_err();
    assert_eq!(e.error, Error::AGAIN);
    assert_eq!(e.value, "second");
    assert!(e.permit.as_ref().unwrap().is_held());
    assert_eq!(e.ledger.as_ref().unwrap().stage(), Stage::PENDING);
    let e = chan
        .send_timeout(e.value, e.ledger, e.permit, Duration::from_millis(5))
        .unwrap_err();
    assert_eq!(e.error, Error::TIMEDOUT);

    chan.close();
    let e = chan.send(e.value, e.ledger, e.permit).unwrap_err();
    assert_eq!(e.error, Error::CLOSED);
    drop(e);
    assert_eq!(sem.available(), 1);
    assert_eq!(reg.snapshot().unwrap().live_items(), 0);
    assert_eq!(chan.recv().unwrap().value, "first");
    assert_eq!(chan.recv().err(), Some(Error::CLOSED));
    assert_eq!(
        chan.recv_timeout(Duration::from_millis(1)).err(),
        Some(Error::CLOSED)
    );
}

struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn dropping_a_channel_drops_its_items_and_zeroes_the_counters() {
    let reg = Registry::new().unwrap();
    let drops = Arc::new(AtomicUsize::new(0));
    let chan = Channel::<Tracked>::new(4).unwrap();
    for i in 0..3u64 {
        let mut ledger = Ledger::open(&reg, Stage::PENDING).unwrap();
        ledger.charge(Kind::ABC, 1000 + i).unwrap();
        ledger.charge(Kind::H, 10).unwrap();
        chan.send(Tracked(drops.clone()), Some(ledger), None)
            .unwrap();
    }
    chan.send(Tracked(drops.clone()), None, None).unwrap();
    let s = reg.snapshot().unwrap();
    assert_eq!(s.stage(Stage::QUEUED).unwrap().live_items, 3);
    assert_eq!(s.live_bytes(), 3000 + 3 + 30);
    assert_eq!(drops.load(Ordering::SeqCst), 0);

    drop(chan);
    assert_eq!(drops.load(Ordering::SeqCst), 4);
    let s = reg.snapshot().unwrap();
    assert_eq!((s.live_items(), s.live_bytes()), (0, 0));
    assert_eq!(s.stage(Stage::QUEUED).unwrap().left, 3);

    // clear() does the same on a live channel.
    let chan = Channel::<Tracked>::new(2).unwrap();
    let ledger = Ledger::open(&reg, Stage::SYNTH).unwrap();
    chan.send(Tracked(drops.clone()), Some(ledger), None)
        .unwrap();
    assert_eq!(chan.clear(), 1);
    assert_eq!(drops.load(Ordering::SeqCst), 5);
    assert_eq!(chan.stats().dropped, 1);
    assert_eq!(reg.snapshot().unwrap().live_items(), 0);
}
