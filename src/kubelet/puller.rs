//! The image puller (pkg/kubelet/images/puller.go): with
//! `serializeImagePulls` (the default) one pull at a time, in the order the
//! pod workers asked (`serialImagePuller`'s request channel); otherwise every
//! pull at once, or at most `maxParallelImagePulls` (`parallelImagePuller`'s
//! tokens), the others waiting in order for a token.

use std::collections::VecDeque;

/// The pulls of one kubelet: how many may run, which run, which wait.
#[derive(Clone, Debug)]
pub struct Puller<T> {
    /// `None`: no limit.
    limit: Option<usize>,
    running: usize,
    waiting: VecDeque<T>,
}

impl<T> Puller<T> {
    /// `newImageManager`: serial when `serialize`, else parallel with the
    /// tokens `max_parallel` gives (none or fewer than 1: no limit).
    pub fn new(serialize: bool, max_parallel: Option<i32>) -> Puller<T> {
        let limit = match (serialize, max_parallel) {
            (true, _) => Some(1),
            (false, Some(n)) if n >= 1 => Some(n as usize),
            (false, _) => None,
        };
        Puller { limit, running: 0, waiting: VecDeque::new() }
    }

    /// A pull is asked for: it is handed back when it may start now, else it waits.
    pub fn request(&mut self, pull: T) -> Option<T> {
        if self.limit.is_some_and(|l| self.running >= l) {
            self.waiting.push_back(pull);
            return None;
        }
        self.running += 1;
        Some(pull)
    }

    /// A pull ended: the waiting pull that starts in its place, if any.
    pub fn finished(&mut self) -> Option<T> {
        self.running = self.running.saturating_sub(1);
        let next = self.waiting.pop_front()?;
        self.running += 1;
        Some(next)
    }

    /// Pulls asked for and not yet started.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_pulls_run_one_at_a_time_in_order() {
        let mut p = Puller::new(true, None);
        assert_eq!(p.request("a"), Some("a"));
        assert_eq!(p.request("b"), None);
        assert_eq!(p.request("c"), None);
        assert_eq!(p.finished(), Some("b"));
        assert_eq!(p.finished(), Some("c"));
        assert_eq!(p.finished(), None);
        assert_eq!(p.request("d"), Some("d"));
    }

    #[test]
    fn parallel_pulls_take_tokens() {
        let mut p = Puller::new(false, Some(2));
        assert_eq!((p.request(1), p.request(2), p.request(3)), (Some(1), Some(2), None));
        assert_eq!(p.waiting(), 1);
        assert_eq!(p.finished(), Some(3));
        let mut unlimited = Puller::new(false, None);
        assert!((0..50).all(|i| unlimited.request(i).is_some()));
    }
}
