//! The direction of dependencies: the world (`sim`) routes the components'
//! messages, so no component may name it. A component that needs the
//! world's event type or its `Ctx` would tie every new kind to the world.

use std::path::{Path, PathBuf};

/// The modules below the world: the components and what they are built on.
const BELOW_THE_WORLD: &[&str] = &[
    "api",
    "app",
    "client",
    "cluster",
    "control",
    "kubelet",
    "proxy",
    "spec",
    "manifest",
    "trace",
    "engine.rs",
    "ids.rs",
    "informer.rs",
    "time.rs",
    "rng",
    "dist.rs",
];

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            rust_files(&p, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

#[test]
fn no_component_imports_the_world() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for m in BELOW_THE_WORLD {
        let path = src.join(m);
        assert!(path.exists(), "{} is gone: update BELOW_THE_WORLD", path.display());
        rust_files(&path, &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    let mut offenders = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.contains("crate::sim") {
                offenders.push(format!("{}:{}: {}", f.strip_prefix(&src).unwrap().display(), i + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "components import the world:\n{}", offenders.join("\n"));
}
