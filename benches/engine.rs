//! The engine's events per second against a bare binary-heap loop: a whole
//! c28 run (every event dispatched to its component), podsim's event queue
//! alone, and `std::collections::BinaryHeap` alone, each handling as many
//! events as one c28 run does. `cargo bench --bench engine`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use podsim::engine::Queue;
use podsim::run::{Inputs, prepare};
use podsim::sim::World;
use podsim::time::{SimDuration, SimTime};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::path::PathBuf;

/// Timers pending at once in the no-op loops (about what a c28 run holds).
const PENDING: u64 = 32;

/// The next pseudo-random delay in ms (xorshift), so the heaps reorder as a run's would.
fn delay(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    1 + *state % 2000
}

/// `events` no-op events through a bare max-heap of (time, sequence) pairs.
fn bare_heap(events: u64) -> u64 {
    let mut heap = BinaryHeap::new();
    let (mut seq, mut rng) = (0u64, 1u64);
    for _ in 0..PENDING {
        seq += 1;
        heap.push(Reverse((delay(&mut rng), seq)));
    }
    for _ in 0..events {
        let Reverse((at, _)) = heap.pop().expect("always refilled");
        seq += 1;
        heap.push(Reverse((at + delay(&mut rng), seq)));
    }
    seq
}

/// The same loop through podsim's queue (time, FIFO sequence, payload).
fn podsim_queue(events: u64) -> u64 {
    let mut q = Queue::default();
    let mut rng = 1u64;
    for i in 0..PENDING {
        q.at(SimTime::from_millis(delay(&mut rng)), i);
    }
    for _ in 0..events {
        let e = q.pop_until(SimTime::MAX).expect("always refilled");
        q.after(SimDuration::from_millis(delay(&mut rng)), e);
    }
    events
}

fn bench(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/scenarios/c28-service.yaml");
    let p = prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("the scenario loads");
    let until = SimTime::ZERO + p.until;
    // One fixed seed, so every iteration handles the same number of events.
    let (_, events) = World::new(&p.setup, p.seed).run_counting(until);
    let mut group = c.benchmark_group("engine");
    group.throughput(Throughput::Elements(events));
    group.bench_function("c28-service", |b| b.iter(|| black_box(World::new(&p.setup, p.seed).run_counting(until).1)));
    group.bench_function("queue", |b| b.iter(|| black_box(podsim_queue(events))));
    group.bench_function("bare-heap", |b| b.iter(|| black_box(bare_heap(events))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
