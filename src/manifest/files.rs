//! kubectl's `-f` arguments (cli-runtime's `FilenameParam`): `-` is the
//! standard input, a directory is its `.json`, `.yaml` and `.yml` files in
//! name order (`ExpandPathsToFileVisitors`: a `filepath.Walk` that enters
//! subdirectories only with `-R`), and a file named explicitly is read
//! whatever its extension.

use crate::error::{Error, Problem, SourceFile};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The name kubectl gives the standard input (`constSTDINstr`).
pub const STDIN: &str = "STDIN";

/// `FileExtensions`.
const EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

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
        walk(path, recursive, &mut found)?;
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
/// kept when its extension is one of kubectl's.
fn walk(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let io = |source| Error::Io { path: dir.display().to_string(), source };
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(io)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>().map_err(io)?;
    // Go sorts the names as bytes.
    entries
        .sort_by(|a, b| a.file_name().map(|n| n.as_encoded_bytes()).cmp(&b.file_name().map(|n| n.as_encoded_bytes())));
    for entry in entries {
        if entry.is_dir() {
            if recursive {
                walk(&entry, recursive, out)?;
            }
        } else if entry.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e)) {
            out.push(entry);
        }
    }
    Ok(())
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
}
