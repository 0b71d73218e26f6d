//! The sync loop's tick (`syncCh`, every second) and housekeeping
//! (`housekeepingCh`, every 2 s): most of their ticks find nothing to do.
//! A tick that leaves nothing for the next one parks it
//! ([`crate::engine::Queue::park`]) until the first tick that would find
//! something: a work-queue entry falling due, a back-off entry to collect
//! (both at instants known in advance), a pod given an active deadline, a
//! rejected pod (which wake it). A parked tick is skipped exactly as the
//! handling of an idle tick would have left everything.

use super::{Ev, HOUSEKEEPING, Kubelet, Out, SYNC_TICK};
use crate::engine::{Ctx, Outbox, Parked};
use crate::ids::PodId;
use crate::time::{SimDuration, SimTime};

/// A tick at `t` takes the work-queue entries due strictly before `t`:
/// the first that takes one due at `at` is at or after `at` + 1 ms.
const AFTER: SimDuration = SimDuration::from_millis(1);

/// The parked tickers, as the kubelet keeps them to wake them.
#[derive(Debug, Default)]
pub(super) struct Tickers {
    sync: Option<Parked>,
    housekeeping: Option<Parked>,
}

impl Kubelet {
    /// `syncLoopIteration` on `syncCh` (`getPodsToSync`): the work queue's
    /// due pods, and those a pod sync loop handler (the active deadline)
    /// asks for, in pod order.
    pub(super) fn sync_tick(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let due = self.work_queue.get_work(now);
        let mut candidates: Vec<PodId> = due.iter().chain(&self.deadlined).copied().collect();
        candidates.sort_unstable();
        candidates.dedup();
        for pod in candidates {
            let Some(p) = self.pod(pod) else { continue };
            if due.binary_search(&pod).is_ok() || p.past_active_deadline(&p.spec, now) {
                self.update_pod(pod, ctx);
            }
        }
        // Without a deadline to watch, ticks find nothing until the work
        // queue's first entry is due.
        let first = self.work_queue.first();
        let idle = self.deadlined.is_empty() && first.is_none_or(|at| at >= now + SYNC_TICK);
        self.tickers.sync = park_or_schedule(ctx, SYNC_TICK, Ev::SyncTick, idle, first.map(|at| at + AFTER));
    }

    /// Housekeeping (`HandlePodCleanups`) as modelled: the rejected pods'
    /// clean-up (`filterTerminalPodsToDelete`) and the crash-loop back-off
    /// table's `GC()`, which ends it.
    pub(super) fn housekeeping(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        self.backoff.gc(now);
        let rejected = self.clean_up_rejected(ctx);
        let collect = self.backoff.gc_due();
        let idle = !rejected && collect.is_none_or(|at| at > now + HOUSEKEEPING);
        self.tickers.housekeeping = park_or_schedule(ctx, HOUSEKEEPING, Ev::Housekeeping, idle, collect);
    }

    /// The work queue has an entry due at `at`: the parked sync tick comes
    /// back for it.
    pub(super) fn sync_due(&mut self, at: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(parked) = self.tickers.sync {
            ctx.q.wake_by(parked, at + AFTER);
        }
    }

    /// A pod's active deadline is to be watched every tick.
    pub(super) fn sync_every_tick(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(parked) = self.tickers.sync.take() {
            ctx.q.wake(parked);
        }
    }

    /// The back-off table changed: a parked housekeeping comes back when
    /// the table has an entry to collect.
    pub(super) fn housekeeping_collects(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let (Some(parked), Some(at)) = (self.tickers.housekeeping, self.backoff.gc_due()) {
            ctx.q.wake_by(parked, at);
        }
    }

    /// A pod was rejected: housekeeping is to clean it up once deleted.
    pub(super) fn housekeeping_every_tick(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(parked) = self.tickers.housekeeping.take() {
            ctx.q.wake(parked);
        }
    }

    /// The kubelet process stops: its parked tickers (probe workers' too)
    /// come back, for their next tick to be dropped as every tick of a
    /// stopped process is.
    pub(super) fn wake_tickers(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        for pod in 0..self.pods.len() {
            self.wake_probes(PodId(pod as u32), ctx);
        }
        let Tickers { sync, housekeeping } = std::mem::take(&mut self.tickers);
        for parked in sync.into_iter().chain(housekeeping) {
            ctx.q.wake(parked);
        }
    }
}

/// Parks the next tick of an `idle` ticker (until `wake`, if given), or
/// schedules it.
fn park_or_schedule(
    ctx: &mut Ctx<'_, impl Outbox<Out>>,
    period: SimDuration,
    tick: Ev,
    idle: bool,
    wake: Option<SimTime>,
) -> Option<Parked> {
    if idle {
        return ctx.q.park(period, Out::Own(tick), wake);
    }
    ctx.q.after(period, Out::Own(tick));
    None
}
