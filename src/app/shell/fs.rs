//! The container's small file system: directories and files with contents.
//!
//! It starts as a busybox image's top level looks. Paths are taken relative to
//! `/` (a container's default working directory when the image sets none).
//! To keep evaluation bounded a file holds at most [`FILE_CAP`] bytes (appends
//! past it are dropped: `cat` of a log that grew past it prints its first
//! 4 KiB) and the tree at most [`MAX_ENTRIES`] entries.

use std::collections::BTreeMap;
use std::sync::Arc;

/// The most bytes a file keeps; an endless `echo x >> /tmp/log` loop thus
/// reaches a fixed point, which the loop detector recognises.
pub(crate) const FILE_CAP: usize = 4096;
/// The most files and directories the tree holds.
pub(crate) const MAX_ENTRIES: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    Dir,
    File(Arc<str>),
    /// `/dev/null`: reads nothing, swallows writes.
    Null,
}

/// Why a file could not be created or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FsError {
    /// A directory on the way is missing (or is a file).
    NoDir,
    IsDir,
    /// A file is in the way of a directory.
    Exists,
    /// Past [`MAX_ENTRIES`].
    Full,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Fs {
    nodes: BTreeMap<String, Node>,
}

/// The absolute, normalised form of `path` (`.`, `..` and repeated slashes
/// resolved) or `None` for the empty path, which names nothing.
pub(crate) fn normalize(path: &str) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

fn parent(key: &str) -> Option<&str> {
    if key == "/" {
        return None;
    }
    let i = key.rfind('/').unwrap_or(0);
    Some(if i == 0 { "/" } else { &key[..i] })
}

impl Fs {
    /// The top level of the `busybox` image, with `/dev/null`.
    pub(crate) fn busybox() -> Fs {
        let mut nodes = BTreeMap::new();
        for d in ["/", "/tmp", "/etc", "/bin", "/usr", "/var", "/dev", "/proc", "/root", "/home"] {
            nodes.insert(d.to_string(), Node::Dir);
        }
        nodes.insert("/dev/null".to_string(), Node::Null);
        Fs { nodes }
    }

    /// This file system with the container's volumes in place: directories,
    /// and files with their text (parents created).
    pub(crate) fn with(mut self, mounted: &[(String, Option<String>)]) -> Fs {
        for (path, text) in mounted {
            let Some(key) = normalize(path) else { continue };
            match text {
                None => {
                    let _ = self.mkdir(&key, true);
                }
                Some(text) => {
                    if let Some(dir) = parent(&key) {
                        let _ = self.mkdir(dir, true);
                    }
                    if self.open(&key, true).is_ok() {
                        self.append(&key, text);
                    }
                }
            }
        }
        self
    }

    pub(crate) fn get(&self, path: &str) -> Option<&Node> {
        self.nodes.get(&normalize(path)?)
    }

    pub(crate) fn is_dir(&self, path: &str) -> bool {
        matches!(self.get(path), Some(Node::Dir))
    }

    fn parent_ok(&self, key: &str) -> bool {
        parent(key).is_some_and(|p| matches!(self.nodes.get(p), Some(Node::Dir)))
    }

    fn insert(&mut self, key: String, node: Node) -> Result<(), FsError> {
        if !self.nodes.contains_key(&key) && self.nodes.len() >= MAX_ENTRIES {
            return Err(FsError::Full);
        }
        self.nodes.insert(key, node);
        Ok(())
    }

    /// The names in directory `key` (normalised), sorted as busybox `ls` sorts them.
    pub(crate) fn children(&self, key: &str) -> Vec<String> {
        let prefix = if key == "/" { "/".to_string() } else { format!("{key}/") };
        self.nodes
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(k, _)| k.len() > prefix.len() && !k[prefix.len()..].contains('/'))
            .map(|(k, _)| k[prefix.len()..].to_string())
            .collect()
    }

    /// Opens `path` for writing as a `>` (truncating) or `>>` redirection
    /// does, creating the file: the normalised key, or `None` for `/dev/null`.
    pub(crate) fn open(&mut self, path: &str, truncate: bool) -> Result<Option<String>, FsError> {
        let key = normalize(path).ok_or(FsError::NoDir)?;
        match self.nodes.get(&key) {
            Some(Node::Dir) => Err(FsError::IsDir),
            Some(Node::Null) => Ok(None),
            Some(Node::File(_)) if !truncate => Ok(Some(key)),
            _ if !self.parent_ok(&key) => Err(FsError::NoDir),
            _ => {
                self.insert(key.clone(), Node::File("".into()))?;
                Ok(Some(key))
            }
        }
    }

    /// Appends to the file at `key` (an open file that was removed since is
    /// an unlinked inode: the write goes nowhere visible). True if it changed.
    pub(crate) fn append(&mut self, key: &str, text: &str) -> bool {
        let Some(Node::File(old)) = self.nodes.get(key) else { return false };
        if old.len() >= FILE_CAP || text.is_empty() {
            return false;
        }
        let mut s = String::with_capacity(FILE_CAP.min(old.len() + text.len()));
        s.push_str(old);
        for c in text.chars() {
            if s.len() + c.len_utf8() > FILE_CAP {
                break;
            }
            s.push(c);
        }
        self.nodes.insert(key.to_string(), Node::File(s.into()));
        true
    }

    /// `touch`: creates an empty file if nothing is there. True if it changed.
    pub(crate) fn touch(&mut self, path: &str) -> Result<bool, FsError> {
        let key = normalize(path).ok_or(FsError::NoDir)?;
        if self.nodes.contains_key(&key) {
            return Ok(false);
        }
        if !self.parent_ok(&key) {
            return Err(FsError::NoDir);
        }
        self.insert(key, Node::File("".into()))?;
        Ok(true)
    }

    /// `mkdir` (with `-p`: parents too, and an existing directory is fine).
    pub(crate) fn mkdir(&mut self, path: &str, parents: bool) -> Result<bool, FsError> {
        let key = normalize(path).ok_or(FsError::NoDir)?;
        match self.nodes.get(&key) {
            Some(Node::Dir) if parents => return Ok(false),
            Some(_) => return Err(FsError::Exists),
            None => {}
        }
        match parent(&key) {
            Some(p) if !self.nodes.contains_key(p) && parents => {
                self.mkdir(p, true)?;
            }
            _ => {}
        }
        if !self.parent_ok(&key) {
            return Err(if parent(&key).is_some_and(|p| self.nodes.contains_key(p)) {
                FsError::Exists
            } else {
                FsError::NoDir
            });
        }
        self.insert(key, Node::Dir)?;
        Ok(true)
    }

    /// Removes `key` (normalised) and, for a directory, all below it.
    pub(crate) fn remove(&mut self, key: &str) {
        self.nodes.remove(key);
        let prefix = format!("{key}/");
        let below: Vec<String> = self
            .nodes
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(k, _)| k.clone())
            .collect();
        for k in below {
            self.nodes.remove(&k);
        }
    }

    /// The paths that exist, for tests and warnings.
    pub(crate) fn paths(&self) -> impl Iterator<Item = (&str, &Node)> {
        self.nodes.iter().map(|(k, v)| (k.as_str(), v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise_against_the_root() {
        assert_eq!(normalize("tmp//x/./y/../z").as_deref(), Some("/tmp/x/z"));
        assert_eq!(normalize("/..").as_deref(), Some("/"));
        assert_eq!(normalize(""), None);
    }

    #[test]
    fn files_need_their_directory_and_are_capped() {
        let mut fs = Fs::busybox();
        assert_eq!(fs.touch("/nope/x"), Err(FsError::NoDir));
        assert_eq!(fs.touch("/tmp/x"), Ok(true));
        assert_eq!(fs.touch("/tmp/x"), Ok(false));
        assert_eq!(fs.open("/tmp", true), Err(FsError::IsDir));
        assert_eq!(fs.open("/dev/null", true), Ok(None));
        let big = "y".repeat(FILE_CAP + 10);
        assert!(fs.append("/tmp/x", &big));
        assert!(!fs.append("/tmp/x", "more"));
        assert!(matches!(fs.get("/tmp/x"), Some(Node::File(s)) if s.len() == FILE_CAP));
        assert_eq!(fs.mkdir("/a/b", false), Err(FsError::NoDir));
        assert_eq!(fs.mkdir("/a/b", true), Ok(true));
        assert_eq!(fs.mkdir("/a", false), Err(FsError::Exists));
        assert_eq!(fs.children("/a"), vec!["b".to_string()]);
        fs.remove("/a");
        assert!(fs.get("/a/b").is_none());
        assert_eq!(fs.children("/tmp"), vec!["x".to_string()]);
    }
}
