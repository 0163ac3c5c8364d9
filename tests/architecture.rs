//! ARCHITECTURE.md tells the truth about paths: every file it names exists.
//!
//! A name in backticks that ends in a file extension is a path. It may be written in full
//! (`src/interp/runtime/memory.rs`), from the crate's `src/` (`present/export.rs`), or by
//! its tail within the section that names its folder (`ops/math.rs`, `memory.rs`): it must be
//! the tail of some file of the repository. PyTorch's own files are named without a path
//! (`_tensor_str.py`) and are exempt when the text says "PyTorch's".

use std::fs;
use std::path::{Path, PathBuf};

const EXTENSIONS: [&str; 9] = [
    ".rs", ".wgsl", ".mjs", ".md", ".py", ".toml", ".ftl", ".json", ".jsonl",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "node_modules" || name == "dist" {
            continue;
        }
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The backticked names of `text` that look like file paths, with the text before them.
fn named_paths(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = text;
    let mut before = String::new();
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        let name = &after[..close];
        before.push_str(&rest[..open]);
        let plain = !name.contains(' ')
            && !name.contains('*')
            && !name.contains('<')
            && (!name.starts_with('.') || name.contains('/'));
        if plain && EXTENSIONS.iter().any(|e| name.ends_with(e)) {
            let context: String = before
                .chars()
                .rev()
                .take(12)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            found.push((name.to_string(), context));
        }
        before.push_str(name);
        rest = &after[close + 1..];
    }
    found
}

#[test]
fn every_path_architecture_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut all = Vec::new();
    files(root, &mut all);
    let all: Vec<String> = all
        .iter()
        .filter_map(|p| p.strip_prefix(root).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    let names = named_paths(&text);
    assert!(names.len() > 50, "ARCHITECTURE.md names its files");
    let mut missing = Vec::new();
    for (name, context) in names {
        if context.contains("PyTorch's") {
            continue;
        }
        let exists = if let Some(outside) = name.strip_prefix("../") {
            // The shared folder beside the checkout (the oracle) is not part of every clone.
            root.join("..").join(outside).exists() || !root.join("../shared").exists()
        } else {
            root.join(&name).exists()
                || all
                    .iter()
                    .any(|f| f == &name || f.ends_with(&format!("/{name}")))
        };
        if !exists {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
}
