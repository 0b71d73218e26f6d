//! How many pods `manageReplicas` creates or deletes in one sync, and the
//! slow-start batches of the creations (replica_set.go `manageReplicas`,
//! `slowStartBatch`).

/// `BurstReplicas`: the most pods one sync creates or deletes.
pub const BURST_REPLICAS: u32 = 500;
/// `controller.SlowStartInitialBatchSize`.
pub const SLOW_START_INITIAL_BATCH_SIZE: u32 = 1;

/// What `manageReplicas` does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicaChange {
    /// Nothing: as many active pods as `spec.replicas`.
    None,
    /// Create `count` pods in `batches` (each batch's calls run concurrently;
    /// the next starts when the whole batch has returned). The expectations
    /// expect `count` creations.
    Create { count: u32, batches: Vec<u32> },
    /// Delete `count` pods, all at once (no slow start); which ones is
    /// [`super::ranking::pods_to_delete`].
    Delete { count: u32 },
}

/// manageReplicas: diff = active − spec; create min(−diff, 500) in slow-start batches, or delete
/// min(diff, 500) at once.
pub fn manage_replicas(active: u32, spec_replicas: u32) -> ReplicaChange {
    if active < spec_replicas {
        let count = (spec_replicas - active).min(BURST_REPLICAS);
        ReplicaChange::Create { count, batches: slow_start_batches(count, SLOW_START_INITIAL_BATCH_SIZE) }
    } else if active > spec_replicas {
        ReplicaChange::Delete { count: (active - spec_replicas).min(BURST_REPLICAS) }
    } else {
        ReplicaChange::None
    }
}

/// slowStartBatch: batch sizes min(remaining, initial), then min(2 × previous, remaining), …
pub fn slow_start_batches(count: u32, initial: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut remaining = count;
    let mut batch = remaining.min(initial);
    while batch > 0 {
        out.push(batch);
        remaining -= batch;
        batch = batch.saturating_mul(2).min(remaining);
    }
    out
}

/// After a batch fails, later batches are skipped, and `manageReplicas`
/// lowers the creation expectations once per pod not created:
/// `count − successes`, where `successes` are the earlier batches plus the
/// calls of the failed batch that succeeded.
pub fn unobserved_creations(batches: &[u32], failed_batch: usize, failures_in_batch: u32) -> u32 {
    let count: u32 = batches.iter().sum();
    let successes: u32 = batches[..failed_batch].iter().sum::<u32>() + batches[failed_batch] - failures_in_batch;
    count - successes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_double_and_cap_at_remaining() {
        // 10: 1 (9 left), 2 (7), 4 (3), min(8, 3) = 3.
        assert_eq!(slow_start_batches(10, 1), [1, 2, 4, 3]);
        // 7 = 1 + 2 + 4 exactly.
        assert_eq!(slow_start_batches(7, 1), [1, 2, 4]);
        assert_eq!(slow_start_batches(1, 1), [1]);
        assert!(slow_start_batches(0, 1).is_empty());
        // 500: 1 2 4 8 16 32 64 128 (255), then min(256, 245) = 245.
        assert_eq!(slow_start_batches(500, 1), [1, 2, 4, 8, 16, 32, 64, 128, 245]);
    }

    #[test]
    fn burst_caps_creates_and_deletes() {
        assert_eq!(manage_replicas(3, 3), ReplicaChange::None);
        assert_eq!(manage_replicas(0, 3), ReplicaChange::Create { count: 3, batches: vec![1, 2] });
        // 1000 missing: only 500 this sync.
        match manage_replicas(0, 1000) {
            ReplicaChange::Create { count, batches } => {
                assert_eq!(count, 500);
                assert_eq!(batches.iter().sum::<u32>(), 500);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(manage_replicas(5, 2), ReplicaChange::Delete { count: 3 });
        assert_eq!(manage_replicas(900, 0), ReplicaChange::Delete { count: 500 });
    }

    #[test]
    fn skipped_creations_are_not_expected() {
        // 10 in [1, 2, 4, 3]; the third batch (4) has 1 failure: successes 1 + 2 + 3 = 6 → 4
        // (the failed call and the 3 never attempted).
        assert_eq!(unobserved_creations(&[1, 2, 4, 3], 2, 1), 4);
        // The first call fails: nothing created, all 10 unobserved.
        assert_eq!(unobserved_creations(&[1, 2, 4, 3], 0, 1), 10);
    }
}
