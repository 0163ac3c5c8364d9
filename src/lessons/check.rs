//! The checker behind `stridescope lesson check`: runs a lesson headlessly and reports, at
//! the offending line, every code block or solution that fails, every expression that does
//! not evaluate, every `choices` without the answer, every `expect` the engine contradicts,
//! and every translation that drifted from its original. Pure: the CLI reads the files.

use crate::interp::session::python_eq;
use crate::interp::Value;
use crate::lessons::grade::{Feedback, GradeError, LessonSession, Response};
use crate::lessons::literal::Literal;
use crate::lessons::memory::MemoryError;
use crate::lessons::model::{Block, Key, Lesson, Question, QuestionKind};
use crate::lessons::parse::{parse_lesson, ParseError};

/// The comment that marks a line meant to raise (`b.view(6)  # raises`): the checker then
/// requires that it raises.
pub const RAISES_MARK: &str = "# raises";

/// One problem, at a 1-based line of the lesson file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{problem}")]
pub struct Diagnostic {
    /// The line.
    pub line: usize,
    /// What is wrong there.
    pub problem: Problem,
}

/// What the checker found wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Problem {
    /// The file is not a lesson.
    #[error("{0}")]
    Parse(ParseError),
    /// A code block's statement raised.
    #[error("this line raises: {error} (mark a line meant to raise with `{RAISES_MARK}`)")]
    CodeRaised {
        /// The exception as Python prints it.
        error: String,
    },
    /// A line marked `# raises` ran without raising.
    #[error("this line is marked `{RAISES_MARK}` but runs without an error")]
    DidNotRaise,
    /// A question cannot be graded.
    #[error("{0}")]
    Question(GradeError),
    /// A `memory` question on a statement the engine recorded no memory figures for: a
    /// note, not a failure ([`Problem::is_note`]); its `expect` is checked once the engine
    /// records them.
    #[error("note: {0}")]
    MemoryNotRecorded(MemoryError),
    /// No choice equals the answer.
    #[error("no choice equals the answer: the engine gives {value}")]
    NoChoiceMatches {
        /// The answer.
        value: String,
    },
    /// Several choices equal the answer.
    #[error("choices {first} and {second} both equal the answer {value}")]
    TwoChoicesMatch {
        /// The answer.
        value: String,
        /// The first matching choice.
        first: String,
        /// The second matching choice.
        second: String,
    },
    /// `expect:` differs from the engine's value.
    #[error("expect: {expect}, but the engine gives {actual}")]
    ExpectDiffers {
        /// What the lesson expects.
        expect: String,
        /// What the engine gives.
        actual: String,
    },
    /// A task's solution does not pass the task.
    #[error("the solution does not pass its task: {}", list(.feedback))]
    SolutionFails {
        /// Why.
        feedback: Vec<Feedback>,
    },
    /// A translation's code or questions differ from its original's.
    #[error("{what} differs from the {lang} original ({original}:{original_line}); only prose, ask, hint and explain are translated")]
    TwinDiffers {
        /// What differs (`the code block`, `answer:`).
        what: String,
        /// The original's language.
        lang: String,
        /// The original's file, as the caller named it.
        original: String,
        /// The line in the original.
        original_line: usize,
    },
    /// A translation with more or fewer code blocks or questions than its original.
    #[error("this lesson has {here} {what}, its {lang} original ({original}) has {there}")]
    TwinCount {
        /// `code blocks` or `questions`.
        what: &'static str,
        /// How many here.
        here: usize,
        /// How many in the original.
        there: usize,
        /// The original's language.
        lang: String,
        /// The original's file.
        original: String,
    },
}

impl Problem {
    /// Whether this is a note that does not fail the check (a memory question the engine
    /// cannot grade yet).
    pub fn is_note(&self) -> bool {
        matches!(self, Problem::MemoryNotRecorded(_))
    }
}

fn list(feedback: &[Feedback]) -> String {
    feedback
        .iter()
        .map(Feedback::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn at(line: usize, problem: Problem) -> Diagnostic {
    Diagnostic { line, problem }
}

/// Parses and checks a lesson file's text: the lesson (when it parses) and its problems.
pub fn check_source(text: &str) -> (Option<Lesson>, Vec<Diagnostic>) {
    match parse_lesson(text) {
        Ok(lesson) => {
            let problems = check_lesson(&lesson);
            (Some(lesson), problems)
        }
        Err(e) => (None, vec![at(e.line, Problem::Parse(e))]),
    }
}

/// Runs `lesson` headlessly and returns its problems, in line order.
pub fn check_lesson(lesson: &Lesson) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let mut session = LessonSession::new(lesson.clone());
    for (index, block) in lesson.blocks.iter().enumerate() {
        if let Block::Question(q) = block {
            check_question(&mut session, index, q, &mut problems);
        }
    }
    for run in session.run_all() {
        let Some(Block::Code { source, line }) = lesson.blocks.get(run.block) else {
            continue;
        };
        let lines: Vec<&str> = source.lines().collect();
        for step in &run.steps {
            let text = lines
                .get(step.line.saturating_sub(line + 1))
                .copied()
                .unwrap_or("");
            let marked = text.contains(RAISES_MARK);
            match (&step.error, marked) {
                (Some(error), false) => problems.push(at(
                    step.line,
                    Problem::CodeRaised {
                        error: error.clone(),
                    },
                )),
                (None, true) => problems.push(at(step.line, Problem::DidNotRaise)),
                _ => {}
            }
        }
    }
    crate::core::tensor::stable_sort::sort_by_key(&mut problems, |d| d.line);
    problems
}

fn check_question(
    session: &mut LessonSession,
    index: usize,
    q: &Question,
    problems: &mut Vec<Diagnostic>,
) {
    let kind_key = match &q.kind {
        QuestionKind::Answer { .. } | QuestionKind::Choices { .. } => Key::Answer,
        QuestionKind::Cells { .. } => Key::Cells,
        QuestionKind::Memory { .. } => Key::Memory,
        QuestionKind::Task { .. } => Key::Task,
    };
    let expr_line = q.line_of(kind_key);
    match &q.kind {
        QuestionKind::Answer { .. }
        | QuestionKind::Choices { .. }
        | QuestionKind::Memory { .. } => {
            let value = match session.expected_literal(index) {
                Ok(v) => v,
                Err(GradeError::Memory(e @ MemoryError::NotRecorded { .. })) => {
                    return problems.push(at(expr_line, Problem::MemoryNotRecorded(e)))
                }
                Err(e) => return problems.push(at(expr_line, Problem::Question(e))),
            };
            if let QuestionKind::Choices {
                choices, literals, ..
            } = &q.kind
            {
                let matching: Vec<&String> = choices
                    .iter()
                    .zip(literals)
                    .filter(|(_, l)| python_eq(&l.to_value(), &value.to_value()))
                    .map(|(c, _)| c)
                    .collect();
                let line = q.line_of(Key::Choices);
                match matching.as_slice() {
                    [] => problems.push(at(
                        line,
                        Problem::NoChoiceMatches {
                            value: value.to_string(),
                        },
                    )),
                    [_] => {}
                    [first, second, ..] => problems.push(at(
                        line,
                        Problem::TwoChoicesMatch {
                            value: value.to_string(),
                            first: (*first).clone(),
                            second: (*second).clone(),
                        },
                    )),
                }
            }
            if let Some(expect) = &q.expect {
                if !python_eq(&expect.to_value(), &value.to_value()) {
                    problems.push(at(
                        q.line_of(Key::Expect),
                        Problem::ExpectDiffers {
                            expect: expect.to_string(),
                            actual: value.to_string(),
                        },
                    ));
                }
            }
        }
        QuestionKind::Cells { .. } => {
            let target = match session.cells_target(index) {
                Ok(t) => t,
                Err(e) => return problems.push(at(expr_line, Problem::Question(e))),
            };
            if let Some(expect) = &q.expect {
                let actual =
                    Literal::List(target.offsets.iter().map(|&o| Literal::Int(o)).collect());
                let mut given: Option<Vec<i64>> = match expect.to_value() {
                    Value::List(items) | Value::Tuple(items) => items
                        .iter()
                        .map(|v| match v {
                            Value::Int(i) => Some(*i),
                            _ => None,
                        })
                        .collect(),
                    _ => None,
                };
                if let Some(g) = given.as_mut() {
                    crate::core::tensor::stable_sort::sort(g);
                    g.dedup();
                }
                if given.as_deref() != Some(target.offsets.as_slice()) {
                    problems.push(at(
                        q.line_of(Key::Expect),
                        Problem::ExpectDiffers {
                            expect: expect.to_string(),
                            actual: actual.to_string(),
                        },
                    ));
                }
            }
        }
        QuestionKind::Task { expr, solution, .. } => {
            // The check must evaluate on the lesson's state (it may well be False there).
            if let Err(e) = session.value_at(index, expr) {
                if matches!(
                    &e,
                    GradeError::Expr {
                        error: crate::interp::session::EvalError::Syntax(_),
                        ..
                    }
                ) {
                    return problems.push(at(expr_line, Problem::Question(e)));
                }
            }
            match session.grade(index, &Response::Code(solution.clone())) {
                Ok(grade) if grade.correct => {}
                Ok(grade) => problems.push(at(
                    q.line_of(Key::Solution),
                    Problem::SolutionFails {
                        feedback: grade.feedback,
                    },
                )),
                Err(e) => problems.push(at(expr_line, Problem::Question(e))),
            }
        }
    }
}

/// Checks that `translation` has the same code blocks and the same questions (everything but
/// prose, `ask`, `hint` and `explain`) as `original`, whose file is named `original_name` in
/// messages. Lines are the translation's.
pub fn check_twins(
    original: &Lesson,
    original_name: &str,
    translation: &Lesson,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let differs = |what: String, line: usize, original_line: usize| {
        at(
            line,
            Problem::TwinDiffers {
                what,
                lang: original.lang.clone(),
                original: original_name.to_string(),
                original_line,
            },
        )
    };
    let code_a: Vec<(&str, usize)> = original.code_blocks().collect();
    let code_b: Vec<(&str, usize)> = translation.code_blocks().collect();
    for ((a, la), (b, lb)) in code_a.iter().zip(&code_b) {
        if normalize_code(a) != normalize_code(b) {
            problems.push(differs("the code block".to_string(), *lb, *la));
        }
    }
    if code_a.len() != code_b.len() {
        problems.push(at(
            code_b.get(code_a.len()).map(|(_, l)| *l).unwrap_or(1),
            Problem::TwinCount {
                what: "code blocks",
                here: code_b.len(),
                there: code_a.len(),
                lang: original.lang.clone(),
                original: original_name.to_string(),
            },
        ));
    }
    let qa: Vec<&Question> = original.questions().collect();
    let qb: Vec<&Question> = translation.questions().collect();
    for (a, b) in qa.iter().zip(&qb) {
        for key in Key::ALL.into_iter().filter(|k| !k.is_translated()) {
            if graded_part(a, key) != graded_part(b, key) {
                problems.push(differs(
                    format!("`{}:`", key.name()),
                    b.line_of(key),
                    a.line_of(key),
                ));
            }
        }
    }
    if qa.len() != qb.len() {
        problems.push(at(
            qb.get(qa.len()).map(|q| q.line).unwrap_or(1),
            Problem::TwinCount {
                what: "questions",
                here: qb.len(),
                there: qa.len(),
                lang: original.lang.clone(),
                original: original_name.to_string(),
            },
        ));
    }
    crate::core::tensor::stable_sort::sort_by_key(&mut problems, |d| d.line);
    problems
}

/// The code's statements: lines trimmed, comments and blank lines dropped (comments may be
/// translated).
fn normalize_code(code: &str) -> Vec<String> {
    code.lines()
        .map(|l| {
            let l = match l.find(" #") {
                Some(i) if !l[..i].contains(['\'', '"']) => &l[..i],
                _ => l,
            };
            l.trim().to_string()
        })
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The untranslated value of `key` in `q`, as text (absent keys are `None`).
fn graded_part(q: &Question, key: Key) -> Option<String> {
    match (key, &q.kind) {
        (Key::Answer, QuestionKind::Answer { expr } | QuestionKind::Choices { expr, .. })
        | (Key::Cells, QuestionKind::Cells { expr })
        | (Key::Task, QuestionKind::Task { expr, .. }) => Some(expr.clone()),
        (Key::Memory, QuestionKind::Memory { figure }) => Some(figure.name().to_string()),
        (Key::Choices, QuestionKind::Choices { literals, .. }) => Some(
            literals
                .iter()
                .map(Literal::to_string)
                .collect::<Vec<_>>()
                .join(" | "),
        ),
        (Key::Solution, QuestionKind::Task { solution, .. }) => Some(solution.clone()),
        (Key::Allocates, QuestionKind::Task { allocates, .. }) => allocates.map(|a| a.to_string()),
        (Key::Expect, _) => q.expect.as_ref().map(Literal::to_string),
        _ => None,
    }
}
