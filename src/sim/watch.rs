//! Watch delivery: each informer is its own stream from the API server,
//! with the profile's watch latency and in order (a later change never
//! arrives before an earlier one).

use crate::dist::Dist;
use crate::rng::Stream;
use crate::time::SimTime;
use std::collections::HashMap;

pub struct Watches {
    seed: u64,
    /// Per watcher: its own draws and when it last received something.
    streams: HashMap<String, (Stream, SimTime)>,
}

impl Watches {
    pub fn new(seed: u64) -> Self {
        Watches { seed, streams: HashMap::new() }
    }

    /// When a change made at `now` reaches `watcher`.
    pub fn due(&mut self, watcher: &str, now: SimTime, latency: &Dist) -> SimTime {
        let seed = self.seed;
        // Look up before inserting: the key is allocated once per watcher, not per change.
        if !self.streams.contains_key(watcher) {
            let stream = Stream::new(seed, &format!("watch/{watcher}"));
            self.streams.insert(watcher.to_string(), (stream, SimTime::ZERO));
        }
        let (rng, last) = self.streams.get_mut(watcher).expect("inserted above");
        let at = (now + latency.sample(rng)).max(*last);
        *last = at;
        at
    }
}
