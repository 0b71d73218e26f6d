//! kubectl's `-f` arguments (cli-runtime's `FilenameParam`): `-` is the
//! standard input, a directory is its `.json`, `.yaml` and `.yml` files in
//! name order (`ExpandPathsToFileVisitors`: a `filepath.Walk` that enters
//! subdirectories only with `-R`), and a file named explicitly is read
//! whatever its extension.

use crate::error::{Error, Problem, SourceFile};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The name kubectl gives the standard input (`constSTDINstr`).
pub const STDIN: &str = "STDIN";

/// `FileExtensions`.
const EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

/// The most entries one `-f` directory's walk visits: a repository's
/// manifests are thousands at most, while `-f / -R` would walk the whole
/// filesystem (podsim's bound, not kubectl's).
pub const MAX_WALKED: usize = 100_000;

/// Every file the arguments name, in order; `stdin` is read for `-`.
pub fn read_filenames(paths: &[PathBuf], recursive: bool, stdin: &mut dyn Read) -> Result<Vec<Arc<SourceFile>>, Error> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut stdin_used = false;
    for path in paths {
        if path.as_os_str() == "-" {
            if std::mem::replace(&mut stdin_used, true) {
                problems.push(Problem::error("standard input cannot be used for multiple arguments").field("-f"));
                continue;
            }
            files.push(crate::scenario::read_source(&mut *stdin, STDIN.into())?);
            continue;
        }
        let Ok(meta) = std::fs::metadata(path) else {
            // kubectl's words; the flag named, as the path may not read as given (escaped).
            let message = format!("the path {:?} does not exist", path.display().to_string());
            problems.push(Problem::error(message).field("--filename"));
            continue;
        };
        if !meta.is_dir() {
            files.push(crate::scenario::read_file(path)?);
            continue;
        }
        let mut found = Vec::new();
        let mut left = MAX_WALKED;
        let walked = walk(path, recursive, &mut left, &mut found).map_err(|(at, e)| {
            let given = path.display().to_string();
            let message = format!("cannot read {:?} in the directory {given:?}: {e}", at.display().to_string());
            Error::input(Problem::error(message).field("--filename"))
        })?;
        if !walked {
            problems.push(
                Problem::error(format!(
                    "the directory {:?} holds more than {} entries{}: podsim walks at most that many; \
                     name the directory of the manifests instead",
                    path.display().to_string(),
                    crate::budget::thousands(MAX_WALKED as u64),
                    if recursive { " with its subdirectories (-R)" } else { "" }
                ))
                .field("--filename"),
            );
            continue;
        }
        if found.is_empty() {
            problems.push(Problem::error(format!(
                "error reading [{}]: recognized file extensions are [.json .yaml .yml]",
                path.display()
            )));
        }
        for f in found {
            files.push(crate::scenario::read_file(&f)?);
        }
    }
    if problems.is_empty() { Ok(files) } else { Err(Error::Input(problems)) }
}

/// `filepath.Walk` of a directory: its entries in name order, a
/// subdirectory entered where it falls (only when `recursive`), a file
/// kept when its extension is one of kubectl's. Like Go's Walk it does not
/// follow a symbolic link to a directory (`/proc/self/root` would loop).
/// False when the walk met more entries than `left` allows.
/// An error names the directory it could not read.
fn walk(dir: &Path, recursive: bool, left: &mut usize, out: &mut Vec<PathBuf>) -> Result<bool, (PathBuf, io::Error)> {
    let io = |e| (dir.to_path_buf(), e);
    let mut entries: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let Some(fewer) = left.checked_sub(1) else { return Ok(false) };
        *left = fewer;
        entries.push(entry.map_err(io)?.path());
    }
    // Go sorts the names as bytes.
    entries
        .sort_by(|a, b| a.file_name().map(|n| n.as_encoded_bytes()).cmp(&b.file_name().map(|n| n.as_encoded_bytes())));
    for entry in entries {
        // Walk's lstat: a link is an entry of its own, never a directory.
        if std::fs::symlink_metadata(&entry).is_ok_and(|m| m.is_dir()) {
            if recursive && !walk(&entry, recursive, left, out)? {
                return Ok(false);
            }
        } else if entry.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e)) {
            out.push(entry);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[Arc<SourceFile>], root: &Path) -> Vec<String> {
        let strip = |n: &str| n.strip_prefix(&format!("{}/", root.display())).unwrap_or(n).to_string();
        files.iter().map(|f| strip(&f.name)).collect()
    }

    /// A directory is its manifests in name order (not `README.md`); a
    /// subdirectory only with `-R`, where it falls in that order; `-` is
    /// the standard input, once.
    #[test]
    fn directories_stdin_and_files_as_kubectl_reads_them() {
        let root = std::env::temp_dir().join(format!("podsim-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("b-sub")).unwrap();
        for f in ["c.yml", "a.yaml", "README.md", "d.json", "b-sub/x.yaml", "notes.txt"] {
            std::fs::write(root.join(f), "kind: X\n").unwrap();
        }
        let none: &mut dyn Read = &mut std::io::empty();
        let flat = read_filenames(std::slice::from_ref(&root), false, none).unwrap();
        assert_eq!(names(&flat, &root), ["a.yaml", "c.yml", "d.json"]);
        let deep = read_filenames(std::slice::from_ref(&root), true, none).unwrap();
        assert_eq!(names(&deep, &root), ["a.yaml", "b-sub/x.yaml", "c.yml", "d.json"]);
        // A file named explicitly is read whatever its extension.
        let txt = read_filenames(&[root.join("notes.txt")], false, none).unwrap();
        assert_eq!(txt.len(), 1);

        let mut input = "kind: Pod\n".as_bytes();
        let both = read_filenames(&["-".into(), root.join("a.yaml")], false, &mut input).unwrap();
        assert_eq!((both[0].name.as_str(), both[0].text.as_str()), (STDIN, "kind: Pod\n"));
        let Err(Error::Input(p)) = read_filenames(&["-".into(), "-".into()], false, &mut "".as_bytes()) else {
            panic!("two -f -")
        };
        assert_eq!(p[0].message, "standard input cannot be used for multiple arguments");

        let Err(Error::Input(p)) = read_filenames(&[root.join("nope.yaml"), root.join("b-sub/x.yaml")], false, none)
        else {
            panic!("a missing path")
        };
        assert_eq!(p[0].message, format!("the path {:?} does not exist", root.join("nope.yaml").display().to_string()));
        std::fs::remove_file(root.join("b-sub/x.yaml")).unwrap();
        let Err(Error::Input(p)) = read_filenames(&[root.join("b-sub")], false, none) else { panic!("empty dir") };
        assert!(p[0].message.ends_with("recognized file extensions are [.json .yaml .yml]"), "{}", p[0].message);
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// A link to a directory is not entered (Go's Walk lstats), so a link
    /// back up does not loop; a link to a manifest is read. A walk past its
    /// bound of entries stops and says so.
    #[test]
    fn a_walk_follows_no_directory_link_and_is_bounded() {
        let root = std::env::temp_dir().join(format!("podsim-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.yaml"), "kind: X\n").unwrap();
        std::os::unix::fs::symlink(&root, root.join("sub/up")).unwrap();
        std::os::unix::fs::symlink(root.join("sub/a.yaml"), root.join("b.yaml")).unwrap();
        let mut found = Vec::new();
        assert!(walk(&root, true, &mut 10, &mut found).unwrap());
        let strip = |p: &PathBuf| p.strip_prefix(&root).unwrap().display().to_string();
        assert_eq!(found.iter().map(strip).collect::<Vec<_>>(), ["b.yaml", "sub/a.yaml"]);
        // Four entries: sub, b.yaml, then sub/a.yaml and sub/up.
        assert!(walk(&root, true, &mut 4, &mut Vec::new()).unwrap());
        assert!(!walk(&root, true, &mut 3, &mut Vec::new()).unwrap());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
