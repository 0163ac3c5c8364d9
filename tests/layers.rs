//! The layers of `src/` and the direction of their imports: the guard that replaces review.
//!
//! Every top folder of `src/` is a layer. A layer may use the layers below it, never one
//! above: `core` is pure data, `lang` parses, `engines` move bytes, `interp` gives them
//! Python's and PyTorch's meaning, `lessons` are data checked by that evaluator, `present`
//! computes what the views draw (no DOM, no wgpu, never the evaluator), `painters` draw it
//! on the GPU and the `shells` (web, command line, benches) tie it all together. Nothing
//! imports a shell. Each rule of `ARCHITECTURE.md`'s "Invariants" that is about layers is one
//! row or one check here.

use std::fs;
use std::path::{Path, PathBuf};

/// Each layer and the layers it may import (itself included).
const LAYERS: &[(&str, &[&str])] = &[
    ("core", &["core"]),
    ("lang", &["core", "lang"]),
    ("engines", &["core", "engines"]),
    ("interp", &["core", "lang", "engines", "interp"]),
    ("lessons", &["core", "lang", "engines", "interp", "lessons"]),
    ("present", &["core", "lessons", "present"]),
    ("painters", &["core", "engines", "present", "painters"]),
    (
        "shells",
        &[
            "core", "lang", "engines", "interp", "lessons", "present", "painters", "shells",
        ],
    ),
];

/// External crates a layer may name. Only engines, painters and shells touch the GPU; only
/// shells touch the DOM and the JavaScript world.
const EXTERNAL: &[(&str, &[&str])] = &[
    ("wgpu", &["engines", "painters", "shells"]),
    ("pollster", &["engines", "shells"]),
    ("web_sys", &["shells"]),
    ("js_sys", &["shells"]),
    ("leptos", &["shells"]),
    ("wasm_bindgen", &["shells"]),
    ("wasm_bindgen_futures", &["engines", "shells"]),
    ("wasm_split_helpers", &["shells"]),
];

/// One import that breaks a rule.
#[derive(Debug, PartialEq)]
struct Violation {
    file: String,
    line: usize,
    text: String,
    rule: String,
}

fn layer_of(relative: &Path) -> Option<&'static str> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    LAYERS.iter().map(|(l, _)| *l).find(|l| *l == first)
}

/// The code of a line without its `//` comment (doc comments name other layers freely).
fn code_of(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Every `crate::<layer>` path, `super::` that climbs out of the layer, and external crate
/// in `text` (the file at `relative`, under `src/`) that its layer may not use.
fn violations(relative: &Path, text: &str) -> Vec<Violation> {
    let Some(layer) = layer_of(relative) else {
        return Vec::new();
    };
    let allowed = LAYERS
        .iter()
        .find(|(l, _)| *l == layer)
        .map(|(_, a)| *a)
        .unwrap_or(&[]);
    // How deep the file's module is below its layer's root (for `super::`).
    let depth = {
        let parts: Vec<_> = relative.components().collect();
        let is_mod = relative.file_name().is_some_and(|n| n == "mod.rs");
        parts.len() - if is_mod { 2 } else { 1 }
    };
    let mut found = Vec::new();
    // The inline modules (`mod tests {`) the line is in, by their indentation.
    let mut inline: Vec<String> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = code_of(line);
        if inline
            .last()
            .is_some_and(|indent| line == format!("{indent}}}"))
        {
            inline.pop();
        }
        let mut report = |rule: String| {
            found.push(Violation {
                file: format!("src/{}", relative.display()),
                line: index + 1,
                text: line.trim().to_string(),
                rule,
            })
        };
        for (at, _) in code.match_indices("crate::") {
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
                continue;
            }
            let rest = &code[at + "crate::".len()..];
            let target: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if LAYERS.iter().any(|(l, _)| *l == target) && !allowed.contains(&target.as_str()) {
                report(format!("{layer} may not import {target}"));
            }
        }
        for (at, _) in code.match_indices("super::") {
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut climbs = 0;
            let mut rest = &code[at..];
            while let Some(after) = rest.strip_prefix("super::") {
                climbs += 1;
                rest = after;
            }
            if climbs > depth + inline.len() {
                report(format!("`super::` climbs out of {layer}"));
            }
        }
        let trimmed = code.trim_start();
        let declaration = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed);
        if declaration.starts_with("mod ") && declaration.trim_end().ends_with('{') {
            inline.push(code[..code.len() - trimmed.len()].to_string());
        }
        for (name, layers) in EXTERNAL {
            let word = format!("{name}::");
            for (at, _) in code.match_indices(&word) {
                let before = code[..at].chars().last();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                if !layers.contains(&layer) {
                    report(format!("{layer} may not use the crate {name}"));
                }
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn every_import_points_down() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 100, "src/ holds the crate");
    let mut all = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).expect("under src/");
        let text = fs::read_to_string(file).expect("a source file is UTF-8");
        all.extend(violations(relative, &text));
    }
    let report: Vec<String> = all
        .iter()
        .map(|v| format!("{}:{}: {} ({})", v.file, v.line, v.text, v.rule))
        .collect();
    assert!(
        report.is_empty(),
        "imports against the layers:\n{}",
        report.join("\n")
    );
}

#[test]
fn every_file_of_src_is_in_a_layer() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let loose: Vec<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(&root).ok())
        .filter(|r| layer_of(r).is_none())
        .map(|r| r.display().to_string())
        .filter(|r| r != "lib.rs" && r != "main.rs")
        .collect();
    assert!(loose.is_empty(), "files outside the layers: {loose:?}");
}

#[test]
fn the_layer_table_has_no_cycle() {
    // Each layer may import only itself and layers listed before it.
    for (index, (layer, allowed)) in LAYERS.iter().enumerate() {
        for target in *allowed {
            let position = LAYERS.iter().position(|(l, _)| l == target);
            assert!(
                position.is_some_and(|p| p <= index),
                "{layer} imports {target}, which is not below it"
            );
        }
    }
}

#[test]
fn a_forbidden_import_is_reported_with_its_file_and_line() {
    let text = "//! A painter.\n\nuse crate::core::tensor::DType;\nuse crate::interp::Evaluator;\n";
    let found = violations(Path::new("present/cells/mod.rs"), text);
    assert_eq!(
        found,
        vec![Violation {
            file: "src/present/cells/mod.rs".into(),
            line: 4,
            text: "use crate::interp::Evaluator;".into(),
            rule: "present may not import interp".into(),
        }]
    );
    let dom = violations(
        Path::new("engines/gpu/mod.rs"),
        "fn f(c: web_sys::HtmlCanvasElement) {}\n",
    );
    assert_eq!(dom.len(), 1);
    assert_eq!(dom[0].rule, "engines may not use the crate web_sys");
    let shell = violations(
        Path::new("interp/mod.rs"),
        "use crate::shells::cli;\n// crate::shells in a comment is fine\n",
    );
    assert_eq!(shell.len(), 1);
    assert_eq!(shell[0].line, 1);
    let climb = violations(
        Path::new("core/print/mod.rs"),
        "use super::super::interp;\n",
    );
    assert_eq!(climb.len(), 1);
    assert!(violations(Path::new("core/print/tensor_str.rs"), "use super::pyfmt;\n").is_empty());
}

/// Production lines of a file: everything before its first `#[cfg(test)]` module (test
/// modules and `*_tests.rs` files may be longer; they are read one case at a time).
fn production_lines(text: &str) -> usize {
    text.lines()
        .take_while(|l| !l.starts_with("#[cfg(test)]"))
        .count()
}

#[test]
fn every_file_fits_in_a_readers_head() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|f| !f.to_string_lossy().ends_with("tests.rs"))
        .filter_map(|f| {
            let text = fs::read_to_string(f).ok()?;
            let n = text.lines().count();
            (n > 800 && production_lines(&text) > 0).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 800 lines: {long:?}");
}

#[test]
fn one_convention_for_module_files() {
    // A module with children is `name/mod.rs`, never `name.rs` beside `name/`.
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let both: Vec<String> = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "mod.rs"))
        .filter(|f| f.with_extension("").is_dir())
        .map(|f| f.display().to_string())
        .collect();
    assert!(both.is_empty(), "a module file beside its folder: {both:?}");
}

#[test]
fn production_files_import_by_name() {
    // No `use super::*` (or its absolute spelling) outside test modules: a reader sees where
    // each name comes from.
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut globs = Vec::new();
    for file in files {
        let name = file.to_string_lossy().to_string();
        if name.ends_with("tests.rs") || name.ends_with("test_support.rs") {
            continue;
        }
        let text = fs::read_to_string(&file).expect("a source file is UTF-8");
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("#[cfg(test)]") {
                break;
            }
            let parent_glob = line.starts_with("use super::")
                || (line.starts_with("use crate::") && line.trim_end().ends_with("::*;"));
            if parent_glob && line.trim_end().ends_with("*;") {
                globs.push(format!("{name}:{}: {line}", i + 1));
            }
        }
    }
    assert!(globs.is_empty(), "glob imports: {globs:#?}");
}
