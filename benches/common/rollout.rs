//! The rollout-1000 benchmark rewritten to another size, for the benches
//! that measure how its cost grows (`scale`, `targets`).

use std::path::{Path, PathBuf};

/// The scenario with `replicas` replicas on the first `nodes` nodes, run
/// `until` (the scenario's own when `None`), written under `dir`.
pub fn scenario(models: &Path, dir: &Path, replicas: u32, nodes: usize, until: Option<&str>) -> PathBuf {
    let read = |p: &str| std::fs::read_to_string(models.join(p)).expect("the model reads");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("the temporary file writes");
        path
    };
    let count = |text: String| text.replace("replicas: 1000", &format!("replicas: {replicas}"));
    let v1 = write("v1.yaml", count(read("manifests/web-rollout-1000.yaml")));
    let v2 = write("v2.yaml", count(read("manifests/web-rollout-1000-v2.yaml")));
    let mut cluster = String::new();
    let mut kept = 0;
    for line in read("clusters/nodes-100.yaml").lines() {
        let node = line.starts_with("- {name: node-");
        if node && kept == nodes {
            continue;
        }
        kept += usize::from(node);
        cluster.push_str(line);
        cluster.push('\n');
    }
    let cluster = write("cluster.yaml", cluster);
    let mut s = read("benchmarks/rollout-1000.yaml")
        .replace("../manifests/web-rollout-1000.yaml", &v1.display().to_string())
        .replace("../manifests/web-rollout-1000-v2.yaml", &v2.display().to_string())
        .replace("../apps/", &format!("{}/apps/", models.display()))
        .replace("../clusters/nodes-100.yaml", &cluster.display().to_string());
    if let Some(until) = until {
        s = s.replace("until: 30m", &format!("until: {until}"));
    }
    write("scenario.yaml", s)
}
