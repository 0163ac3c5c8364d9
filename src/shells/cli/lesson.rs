//! `stridescope lesson check|link|index`: the lesson tools for authors (LESSONS.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::lessons::check::{check_source, check_twins, Diagnostic};
use crate::lessons::index::{index_json, IndexEntry};
use crate::lessons::model::Lesson;
use crate::lessons::parse::parse_lesson;

const USAGE: &str = "usage: stridescope lesson check PATH...\n\
       stridescope lesson link [--url BASE] FILE\n\
       stridescope lesson index DIR\n\
\n\
check: runs every lesson (PATH: a .md file, or a folder searched for .md files) and checks\n\
that its code and solutions run, its expressions evaluate, its choices hold the answer, its\n\
expect: values are the engine's, and that each translation has its original's code and\n\
questions. Prints FILE:LINE: message per problem; exit 1 on any problem. A memory: question\n\
on a statement the engine recorded no memory figures for is a note (on stderr), not a problem.\n\
link: prints a link carrying the whole lesson (BASE defaults to index.html).\n\
index: writes DIR/index.json, the lesson list the app loads.";

/// Runs `stridescope lesson ARGS`; returns the exit code.
pub fn run(args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("check") => check(&args[1..]),
        Some("link") => link(&args[1..]),
        Some("index") => index(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            0
        }
        _ => {
            eprintln!("{USAGE}");
            2
        }
    }
}

/// The outcome of checking lesson files.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// `FILE:LINE: message` per problem, in file then line order.
    pub problems: Vec<String>,
    /// `FILE:LINE: note: message` per note (questions that cannot be graded yet), in file
    /// then line order; notes do not fail the check.
    pub notes: Vec<String>,
    /// The problems found in each file, by line, before they are sorted into `problems`.
    found: Vec<(String, usize, String)>,
    /// The notes found, as `found`.
    found_notes: Vec<(String, usize, String)>,
    /// Lessons checked, per language.
    pub lessons: BTreeMap<String, usize>,
    /// Questions checked.
    pub questions: usize,
}

/// Every `.md` file named by `paths` (folders are searched recursively), sorted.
pub fn lesson_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        collect(path, &mut files).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            let p = entry?.path();
            if p.is_dir() || p.extension().is_some_and(|e| e == "md") {
                collect(&p, files)?;
            }
        }
    } else {
        std::fs::metadata(path)?;
        files.push(path.to_path_buf());
    }
    Ok(())
}

/// Checks every lesson in `paths`, and every translation against its original (the `en`
/// lesson with the same id, else the first file with that id).
pub fn check_paths(paths: &[PathBuf]) -> CheckReport {
    let mut report = CheckReport::default();
    let files = match lesson_files(paths) {
        Ok(f) => f,
        Err(e) => {
            report.problems.push(e);
            return report;
        }
    };
    let mut parsed: Vec<(String, Lesson)> = Vec::new();
    for file in &files {
        let name = file.display().to_string();
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                report.found.push((name, 0, format!("cannot read: {e}")));
                continue;
            }
        };
        let (lesson, diagnostics) = check_source(&text);
        push(&mut report, &name, &diagnostics);
        if let Some(lesson) = lesson {
            if let Some(named) = numbered_name(file) {
                if named != lesson.id {
                    report.found.push((
                        name.clone(),
                        1,
                        format!(
                            "the file is named for the id `{named}`, but its id is `{}` (name numbered lessons NN-ID.md)",
                            lesson.id
                        ),
                    ));
                }
            }
            *report.lessons.entry(lesson.lang.clone()).or_default() += 1;
            report.questions += lesson.questions().count();
            parsed.push((name, lesson));
        }
    }
    let mut by_id: BTreeMap<&str, Vec<&(String, Lesson)>> = BTreeMap::new();
    for entry in &parsed {
        by_id.entry(entry.1.id.as_str()).or_default().push(entry);
    }
    for twins in by_id.values() {
        let Some(first) = twins.first() else {
            continue;
        };
        let original = twins
            .iter()
            .find(|(_, l)| l.lang == "en")
            .copied()
            .unwrap_or(first);
        for twin in twins {
            if std::ptr::eq(*twin, original) {
                continue;
            }
            if twin.1.lang == original.1.lang {
                report.found.push((
                    twin.0.clone(),
                    1,
                    format!(
                        "the id `{}` in {} is also the id of {} (one lesson per id and language)",
                        twin.1.id, twin.1.lang, original.0
                    ),
                ));
                continue;
            }
            let diagnostics = check_twins(&original.1, &original.0, &twin.1);
            push(&mut report, &twin.0, &diagnostics);
        }
    }
    report.problems = located(std::mem::take(&mut report.found));
    report.notes = located(std::mem::take(&mut report.found_notes));
    report
}

/// `FILE:LINE: message` per entry, sorted by file then line.
fn located(mut found: Vec<(String, usize, String)>) -> Vec<String> {
    found.sort();
    found
        .into_iter()
        .map(|(file, line, message)| {
            if line == 0 {
                format!("{file}: {message}")
            } else {
                format!("{file}:{line}: {message}")
            }
        })
        .collect()
}

/// The id in a numbered lesson's file name (`01-storage.md` gives `storage`).
fn numbered_name(file: &Path) -> Option<String> {
    let stem = file.file_stem()?.to_str()?;
    let (number, id) = stem.split_once('-')?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then(|| id.to_string())
}

/// `1 lesson`, `2 lessons`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn push(report: &mut CheckReport, name: &str, diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        let found = if d.problem.is_note() {
            &mut report.found_notes
        } else {
            &mut report.found
        };
        found.push((name.to_string(), d.line, d.problem.to_string()));
    }
}

fn check(args: &[String]) -> i32 {
    if args.is_empty() || args.iter().any(|a| a.starts_with('-')) {
        eprintln!("{USAGE}");
        return 2;
    }
    let paths: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    let report = check_paths(&paths);
    for p in &report.problems {
        println!("{p}");
    }
    for n in &report.notes {
        eprintln!("{n}");
    }
    let total: usize = report.lessons.values().sum();
    let langs: Vec<String> = report
        .lessons
        .iter()
        .map(|(lang, n)| format!("{lang}: {n}"))
        .collect();
    eprintln!(
        "checked {}{}, {}: {}",
        plural(total, "lesson"),
        if langs.is_empty() {
            String::new()
        } else {
            format!(" ({})", langs.join(", "))
        },
        plural(report.questions, "question"),
        if report.problems.is_empty() {
            "ok".to_string()
        } else {
            plural(report.problems.len(), "problem")
        }
    );
    if !report.notes.is_empty() {
        eprintln!(
            "{} not graded: the engine recorded no memory figures for their statements",
            plural(report.notes.len(), "memory question")
        );
    }
    if report.problems.is_empty() && total > 0 {
        0
    } else {
        1
    }
}

fn link(args: &[String]) -> i32 {
    let mut base = "index.html".to_string();
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--url" if i + 1 < args.len() => {
                base = args[i + 1].clone();
                i += 1;
            }
            a if !a.starts_with('-') && file.is_none() => file = Some(a.to_string()),
            _ => {
                eprintln!("{USAGE}");
                return 2;
            }
        }
        i += 1;
    }
    let Some(file) = file else {
        eprintln!("{USAGE}");
        return 2;
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("stridescope: cannot read {file}: {e}");
            return 2;
        }
    };
    if let Err(e) = parse_lesson(&text) {
        eprintln!("{file}:{}: {e}", e.line);
        return 1;
    }
    println!("{}", crate::lessons::link::link(&base, &text));
    0
}

/// The index entries of every lesson under `dir`, files relative to it.
pub fn index_entries(dir: &Path) -> Result<Vec<IndexEntry>, String> {
    let files = lesson_files(&[dir.to_path_buf()])?;
    let mut entries = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
        let lesson =
            parse_lesson(&text).map_err(|e| format!("{}:{}: {e}", file.display(), e.line))?;
        let relative = file.strip_prefix(dir).unwrap_or(&file);
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        entries.push(IndexEntry::new(&lesson, &parts.join("/")));
    }
    Ok(entries)
}

fn index(args: &[String]) -> i32 {
    let [dir] = args else {
        eprintln!("{USAGE}");
        return 2;
    };
    let dir = Path::new(dir);
    let entries = match index_entries(dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let out = dir.join("index.json");
    if let Err(e) = std::fs::write(&out, index_json(&entries)) {
        eprintln!("stridescope: cannot write {}: {e}", out.display());
        return 2;
    }
    eprintln!("wrote {} ({} lessons)", out.display(), entries.len());
    0
}
