//! The parsed lesson: what the player shows and the checker runs, each part with its
//! 1-based line in the lesson file.

use serde::Serialize;

use crate::lessons::literal::Literal;
use crate::lessons::memory::MemoryFigure;

/// A whole lesson: front matter, then its blocks in file order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lesson {
    /// The lesson's id (`transpose-shares-storage`): the same in every language.
    pub id: String,
    /// The title, in the lesson's language.
    pub title: String,
    /// The language tag (`en`, `zh-CN`).
    pub lang: String,
    /// Prose, code and questions, in file order.
    pub blocks: Vec<Block>,
}

/// One part of a lesson.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Block {
    /// Markdown between the code and question blocks, as written (the player renders it).
    Prose {
        /// The Markdown source, trimmed of blank lines around it.
        markdown: String,
        /// Line of its first non-blank line.
        line: usize,
    },
    /// A ```` ```python ```` block: statements run in order, in the lesson's one session.
    Code {
        /// The code, without its fences.
        source: String,
        /// Line of the opening fence; the code's first line is `line + 1`.
        line: usize,
    },
    /// A ```` ```question ```` block.
    Question(Question),
}

impl Block {
    /// The block's 1-based line.
    pub fn line(&self) -> usize {
        match self {
            Block::Prose { line, .. } | Block::Code { line, .. } => *line,
            Block::Question(q) => q.line,
        }
    }
}

/// The keys of a question block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Key {
    Ask,
    Answer,
    Choices,
    Cells,
    Memory,
    Task,
    Solution,
    Allocates,
    Expect,
    Hint,
    Explain,
}

impl Key {
    /// Every key, in the order LESSONS.md lists them.
    pub const ALL: [Key; 11] = [
        Key::Ask,
        Key::Answer,
        Key::Choices,
        Key::Cells,
        Key::Memory,
        Key::Task,
        Key::Solution,
        Key::Allocates,
        Key::Expect,
        Key::Hint,
        Key::Explain,
    ];

    /// The key as written in a lesson file.
    pub fn name(self) -> &'static str {
        match self {
            Key::Ask => "ask",
            Key::Answer => "answer",
            Key::Choices => "choices",
            Key::Cells => "cells",
            Key::Memory => "memory",
            Key::Task => "task",
            Key::Solution => "solution",
            Key::Allocates => "allocates",
            Key::Expect => "expect",
            Key::Hint => "hint",
            Key::Explain => "explain",
        }
    }

    /// The key written `name`, if any.
    pub fn from_name(name: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the key's text is translated (`ask`, `hint`, `explain`); the others must be
    /// the same in every language.
    pub fn is_translated(self) -> bool {
        matches!(self, Key::Ask | Key::Hint | Key::Explain)
    }
}

/// A question: what is asked, how it is graded, and the help around it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Question {
    /// Line of the opening fence.
    pub line: usize,
    /// The question (Markdown).
    pub ask: String,
    /// How the student answers and how it is graded.
    pub kind: QuestionKind,
    /// What the author believes the answer is; the checker compares it with the engine.
    pub expect: Option<Literal>,
    /// A hint (Markdown), shown after a wrong answer.
    pub hint: Option<String>,
    /// Why the answer is what it is (Markdown), shown once answered or revealed.
    pub explain: Option<String>,
    /// The line of each key present, for messages at the right line.
    pub key_lines: Vec<(Key, usize)>,
}

impl Question {
    /// The line of `key` in the lesson file, or the fence's line when it is absent.
    pub fn line_of(&self, key: Key) -> usize {
        self.key_lines
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, l)| *l)
            .unwrap_or(self.line)
    }
}

/// The five kinds of question.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum QuestionKind {
    /// `answer: EXPR`: the student types a Python literal, compared with EXPR's value by `==`.
    Answer {
        /// The expression whose value is the answer.
        expr: String,
    },
    /// `choices: A | B | C` with `answer: EXPR`: the right choice equals EXPR's value.
    Choices {
        /// The expression whose value is the answer.
        expr: String,
        /// Each choice's text, as written (a Python literal).
        choices: Vec<String>,
        /// Each choice parsed.
        literals: Vec<Literal>,
    },
    /// `cells: EXPR`: the student clicks the storage cells that the view EXPR reads.
    Cells {
        /// The expression giving the view.
        expr: String,
    },
    /// `memory: FIGURE`: the student types a memory figure (`live_bytes`, `peak_bytes`, ...)
    /// of the last statement run above the question, graded against the engine's accounting.
    Memory {
        /// The figure asked for.
        figure: MemoryFigure,
    },
    /// `task: EXPR` with `solution: CODE` (and `allocates: BYTES`): the student writes code.
    Task {
        /// The check, `True` when the task is done.
        expr: String,
        /// The author's solution (one statement per line).
        solution: String,
        /// Exactly how many bytes the student's code must allocate, when given.
        allocates: Option<u64>,
    },
}

impl QuestionKind {
    /// `answer`, `choices`, `cells`, `memory` or `task` (the player's `data-kind`).
    pub fn name(&self) -> &'static str {
        match self {
            QuestionKind::Answer { .. } => "answer",
            QuestionKind::Choices { .. } => "choices",
            QuestionKind::Cells { .. } => "cells",
            QuestionKind::Memory { .. } => "memory",
            QuestionKind::Task { .. } => "task",
        }
    }

    /// The expression the question is about (for a `memory` question, the figure's name).
    pub fn expr(&self) -> &str {
        match self {
            QuestionKind::Memory { figure } => figure.name(),
            QuestionKind::Answer { expr }
            | QuestionKind::Choices { expr, .. }
            | QuestionKind::Cells { expr }
            | QuestionKind::Task { expr, .. } => expr,
        }
    }
}

impl Lesson {
    /// The questions, in order.
    pub fn questions(&self) -> impl Iterator<Item = &Question> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Question(q) => Some(q),
            _ => None,
        })
    }

    /// The code blocks, in order, with their fence lines.
    pub fn code_blocks(&self) -> impl Iterator<Item = (&str, usize)> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Code { source, line } => Some((source.as_str(), *line)),
            _ => None,
        })
    }

    /// The code of every code block above block `index`, as one script (what the app runs
    /// up to that point; a task's editor starts with it).
    pub fn script_before(&self, index: usize) -> String {
        let mut script = String::new();
        for block in self.blocks.iter().take(index) {
            if let Block::Code { source, .. } = block {
                script.push_str(source);
                if !source.ends_with('\n') {
                    script.push('\n');
                }
            }
        }
        script
    }

    /// The index in [`Lesson::blocks`] of question number `n` (0-based), if any.
    pub fn question_block(&self, n: usize) -> Option<usize> {
        self.blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| matches!(b, Block::Question(_)))
            .nth(n)
            .map(|(i, _)| i)
    }
}
