//! Lessons: the tutorial's format, its grading and its checker (LESSONS.md is the contract).
//!
//! A lesson is a CommonMark file: front matter (`id`, `title`, `lang`), prose, ```` ```python ````
//! blocks that run in order in one session, and ```` ```question ```` blocks. [`parse`] reads
//! it into a [`model::Lesson`] (every error typed, at its line); [`grade`] plays it
//! ([`grade::LessonSession`]) and grades answers with feedback computed from the engine;
//! [`check`] is `stridescope lesson check`; [`link`] carries a whole lesson in a link;
//! [`index`] is the shipped track's `index.json`; [`memory`] reads the figures `memory:`
//! questions ask for.
//!
//! Pure: no DOM, no files, no threads that must exist (the expression parser falls back to the
//! current thread). The web player and the CLI share all of it.

pub mod check;
pub mod grade;
pub mod index;
pub mod link;
pub mod literal;
pub mod memory;
pub mod model;
pub mod parse;

pub use grade::{Feedback, Grade, GradeError, LessonSession, Response};
pub use literal::{Literal, LiteralError};
pub use memory::{MemoryError, MemoryFigure};
pub use model::{Block, Key, Lesson, Question, QuestionKind};
pub use parse::{parse_lesson, ParseError, ParseErrorKind};
