//! What the lesson player needs that is not DOM (pure, native-tested): where a lesson comes
//! from (the page's hash and query), its Markdown as safe HTML, the views a question
//! conceals, the student's code in a task's editor, progress as stored, and the core's
//! structured feedback as catalog messages. Parsing and grading are `crate::lessons`'s.

use std::collections::BTreeMap;

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};
use serde::{Deserialize, Serialize};

use crate::core::trace::Step;
use crate::lessons::{Feedback, LiteralError};
use crate::present::i18n::Msg;

/// Where the page's lesson comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `#lessons`: the list of the shipped track.
    Index,
    /// `#lesson=ID`: a shipped lesson, fetched from `lessons/<lang>/` when opened.
    Shipped(String),
    /// `?lesson=PATH_OR_URL`: an instructor's file on the same origin (the value as written
    /// in the query, still percent-encoded).
    Url(String),
    /// `#lesson-data=v1.…`: a lesson carried whole in the link (the hash, without `#`).
    Data(String),
}

/// The lesson route of a page with this `hash` and `query` (each with or without its
/// `#`/`?`), if any. The hash wins over the query.
pub fn route(hash: &str, query: &str) -> Option<Route> {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    if hash == "lessons" {
        return Some(Route::Index);
    }
    if let Some(id) = hash.strip_prefix("lesson=") {
        return Some(Route::Shipped(id.to_string()));
    }
    if crate::lessons::link::is_lesson_hash(hash) {
        return Some(Route::Data(hash.to_string()));
    }
    query
        .strip_prefix('?')
        .unwrap_or(query)
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == "lesson")
        .map(|(_, v)| Route::Url(v.to_string()))
}

/// Whether `id` can be a shipped lesson's id (`transpose-permute`): what a `#lesson=` hash
/// may name before anything is fetched.
pub fn is_lesson_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Whether a link target may be followed from a lesson: relative, `http(s):` or `mailto:`
/// (never `javascript:`, `data:` and the like).
fn safe_url(url: &str) -> bool {
    let scheme_end = url.find(':');
    let before_path = url.find(['/', '?', '#']).unwrap_or(url.len());
    match scheme_end {
        Some(i) if i < before_path => {
            let scheme = url[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

/// A lesson's Markdown as HTML. Raw HTML in the lesson is shown as text (escaped), never
/// inserted; links and images keep only safe targets; links open in a new tab.
pub fn markdown_html(markdown: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: if safe_url(&dest_url) {
                dest_url
            } else {
                CowStr::Borrowed("#")
            },
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: if safe_url(&dest_url) {
                dest_url
            } else {
                CowStr::Borrowed("")
            },
            title,
            id,
        }),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out.replace("<a href=", "<a target=\"_blank\" rel=\"noopener\" href=")
}

/// The names bound by the statements of `steps` at or after line `from_line` (the last code
/// block's): the views a question about that block conceals.
pub fn created_from(steps: &[Step], from_line: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for step in steps.iter().filter(|s| s.line >= from_line) {
        for c in &step.created {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    names
}

/// The first line of the last code block in `script` (the lesson's code so far, as
/// `Lesson::script_before` writes it), given that block's source: 1-based.
pub fn last_block_first_line(script: &str, last_block: &str) -> usize {
    let total = script.lines().count();
    let block = last_block.lines().count();
    total.saturating_sub(block) + 1
}

/// The code the student added in a task's editor, which starts with the lesson's code so far
/// (`prefix`). When they edited the lesson's part too, the lines after as many lines as it
/// has.
pub fn student_code(editor: &str, prefix: &str) -> String {
    if let Some(rest) = editor.strip_prefix(prefix) {
        return rest.to_string();
    }
    if let Some(rest) = editor.strip_prefix(prefix.trim_end_matches('\n')) {
        return rest.trim_start_matches('\n').to_string();
    }
    let skip = prefix.lines().count();
    editor.lines().skip(skip).collect::<Vec<_>>().join("\n")
}

/// How a question was closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Answered right.
    Correct,
    /// "Show me": the answer was shown.
    Revealed,
}

/// A student's progress in one lesson, as kept in localStorage (per lesson id).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Question number (0-based, in lesson order) → how it was closed.
    #[serde(default)]
    pub answered: BTreeMap<usize, Outcome>,
}

impl Progress {
    /// The localStorage key of lesson `id`'s progress.
    pub fn key(id: &str) -> String {
        format!("stridescope.lesson.{id}")
    }

    /// Reads stored progress; anything unreadable is no progress (never an error).
    pub fn from_json(text: Option<&str>, questions: usize) -> Progress {
        let mut p: Progress = text
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default();
        p.answered.retain(|&q, _| q < questions);
        p
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
    }

    /// Questions closed (right or shown).
    pub fn done(&self) -> usize {
        self.answered.len()
    }

    /// The first question not closed yet (`questions` when all are).
    pub fn first_open(&self, questions: usize) -> usize {
        (0..questions)
            .find(|q| !self.answered.contains_key(q))
            .unwrap_or(questions)
    }
}

fn list(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// The catalog message for a literal the student mistyped.
pub fn literal_message(error: &LiteralError) -> Msg {
    match error {
        LiteralError::Empty => Msg::new("fb-empty"),
        LiteralError::TooLong { chars } => Msg::new("fb-too-long").arg("chars", *chars),
        LiteralError::Syntax { message } => Msg::new("fb-syntax").arg("message", message),
        LiteralError::NotALiteral { code } => Msg::new("fb-code").arg("code", code),
        LiteralError::TooDeep => Msg::new("fb-too-deep"),
    }
}

/// The catalog message for one piece of the core's feedback (PyTorch's own error text
/// stays in English inside it).
pub fn feedback_message(feedback: &Feedback) -> Msg {
    match feedback {
        Feedback::NotALiteral { error } => literal_message(error),
        Feedback::GaveOtherValue { name, attribute } => Msg::new("fb-gave-other")
            .arg("name", name)
            .arg("attribute", attribute),
        Feedback::Reversed => Msg::new("fb-reversed"),
        Feedback::WrongType { given, expected } => Msg::new("fb-wrong-type")
            .arg("given", given)
            .arg("expected", expected),
        Feedback::NotEqual { expected, given } => Msg::new("fb-not-equal")
            .arg("expected", expected)
            .arg("given", given),
        Feedback::WrongCells { missing, extra } => match (missing.is_empty(), extra.is_empty()) {
            (false, false) => Msg::new("fb-cells-both")
                .arg("missing", list(missing))
                .arg("extra", list(extra)),
            (false, true) => Msg::new("fb-cells-missing").arg("missing", list(missing)),
            (true, false) => Msg::new("fb-cells-extra").arg("extra", list(extra)),
            (true, true) => Msg::new("fb-cells-right"),
        },
        Feedback::TaskError { line, error } => Msg::new("fb-task-error")
            .arg("line", *line)
            .arg("error", error),
        Feedback::TaskCheckFailed { expr } => Msg::new("fb-task-check").arg("expr", expr),
        Feedback::TaskCheckRaised { expr, error } => Msg::new("fb-task-raised")
            .arg("expr", expr)
            .arg("error", error),
        Feedback::TaskAllocated { bytes, expected } if *expected == 0 => {
            Msg::new("fb-task-copied").arg("bytes", *bytes)
        }
        Feedback::TaskAllocated { bytes, expected } => Msg::new("fb-task-allocated")
            .arg("bytes", *bytes)
            .arg("expected", *expected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::present::i18n::{Catalog, Lang};

    #[test]
    fn routes_come_from_the_hash_then_the_query() {
        assert_eq!(route("#lessons", ""), Some(Route::Index));
        assert_eq!(
            route("#lesson=transpose-permute", "?lesson=x.md"),
            Some(Route::Shipped("transpose-permute".into()))
        );
        assert_eq!(
            route("", "?embed&lesson=mine%2Fa.md"),
            Some(Route::Url("mine%2Fa.md".into()))
        );
        assert_eq!(
            route("#lesson-data=v1.abc", ""),
            Some(Route::Data("lesson-data=v1.abc".into()))
        );
        assert_eq!(route("#v1.abc", "?readonly"), None);
        assert!(is_lesson_id("01-storage"));
        assert!(!is_lesson_id("../x"));
        assert!(!is_lesson_id(""));
    }

    #[test]
    fn raw_html_and_script_links_never_become_markup() {
        let html = markdown_html(
            "Hi <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n[a](javascript:alert(1)) [b](https://pytorch.org) `t<b>`",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains("href=\"https://pytorch.org\""), "{html}");
        assert!(html.contains("<code>t&lt;b&gt;</code>"), "{html}");
        let html = markdown_html("**bold** and ![i](data:image/png;base64,xx)");
        assert!(html.contains("<strong>bold</strong>"));
        assert!(!html.contains("data:"), "{html}");
    }

    #[test]
    fn the_students_code_follows_the_lessons_code() {
        let prefix = "a = torch.arange(6)\nb = a.t()\n";
        assert_eq!(
            student_code("a = torch.arange(6)\nb = a.t()\nd = b\n", prefix),
            "d = b\n"
        );
        assert_eq!(
            student_code("a = torch.arange(6)\nb = a.t()\nd = b", prefix),
            "d = b"
        );
        assert_eq!(
            student_code("a = torch.arange(7)\nb = a.t()\nd = b", prefix),
            "d = b"
        );
        assert_eq!(
            last_block_first_line("x = 1\ny = 2\nz = 3\n", "y = 2\nz = 3\n"),
            2
        );
    }

    #[test]
    fn progress_survives_a_round_trip_and_garbage_is_no_progress() {
        let mut p = Progress::default();
        p.answered.insert(0, Outcome::Correct);
        p.answered.insert(2, Outcome::Revealed);
        let back = Progress::from_json(Some(&p.to_json()), 5);
        assert_eq!(back, p);
        assert_eq!(back.done(), 2);
        assert_eq!(back.first_open(5), 1);
        assert_eq!(
            Progress::from_json(Some("{\"answered\":{\"9\":\"correct\"}}"), 3).done(),
            0
        );
        assert_eq!(Progress::from_json(Some("<oops>"), 3), Progress::default());
        assert_eq!(Progress::from_json(None, 3).first_open(3), 0);
    }

    #[test]
    fn feedback_reads_in_both_languages() {
        let fb = Feedback::GaveOtherValue {
            name: "a".into(),
            attribute: "stride".into(),
        };
        let m = feedback_message(&fb);
        assert_eq!(Catalog::new(Lang::En).msg(&m), "You gave a's stride.");
        assert_eq!(Catalog::new(Lang::ZhCn).msg(&m), "你给出的是 a 的步长。");
        let copied = feedback_message(&Feedback::TaskAllocated {
            bytes: 48,
            expected: 0,
        });
        assert!(Catalog::new(Lang::En).msg(&copied).contains("+48 B"));
        assert!(Catalog::new(Lang::ZhCn).msg(&copied).contains("+48 B"));
        let cells = feedback_message(&Feedback::WrongCells {
            missing: vec![1, 4],
            extra: vec![],
        });
        assert_eq!(
            Catalog::new(Lang::En).msg(&cells),
            "The view also reads cells 1, 4."
        );
    }
}
