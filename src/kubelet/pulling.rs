//! The image manager's pulls (image_manager.go `pullImage`) on the node's
//! puller ([`super::puller`]): the back-off check, `Pulling`, the wait for
//! a turn, the pull itself, and `Pulled` or `Failed`.

use super::Out;
use super::draws::label;
use super::images;
use super::sync::Wait;
use super::{Ev, Kubelet};
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::What;
use crate::time::{SimDuration, SimTime};

/// A pull a sync asked the puller for.
#[derive(Clone, Debug)]
pub(super) struct PullRequest {
    pod: PodId,
    sync: u64,
    container: usize,
    image: String,
    /// The layers are on the node already (pull policy Always).
    cached: bool,
}

/// A pull the runtime is doing.
#[derive(Clone, Debug)]
pub(super) struct RunningPull {
    request: PullRequest,
    started: SimTime,
    /// The registry's refusal, decided with the credentials the pull began with.
    error: Option<String>,
}

impl Kubelet {
    /// `pullImage`: within the back-off since the last failed pull, no pull
    /// (`ImagePullBackOff`); else `Pulling`, and the sync waits for the
    /// puller's result, its turn included.
    pub(super) fn pull_image(
        &mut self,
        pod: PodId,
        c: usize,
        image: &str,
        cached: bool,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let now = ctx.q.now();
        let key = images::backoff_key(&self.pod(pod).expect("synced pod exists").uid, image);
        if self.image_backoff.in_backoff_since_update(&key, now) {
            let mut msg = format!("Back-off pulling image {image:?}");
            self.emit(pod, Some(c), false, "BackOff", msg.clone(), ctx);
            if let Some(previous) = self.pull_errors.get(&key) {
                msg = format!("{msg}: {previous}");
            }
            self.emit(pod, Some(c), true, "Failed", "Error: ImagePullBackOff".into(), ctx);
            return self.start_failed(pod, c, "ImagePullBackOff", msg, None);
        }
        self.pull_errors.remove(&key);
        self.emit(pod, Some(c), false, "Pulling", format!("Pulling image {image:?}"), ctx);
        let sync = self.pod(pod).and_then(|p| p.sync.as_ref()).map(|s| s.id()).expect("sync exists");
        self.set_wait(pod, Wait::Pull { container: c, began: now, result: None });
        let request = PullRequest { pod, sync, container: c, image: image.to_string(), cached };
        if let Some(r) = self.puller.request(request) {
            self.begin_pull(r, ctx);
        }
    }

    /// A pull's turn came: `PullImage` runs for the registry's time (the
    /// runtime's SyncPod runs with `context.TODO()`, so a termination does
    /// not cancel it). One nothing waits for any more (its pod forgotten)
    /// gives its turn to the next.
    fn begin_pull(&mut self, mut r: PullRequest, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while !self.pull_awaited(&r) {
            match self.puller.finished() {
                Some(next) => r = next,
                None => return,
            }
        }
        let (pod, c) = (r.pod, r.container);
        // A pull queued behind another of the same image finds its layers there.
        r.cached |= self.runtime.has_image(&r.image);
        // A refused pull ends at the registry's answer, before any layer: a cached pull's time.
        let error = self.pull_refusal(pod, &r.image);
        let refused = error.is_some();
        // An image the registry gives a size downloads at its bandwidth, after
        // what a cached pull takes (resolving, the manifest, unpacking).
        let download = match r.cached || refused {
            true => None,
            false => self.cluster.registry.download(&r.image).map(|(_, d)| d),
        };
        let lat = &self.cluster.latencies;
        let dist = match r.cached || refused || download.is_some() {
            true => &lat.image_pull_cached,
            false => &lat.image_pull,
        };
        let d = dist.sample(&mut self.rng, || {
            let what = if r.cached { "the cached image " } else { "the image " };
            label(&self.pods, What::ImagePull, pod, Some(c)).with(format!("{what}{}", r.image))
        });
        let d = d + download.unwrap_or(SimDuration::ZERO);
        self.next_pull += 1;
        let id = self.next_pull;
        self.pulls.insert(id, RunningPull { request: r, started: ctx.q.now(), error });
        self.send(ctx, d, Ev::PullDone { pull: id });
    }

    /// The sync that asked for `r` still waits for it.
    fn pull_awaited(&self, r: &PullRequest) -> bool {
        let run = self.pods.get(r.pod.0 as usize).and_then(|p| p.as_deref()).and_then(|p| p.sync.as_ref());
        run.is_some_and(|s| {
            s.id() == r.sync && matches!(s.wait, Wait::Pull { container, .. } if container == r.container)
        })
    }

    /// `PullImage` returned: the puller's next pull starts, and the sync
    /// that waited goes on with the result.
    pub(super) fn pull_done(&mut self, pull: u64, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(done) = self.pulls.remove(&pull) else { return };
        if done.error.is_none() {
            self.runtime.images.push(done.request.image.clone());
        }
        if let Some(next) = self.puller.finished() {
            self.begin_pull(next, ctx);
        }
        let r = done.request;
        if !self.pull_awaited(&r) {
            return;
        }
        let took = ctx.q.now().since(done.started);
        if let Some(Wait::Pull { result, .. }) = self.pod(r.pod).and_then(|p| p.sync.as_mut()).map(|s| &mut s.wait) {
            *result = Some(match done.error {
                None => Ok(took),
                Some(e) => Err(e),
            });
        }
        self.sync_step_done(r.pod, r.sync, ctx);
    }

    /// The pull of a sync's container ended: `Pulled … in 1.2s (3.4s including
    /// waiting)`, the first the pull's own time, the second since `Pulling`
    /// (its turn included); or the registry's refusal.
    pub(super) fn pulled(
        &mut self,
        pod: PodId,
        container: usize,
        began: SimTime,
        result: Result<SimDuration, String>,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let image = self.synced_spec(pod).containers[container].image.clone();
        let took = match result {
            Ok(took) => took,
            Err(error) => return self.pull_failed(pod, container, &image, error, ctx),
        };
        let total = ctx.q.now().since(began);
        let size = self.cluster.registry.image_size(&image);
        let msg = format!(
            "Successfully pulled image {image:?} in {took} ({total} including waiting). Image size: {size} bytes."
        );
        self.emit(pod, Some(container), false, "Pulled", msg, ctx);
        self.begin_create(pod, container, ctx);
    }

    /// `pullImage`'s failure: the `Failed` event with the runtime's error, the
    /// back-off's `Next`, the error kept for the back-off's message
    /// (`prevPullErrMsg`), and `startContainer`'s `Error: ErrImagePull`.
    fn pull_failed(&mut self, pod: PodId, c: usize, image: &str, error: String, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let uid = self.pod(pod).expect("synced pod exists").uid.clone();
        let key = images::backoff_key(&uid, image);
        self.emit(pod, Some(c), true, "Failed", format!("Failed to pull image {image:?}: {error}"), ctx);
        self.image_backoff.next(&key, now, now);
        self.pull_errors.insert(key, format!("ErrImagePull: {error}"));
        self.emit(pod, Some(c), true, "Failed", "Error: ErrImagePull".into(), ctx);
        self.start_failed(pod, c, "ErrImagePull", error, None);
    }

    /// What the registry refuses a pull of `image` for this pod with (the
    /// runtime's error), or `None`: credentials come from the pod's
    /// `imagePullSecrets` the secret manager has.
    pub(super) fn pull_refusal(&self, pod: PodId, image: &str) -> Option<String> {
        let spec = self.synced_spec(pod);
        let names = images::pull_secret_names(spec);
        let (found, _) = self.objects.pull_secrets(&names, &spec.namespace);
        images::pull_error(self.cluster.registry.answer(image), image, found > 0)
    }
}
