//! The real inputs the fuzz cases start from: the files of `models/` and
//! `tests/traces/`, parsed once into value trees, and the scenarios that tie
//! manifests, behaviours and cluster profiles together.

use super::harness::ROOT;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One real input file.
pub struct Doc {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// Its documents as value trees, when it parses as YAML (JSON included).
    pub docs: Option<Vec<Value>>,
}

impl Doc {
    pub fn load(path: PathBuf) -> Doc {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Only YAML and JSON files are trees; text (`kubectl get` tables,
        // describe output) is mutated as text.
        let tree = path.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json");
        let docs = std::str::from_utf8(&bytes)
            .ok()
            .filter(|_| tree)
            .and_then(|t| serde_saphyr::from_str_multiple::<Value, Vec<Value>>(t).ok())
            .filter(|d| !d.is_empty());
        Doc { path, bytes, docs }
    }

    pub fn name(&self) -> String {
        self.path.file_name().expect("a file name").to_string_lossy().into_owned()
    }
}

/// The `.yaml` files of `models/DIR` and `models/DIR/recorded`, in name order.
fn model_files(dir: &str) -> Vec<PathBuf> {
    let base = Path::new(ROOT).join("models").join(dir);
    let mut out = Vec::new();
    for d in [base.clone(), base.join("recorded")] {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        out.extend(
            entries.map(|e| e.expect("a dir entry").path()).filter(|p| p.extension().is_some_and(|e| e == "yaml")),
        );
    }
    out.sort();
    out
}

fn docs(dir: &'static str, cell: &'static OnceLock<Vec<Doc>>) -> &'static [Doc] {
    cell.get_or_init(|| model_files(dir).into_iter().map(Doc::load).collect())
}

pub fn manifests() -> &'static [Doc] {
    static C: OnceLock<Vec<Doc>> = OnceLock::new();
    docs("manifests", &C)
}

pub fn apps() -> &'static [Doc] {
    static C: OnceLock<Vec<Doc>> = OnceLock::new();
    docs("apps", &C)
}

pub fn clusters() -> &'static [Doc] {
    static C: OnceLock<Vec<Doc>> = OnceLock::new();
    docs("clusters", &C)
}

/// A scenario, its relative paths made absolute.
pub struct Scenario {
    pub doc: Doc,
    /// The scenario with its relative paths made absolute, in its own words.
    pub abs: Doc,
    pub manifests: Vec<PathBuf>,
    pub app: Option<PathBuf>,
    pub cluster: Option<PathBuf>,
    /// Every model file it reads (manifests, app, cluster, applied manifests).
    pub reads: Vec<PathBuf>,
}

pub fn scenarios() -> &'static [Scenario] {
    static C: OnceLock<Vec<Scenario>> = OnceLock::new();
    C.get_or_init(|| {
        model_files("scenarios")
            .into_iter()
            .map(|path| {
                let doc = Doc::load(path);
                let dir = doc.path.parent().expect("a dir").to_path_buf();
                let mut tree = doc.docs.as_ref().expect("a scenario parses")[0].clone();
                let mut reads = Vec::new();
                absolutize(&mut tree, &dir, &mut reads);
                let path = |v: &Value| v.as_str().map(PathBuf::from);
                let manifests = match &tree["manifests"] {
                    Value::Array(a) => a.iter().filter_map(path).collect(),
                    other => path(other).into_iter().collect(),
                };
                let abs = Doc {
                    path: doc.path.clone(),
                    bytes: absolute_text(&doc.bytes, &dir),
                    docs: Some(vec![tree.clone()]),
                };
                Scenario { app: path(&tree["app"]), cluster: path(&tree["cluster"]), manifests, doc, abs, reads }
            })
            .collect()
    })
}

/// Relative paths that name a file beside `dir` become absolute (so the
/// scenario still resolves when written elsewhere).
fn absolutize(v: &mut Value, dir: &Path, reads: &mut Vec<PathBuf>) {
    match v {
        Value::String(s) if !s.starts_with('/') && s.contains('/') => {
            let p = dir.join(&*s);
            if p.is_file() {
                let p = p.canonicalize().expect("canonical");
                *s = p.to_string_lossy().into_owned();
                reads.push(p);
            }
        }
        Value::Object(m) => m.values_mut().for_each(|x| absolutize(x, dir, reads)),
        Value::Array(a) => a.iter_mut().for_each(|x| absolutize(x, dir, reads)),
        _ => {}
    }
}

/// The text with each relative path (a run of `../` not inside another
/// path) prefixed with `dir`, so text edits start from a scenario that resolves.
fn absolute_text(bytes: &[u8], dir: &Path) -> Vec<u8> {
    let prefix = format!("{}/", dir.display());
    let mut out = Vec::with_capacity(bytes.len() + 256);
    for (i, &c) in bytes.iter().enumerate() {
        let starts = bytes[i..].starts_with(b"../") && (i == 0 || !b"/.".contains(&bytes[i - 1]));
        if starts {
            out.extend_from_slice(prefix.as_bytes());
        }
        out.push(c);
    }
    out
}

/// The first scenario that uses `file` (a manifest, app or cluster).
pub fn scenario_using(file: &Path) -> Option<&'static Scenario> {
    let file = file.canonicalize().ok()?;
    scenarios().iter().find(|s| s.reads.contains(&file))
}

/// The recordings of `tests/traces/*/` (every file, `source.md` too).
pub fn recordings() -> &'static [Doc] {
    static C: OnceLock<Vec<Doc>> = OnceLock::new();
    C.get_or_init(|| {
        let mut files = Vec::new();
        for dir in std::fs::read_dir(Path::new(ROOT).join("tests/traces")).expect("tests/traces") {
            let dir = dir.expect("an entry").path();
            if dir.is_dir() {
                files.extend(std::fs::read_dir(&dir).expect("a trace dir").map(|e| e.expect("an entry").path()));
            }
        }
        files.sort();
        files.into_iter().map(Doc::load).collect()
    })
}

/// Every string of every document of `docs`, plus every model path: the
/// names a dangling or wrong reference is drawn from.
pub fn names<'a>(docs: impl IntoIterator<Item = &'a Doc>) -> Vec<String> {
    let mut out = Vec::new();
    for d in docs {
        for v in d.docs.iter().flatten() {
            super::tree::strings(v, &mut out);
        }
    }
    for s in scenarios() {
        out.extend(s.reads.iter().map(|p| p.to_string_lossy().into_owned()));
    }
    out.sort();
    out.dedup();
    out
}

pub fn path(rel: &str) -> PathBuf {
    Path::new(ROOT).join(rel)
}
