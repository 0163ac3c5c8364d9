//! Parsing a lesson file (LESSONS.md is the contract): the front matter by hand (so every
//! error has its line), the body with `pulldown-cmark` (so that what counts as a fenced
//! block is exactly what CommonMark says), and each question block line by line.
//!
//! Parsing never runs code and never panics: a hostile file gets a [`ParseError`] at its line.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::lessons::literal::{Literal, LiteralError};
use crate::lessons::model::{Block, Key, Lesson, Question, QuestionKind};

/// The largest lesson file accepted, in bytes.
pub const MAX_LESSON_BYTES: usize = 256 * 1024;

/// A lesson file that cannot be read as a lesson, and the 1-based line where it goes wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct ParseError {
    /// 1-based line in the lesson file.
    pub line: usize,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

/// What is wrong with a lesson file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// The file is larger than [`MAX_LESSON_BYTES`].
    #[error("the lesson is {bytes} bytes; lessons hold at most {max} bytes", max = MAX_LESSON_BYTES)]
    TooLarge {
        /// The file's size.
        bytes: usize,
    },
    /// The file does not start with a `---` line.
    #[error("a lesson starts with its front matter: a line `---`, then `id:`, `title:` and `lang:`, then `---`")]
    NoFrontMatter,
    /// The front matter has no closing `---`.
    #[error("the front matter is not closed: add a line `---` after `lang:`")]
    UnclosedFrontMatter,
    /// A front matter line that is not `key: value`.
    #[error("front matter lines are `key: value`; this line is `{text}`")]
    FrontMatterLine {
        /// The line.
        text: String,
    },
    /// A front matter key other than `id`, `title`, `lang`.
    #[error("unknown front matter key `{key}` (the keys are id, title and lang)")]
    UnknownFrontMatterKey {
        /// The key.
        key: String,
    },
    /// A required front matter key is absent.
    #[error("the front matter has no `{key}:`")]
    MissingFrontMatterKey {
        /// `id`, `title` or `lang`.
        key: &'static str,
    },
    /// A key given twice (front matter or question).
    #[error("`{key}` is given twice")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// An id that is not lowercase letters, digits and single dashes.
    #[error("the id `{id}` must be lowercase letters, digits and dashes (like transpose-shares-storage), at most 64 characters")]
    BadId {
        /// The id.
        id: String,
    },
    /// A language that is not a language tag.
    #[error("the lang `{lang}` is not a language tag (like en or zh-CN)")]
    BadLang {
        /// The tag.
        lang: String,
    },
    /// A fenced block never closed.
    #[error("this ```{fence} block is not closed: add a line ``` after it")]
    UnclosedBlock {
        /// `python` or `question`.
        fence: String,
    },
    /// A `python` or `question` block inside a list or a quote.
    #[error("a ```{fence} block must not be inside a list or a quote: start it at the beginning of a line")]
    NestedBlock {
        /// `python` or `question`.
        fence: String,
    },
    /// A question line that is not `key: value` (or an indented continuation).
    #[error("question lines are `key: value` (indent a line to continue the value above); this line is `{text}`")]
    NotAKeyLine {
        /// The line.
        text: String,
    },
    /// A key no question has.
    #[error("unknown key `{key}` (the keys are ask, answer, choices, cells, memory, task, solution, allocates, expect, hint and explain)")]
    UnknownKey {
        /// The key.
        key: String,
    },
    /// A key with nothing after the colon.
    #[error("`{key}:` has no value")]
    EmptyValue {
        /// The key.
        key: &'static str,
    },
    /// A question without `ask:`.
    #[error("this question has no `ask:`")]
    MissingAsk,
    /// A question with none of `answer`, `cells`, `memory`, `task`.
    #[error("this question has no `answer:` (or `cells:`, `memory:` or `task:`): nothing says what is right")]
    MissingAnswer,
    /// `choices:` without `answer:`.
    #[error("`choices:` needs `answer: EXPR`, the expression whose value is the right choice")]
    ChoicesWithoutAnswer,
    /// A `task:` without `solution:`.
    #[error("this task has no `solution:` (the checker runs it to prove the task can be done)")]
    MissingSolution,
    /// Two of `answer`, `cells`, `task` in one question.
    #[error("a question has one kind, but this one has both `{first}:` and `{second}:`")]
    TwoKinds {
        /// The first kind's key.
        first: &'static str,
        /// The second kind's key.
        second: &'static str,
    },
    /// A key that the question's kind does not use (`solution` without `task`).
    #[error("`{key}:` does not belong in a {kind} question")]
    KeyNotForKind {
        /// The key.
        key: &'static str,
        /// The question's kind.
        kind: &'static str,
    },
    /// `allocates:` that is not a whole number of bytes.
    #[error("`allocates:` is a whole number of bytes, like 48; this is `{text}`")]
    BadAllocates {
        /// The value.
        text: String,
    },
    /// `memory:` naming no figure the accounting has.
    #[error(
        "`memory:` is one of {}; this is `{text}`",
        crate::lessons::memory::MemoryFigure::names()
    )]
    BadMemoryFigure {
        /// The value.
        text: String,
    },
    /// Fewer than two choices.
    #[error("`choices:` needs at least two choices, separated by `|`")]
    TooFewChoices,
    /// A choice or `expect:` that is not a Python literal.
    #[error("`{key}:` must be a Python literal: {error}")]
    BadLiteral {
        /// `choices` or `expect`.
        key: &'static str,
        /// Why it is not one.
        error: LiteralError,
    },
}

fn err(line: usize, kind: ParseErrorKind) -> ParseError {
    ParseError { line, kind }
}

/// Parses a lesson file.
pub fn parse_lesson(text: &str) -> Result<Lesson, ParseError> {
    if text.len() > MAX_LESSON_BYTES {
        return Err(err(1, ParseErrorKind::TooLarge { bytes: text.len() }));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (front, body_start, body_line) = front_matter(text)?;
    let body = &text[body_start..];
    let mut lesson = Lesson {
        id: front.id,
        title: front.title,
        lang: front.lang,
        blocks: Vec::new(),
    };
    let line_at = |offset: usize| -> usize {
        body_line
            + body.as_bytes()[..offset.min(body.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
    };
    let mut depth = 0usize;
    let mut prose_from = 0usize;
    let mut open: Option<(String, std::ops::Range<usize>, String)> = None;
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let fence = info.split_whitespace().next().unwrap_or("").to_string();
                if fence == "python" || fence == "question" {
                    if depth > 0 {
                        return Err(err(
                            line_at(range.start),
                            ParseErrorKind::NestedBlock { fence },
                        ));
                    }
                    open = Some((fence, range, String::new()));
                }
                depth += 1;
            }
            Event::Start(_) => depth += 1,
            Event::Text(t) => {
                if let Some((_, _, content)) = open.as_mut() {
                    content.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                depth = depth.saturating_sub(1);
                let Some((fence, range, content)) = open.take() else {
                    continue;
                };
                let fence_line = line_at(range.start);
                if !is_closed(&body[range.clone()]) {
                    return Err(err(fence_line, ParseErrorKind::UnclosedBlock { fence }));
                }
                push_prose(
                    &mut lesson.blocks,
                    &body[prose_from..range.start],
                    line_at(prose_from),
                );
                prose_from = range.end;
                lesson.blocks.push(if fence == "python" {
                    Block::Code {
                        source: content,
                        line: fence_line,
                    }
                } else {
                    Block::Question(parse_question(&content, fence_line)?)
                });
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    push_prose(&mut lesson.blocks, &body[prose_from..], line_at(prose_from));
    Ok(lesson)
}

/// Whether a fenced block's source ends with a closing fence.
fn is_closed(block: &str) -> bool {
    let mut lines = block.trim_end_matches(['\n', '\r']).lines();
    let Some(first) = lines.next() else {
        return false;
    };
    let first = first.trim_start();
    let fence_char = first.chars().next().unwrap_or('`');
    let open_len = first.chars().take_while(|&c| c == fence_char).count();
    match lines.last() {
        Some(last) => {
            let last = last.trim();
            last.len() >= open_len && last.chars().all(|c| c == fence_char)
        }
        None => false,
    }
}

fn push_prose(blocks: &mut Vec<Block>, text: &str, first_line: usize) {
    let leading = text.len() - text.trim_start_matches(['\n', '\r', ' ', '\t']).len();
    let skipped_lines = text.as_bytes()[..leading]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let markdown = text.trim();
    if !markdown.is_empty() {
        blocks.push(Block::Prose {
            markdown: markdown.to_string(),
            line: first_line + skipped_lines,
        });
    }
}

struct FrontMatter {
    id: String,
    title: String,
    lang: String,
}

/// The front matter, the byte offset where the body starts and the body's first line.
fn front_matter(text: &str) -> Result<(FrontMatter, usize, usize), ParseError> {
    let mut offset = 0usize;
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(err(1, ParseErrorKind::NoFrontMatter));
    }
    offset += first.len();
    let (mut id, mut title, mut lang) = (None, None, None);
    let mut line = 1usize;
    for raw in lines {
        line += 1;
        offset += raw.len();
        let content = raw.trim();
        if content == "---" {
            let need = |v: Option<String>, key: &'static str| {
                v.ok_or_else(|| err(line, ParseErrorKind::MissingFrontMatterKey { key }))
            };
            let front = FrontMatter {
                id: need(id, "id")?,
                title: need(title, "title")?,
                lang: need(lang, "lang")?,
            };
            return Ok((front, offset, line + 1));
        }
        if content.is_empty() {
            continue;
        }
        let Some((key, value)) = content.split_once(':') else {
            return Err(err(
                line,
                ParseErrorKind::FrontMatterLine {
                    text: clip(content),
                },
            ));
        };
        let (key, value) = (key.trim(), unquote(value.trim()));
        let slot = match key {
            "id" => &mut id,
            "title" => &mut title,
            "lang" => &mut lang,
            _ => {
                return Err(err(
                    line,
                    ParseErrorKind::UnknownFrontMatterKey { key: clip(key) },
                ));
            }
        };
        if slot.is_some() {
            return Err(err(
                line,
                ParseErrorKind::DuplicateKey {
                    key: key.to_string(),
                },
            ));
        }
        match key {
            "id" if !valid_id(value) => {
                return Err(err(line, ParseErrorKind::BadId { id: clip(value) }));
            }
            "lang" if !valid_lang(value) => {
                return Err(err(line, ParseErrorKind::BadLang { lang: clip(value) }));
            }
            "title" if value.is_empty() => {
                return Err(err(
                    line,
                    ParseErrorKind::FrontMatterLine {
                        text: clip(content),
                    },
                ));
            }
            _ => {}
        }
        *slot = Some(value.to_string());
    }
    Err(err(1, ParseErrorKind::UnclosedFrontMatter))
}

/// `"a title"` and `'a title'` as YAML writes them.
fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

/// The first 80 characters of `s`, for messages.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if s.chars().nth(80).is_some() {
        out.push('…');
    }
    out
}

/// Lowercase letters, digits and single dashes, at most 64 characters.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// A BCP 47 language tag as lessons use them: `en`, `zh-CN`, `pt-BR`.
pub fn valid_lang(lang: &str) -> bool {
    let mut parts = lang.split('-');
    let primary = parts.next().unwrap_or("");
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Parses the content of a question block whose fence is at `fence_line`.
fn parse_question(content: &str, fence_line: usize) -> Result<Question, ParseError> {
    let mut values: Vec<(Key, usize, String)> = Vec::new();
    for (i, raw) in content.lines().enumerate() {
        let line = fence_line + 1 + i;
        if raw.trim().is_empty() {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            if let Some((_, _, value)) = values.last_mut() {
                if !value.is_empty() {
                    value.push('\n');
                }
                value.push_str(raw.trim());
                continue;
            }
        }
        let Some((key, value)) = raw.split_once(':') else {
            return Err(err(
                line,
                ParseErrorKind::NotAKeyLine {
                    text: clip(raw.trim()),
                },
            ));
        };
        let key_text = key.trim();
        if key_text.is_empty()
            || !key_text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(err(
                line,
                ParseErrorKind::NotAKeyLine {
                    text: clip(raw.trim()),
                },
            ));
        }
        let Some(key) = Key::from_name(key_text) else {
            return Err(err(
                line,
                ParseErrorKind::UnknownKey {
                    key: clip(key_text),
                },
            ));
        };
        if values.iter().any(|(k, _, _)| *k == key) {
            return Err(err(
                line,
                ParseErrorKind::DuplicateKey {
                    key: key.name().to_string(),
                },
            ));
        }
        values.push((key, line, value.trim().to_string()));
    }
    for (key, line, value) in &values {
        if value.is_empty() {
            return Err(err(*line, ParseErrorKind::EmptyValue { key: key.name() }));
        }
    }
    let get = |key: Key| {
        values
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, l, v)| (*l, v.clone()))
    };
    let key_lines: Vec<(Key, usize)> = values.iter().map(|(k, l, _)| (*k, *l)).collect();

    // The kind: exactly one of answer (with or without choices), cells, memory, task.
    let mut kinds: Vec<(Key, usize)> = [Key::Answer, Key::Cells, Key::Memory, Key::Task]
        .into_iter()
        .filter_map(|k| get(k).map(|(l, _)| (k, l)))
        .collect();
    crate::core::tensor::stable_sort::sort_by_key(&mut kinds, |(_, l)| *l);
    if let [(first, _), (second, line), ..] = kinds.as_slice() {
        return Err(err(
            *line,
            ParseErrorKind::TwoKinds {
                first: first.name(),
                second: second.name(),
            },
        ));
    }
    let kind_name = match kinds.first() {
        Some((Key::Answer, _)) if get(Key::Choices).is_some() => "choices",
        Some((key, _)) => key.name(),
        None => {
            if let Some((line, _)) = get(Key::Choices) {
                return Err(err(line, ParseErrorKind::ChoicesWithoutAnswer));
            }
            return Err(err(fence_line, ParseErrorKind::MissingAnswer));
        }
    };
    let forbidden: &[Key] = match kind_name {
        "task" => &[Key::Choices, Key::Expect],
        "cells" | "memory" => &[Key::Choices, Key::Solution, Key::Allocates],
        _ => &[Key::Solution, Key::Allocates],
    };
    for key in forbidden {
        if let Some((line, _)) = get(*key) {
            return Err(err(
                line,
                ParseErrorKind::KeyNotForKind {
                    key: key.name(),
                    kind: kind_name,
                },
            ));
        }
    }
    let Some((_, ask)) = get(Key::Ask) else {
        return Err(err(fence_line, ParseErrorKind::MissingAsk));
    };
    let literal = |key: Key, text: &str, line: usize| {
        Literal::parse(text).map_err(|error| {
            err(
                line,
                ParseErrorKind::BadLiteral {
                    key: key.name(),
                    error,
                },
            )
        })
    };
    let expect = match get(Key::Expect) {
        Some((line, text)) => Some(literal(Key::Expect, &text, line)?),
        None => None,
    };
    let kind = match kind_name {
        "answer" | "choices" => {
            let (_, expr) = get(Key::Answer).unwrap_or_default();
            match get(Key::Choices) {
                None => QuestionKind::Answer { expr },
                Some((line, text)) => {
                    let choices: Vec<String> = split_choices(&text);
                    if choices.len() < 2 {
                        return Err(err(line, ParseErrorKind::TooFewChoices));
                    }
                    let literals = choices
                        .iter()
                        .map(|c| literal(Key::Choices, c, line))
                        .collect::<Result<Vec<_>, _>>()?;
                    QuestionKind::Choices {
                        expr,
                        choices,
                        literals,
                    }
                }
            }
        }
        "cells" => QuestionKind::Cells {
            expr: get(Key::Cells).unwrap_or_default().1,
        },
        "memory" => {
            let (line, text) = get(Key::Memory).unwrap_or_default();
            let figure = crate::lessons::memory::MemoryFigure::from_name(&text)
                .ok_or_else(|| err(line, ParseErrorKind::BadMemoryFigure { text: clip(&text) }))?;
            QuestionKind::Memory { figure }
        }
        _ => {
            let (_, expr) = get(Key::Task).unwrap_or_default();
            let Some((_, solution)) = get(Key::Solution) else {
                return Err(err(fence_line, ParseErrorKind::MissingSolution));
            };
            let allocates = match get(Key::Allocates) {
                None => None,
                Some((line, text)) => {
                    let digits = text.trim_end_matches('B').trim().replace('_', "");
                    Some(digits.parse::<u64>().map_err(|_| {
                        err(line, ParseErrorKind::BadAllocates { text: clip(&text) })
                    })?)
                }
            };
            QuestionKind::Task {
                expr,
                solution,
                allocates,
            }
        }
    };
    Ok(Question {
        line: fence_line,
        ask,
        kind,
        expect,
        hint: get(Key::Hint).map(|(_, v)| v),
        explain: get(Key::Explain).map(|(_, v)| v),
        key_lines,
    })
}

/// Splits `A | B | C` at the `|` outside strings and brackets.
fn split_choices(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
                current.push(c);
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    current.push(c);
                }
                '(' | '[' | '{' => {
                    depth += 1;
                    current.push(c);
                }
                ')' | ']' | '}' => {
                    depth -= 1;
                    current.push(c);
                }
                '|' if depth <= 0 => parts.push(std::mem::take(&mut current)),
                _ => current.push(c),
            },
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_split_outside_strings_and_brackets() {
        assert_eq!(
            split_choices("(1, 2) | 'a|b' | [3 | 4]| torch.float16"),
            ["(1, 2)", "'a|b'", "[3 | 4]", "torch.float16"]
        );
    }

    #[test]
    fn ids_and_languages() {
        assert!(valid_id("transpose-shares-storage") && valid_id("a1"));
        assert!(!valid_id("Bad") && !valid_id("a--b") && !valid_id("-a") && !valid_id(""));
        assert!(valid_lang("en") && valid_lang("zh-CN") && valid_lang("pt-BR"));
        assert!(!valid_lang("e") && !valid_lang("zh_CN") && !valid_lang("english"));
    }

    #[test]
    fn front_matter_values_may_be_quoted_and_a_bom_is_skipped() {
        let l = parse_lesson("\u{feff}---\nid: a\ntitle: \"A: b\"\nlang: en\n---\n").unwrap();
        assert_eq!(l.title, "A: b");
        assert!(l.blocks.is_empty());
    }
}
