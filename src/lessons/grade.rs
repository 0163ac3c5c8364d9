//! Grading: a [`LessonSession`] runs a lesson's code blocks in order on one evaluator, as
//! the app runs a script, and grades each question on the state after the code blocks above
//! it. Every verdict comes with [`Feedback`] computed from the engine: a structured value
//! that the player translates, and whose `Display` is the English the CLI prints.

use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;

use crate::core::trace::Step;
use crate::engines::CpuEngine;
use crate::interp::session::{python_eq, EvalError};
use crate::interp::{Evaluator, Limits, Value};
use crate::lessons::literal::{Literal, LiteralError};
use crate::lessons::memory::{figure_of, MemoryError, MemoryFigure};
use crate::lessons::model::{Block, Lesson, QuestionKind};

/// The most cells a `cells` question may ask for.
pub const MAX_CELLS: usize = 4096;

/// What the student gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// The text typed for an `answer` question.
    Text(String),
    /// The index of the choice picked in a `choices` question.
    Choice(usize),
    /// The storage offsets clicked in a `cells` question.
    Cells(Vec<i64>),
    /// The code written for a `task` question (run after the lesson's code above it).
    Code(String),
}

/// The verdict on one response.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grade {
    /// Whether the response is right.
    pub correct: bool,
    /// Why it is wrong (most specific first); empty when right.
    pub feedback: Vec<Feedback>,
    /// The right answer as Python writes it (the player shows it once hints are spent).
    pub expected: Option<String>,
    /// The response as Python writes it, when it was a value.
    pub given: Option<String>,
}

/// What is wrong with a response, computed from the engine. The player translates these;
/// `Display` is the English for the CLI.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Feedback {
    /// The typed text is not a Python literal.
    NotALiteral {
        /// Why (the message names the offending part).
        error: LiteralError,
    },
    /// The value given is the `attribute` of variable `name` (`You gave a's stride`).
    GaveOtherValue {
        /// The variable.
        name: String,
        /// `shape`, `stride`, `storage_offset`, `numel`, `nbytes` or `dtype`.
        attribute: String,
    },
    /// The right values, in reverse order (a classic with strides).
    Reversed,
    /// The same items in another container: a list is never equal to a tuple in Python.
    WrongType {
        /// Python's type name of what was given (`list`).
        given: String,
        /// Python's type name of the answer (`tuple`).
        expected: String,
    },
    /// The value given differs from the answer (side by side).
    NotEqual {
        /// The answer.
        expected: String,
        /// What was given.
        given: String,
    },
    /// Storage cells clicked that the view does not read, and cells it reads that were not
    /// clicked.
    WrongCells {
        /// Offsets the view reads that were not clicked.
        missing: Vec<i64>,
        /// Offsets clicked that the view does not read.
        extra: Vec<i64>,
    },
    /// The student's code raised (PyTorch's text), at its `line` (1-based, in their code).
    TaskError {
        /// The line of the student's code.
        line: usize,
        /// The exception as Python prints it.
        error: String,
    },
    /// The task's check is not `True` after the student's code.
    TaskCheckFailed {
        /// The check.
        expr: String,
    },
    /// The task's check raised after the student's code (a name it needs is not defined).
    TaskCheckRaised {
        /// The check.
        expr: String,
        /// The exception as Python prints it.
        error: String,
    },
    /// The student's code allocated `bytes`, but the task asks for exactly `expected`.
    TaskAllocated {
        /// Bytes the student's code allocated (temporaries included).
        bytes: u64,
        /// Bytes the task allows.
        expected: u64,
    },
}

impl fmt::Display for Feedback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Feedback::NotALiteral { error } => write!(f, "{error}"),
            Feedback::GaveOtherValue { name, attribute } => {
                write!(f, "You gave {name}'s {attribute}.")
            }
            Feedback::Reversed => f.write_str("You gave the right values in reverse order."),
            Feedback::WrongType { given, expected } => write!(
                f,
                "You gave a {given}; the answer is a {expected}, and in Python a {given} never equals a {expected}."
            ),
            Feedback::NotEqual { expected, given } => {
                write!(f, "You gave {given}; the engine says {expected}.")
            }
            Feedback::WrongCells { missing, extra } => {
                let list = |v: &[i64]| {
                    v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                };
                match (missing.is_empty(), extra.is_empty()) {
                    (false, false) => write!(
                        f,
                        "The view also reads cells {}, and it does not read cells {}.",
                        list(missing),
                        list(extra)
                    ),
                    (false, true) => write!(f, "The view also reads cells {}.", list(missing)),
                    (true, false) => {
                        write!(f, "The view does not read cells {}.", list(extra))
                    }
                    (true, true) => f.write_str("These are the cells the view reads."),
                }
            }
            Feedback::TaskError { line, error } => {
                write!(f, "Your code raised, at its line {line}: {error}")
            }
            Feedback::TaskCheckFailed { expr } => {
                write!(f, "Not yet: after your code, `{expr}` is not True.")
            }
            Feedback::TaskCheckRaised { expr, error } => {
                write!(f, "After your code, `{expr}` raised: {error}")
            }
            Feedback::TaskAllocated { bytes, expected } => {
                if *expected == 0 {
                    write!(f, "Your code copied: +{bytes} B. This task can be done without allocating.")
                } else {
                    write!(f, "Your code allocated +{bytes} B; the task takes exactly {expected} B.")
                }
            }
        }
    }
}

/// Why a question could not be graded: the lesson is at fault (the checker reports these at
/// the question's line), or the response does not fit the question.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GradeError {
    /// There is no question at that block.
    #[error("block {index} is not a question")]
    NoSuchQuestion {
        /// The block index.
        index: usize,
    },
    /// A response of another kind than the question's.
    #[error("a {kind} question takes another kind of response")]
    WrongResponse {
        /// The question's kind.
        kind: &'static str,
    },
    /// A choice index past the last choice.
    #[error("there is no choice {index}")]
    NoSuchChoice {
        /// The index given.
        index: usize,
    },
    /// The question's expression does not evaluate.
    #[error("`{expr}` does not evaluate here: {error}")]
    Expr {
        /// The expression.
        expr: String,
        /// Why.
        error: EvalError,
    },
    /// An `answer` whose value is not something a student can type.
    #[error("`{expr}` gives a {type_name}, which a student cannot type; ask for a plain value (`.tolist()`, `.item()`, `.shape`)")]
    NotAValue {
        /// The expression.
        expr: String,
        /// Python's type name of its value.
        type_name: String,
    },
    /// A `cells` expression that is not a tensor.
    #[error("`{expr}` gives a {type_name}, not a tensor whose cells can be clicked")]
    NotAView {
        /// The expression.
        expr: String,
        /// Python's type name of its value.
        type_name: String,
    },
    /// A `memory` question whose figure cannot be read where it stands.
    #[error("{0}")]
    Memory(MemoryError),
    /// A `cells` view with more than [`MAX_CELLS`] elements.
    #[error("`{expr}` reads {elements} elements; a cells question asks for at most {max}", max = MAX_CELLS)]
    TooManyCells {
        /// The expression.
        expr: String,
        /// Its number of elements.
        elements: i64,
    },
}

/// A code block's run: its block index and its steps, their lines in the lesson file.
#[derive(Clone, Debug)]
pub struct CodeRun {
    /// Index of the code block in [`Lesson::blocks`].
    pub block: usize,
    /// One step per statement; `line` is the line in the lesson file.
    pub steps: Vec<Step>,
}

/// The storage cells a `cells` question is about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CellsTarget {
    /// The storage's id, as in the trace's `storages`.
    pub storage: String,
    /// The offsets the view reads, ascending, each once.
    pub offsets: Vec<i64>,
}

/// A lesson being played (or checked): one evaluator that has run the lesson's code blocks
/// up to some block.
pub struct LessonSession {
    lesson: Lesson,
    evaluator: Evaluator,
    /// Blocks `0..ran` have been run.
    ran: usize,
    runs: Vec<CodeRun>,
}

/// The attributes compared for [`Feedback::GaveOtherValue`], with the code that reads them.
const ATTRIBUTES: [(&str, &str); 6] = [
    ("stride", "stride()"),
    ("shape", "shape"),
    ("storage_offset", "storage_offset()"),
    ("numel", "numel()"),
    ("nbytes", "nbytes"),
    ("dtype", "dtype"),
];

fn new_evaluator() -> Evaluator {
    Evaluator::new(Box::new(CpuEngine::new()), Limits::default())
}

impl LessonSession {
    /// A session at the start of `lesson` (nothing run yet).
    pub fn new(lesson: Lesson) -> LessonSession {
        LessonSession {
            lesson,
            evaluator: new_evaluator(),
            ran: 0,
            runs: Vec::new(),
        }
    }

    /// The lesson.
    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    /// Runs the code blocks above block `index` (starting over when the session has gone
    /// further), and returns every code block's run so far.
    pub fn run_until(&mut self, index: usize) -> &[CodeRun] {
        if index < self.ran {
            self.evaluator = new_evaluator();
            self.ran = 0;
            self.runs.clear();
        }
        let end = index.min(self.lesson.blocks.len());
        while self.ran < end {
            if let Block::Code { source, line } = &self.lesson.blocks[self.ran] {
                let mut steps = self.evaluator.run(source).steps;
                for step in &mut steps {
                    step.line += line;
                }
                self.runs.push(CodeRun {
                    block: self.ran,
                    steps,
                });
            }
            self.ran += 1;
        }
        &self.runs
    }

    /// Runs every code block of the lesson.
    pub fn run_all(&mut self) -> &[CodeRun] {
        self.run_until(self.lesson.blocks.len())
    }

    fn question(&self, index: usize) -> Result<QuestionKind, GradeError> {
        match self.lesson.blocks.get(index) {
            Some(Block::Question(q)) => Ok(q.kind.clone()),
            _ => Err(GradeError::NoSuchQuestion { index }),
        }
    }

    /// The value of `expr` on the state before block `index`.
    pub fn value_at(&mut self, index: usize, expr: &str) -> Result<Value, GradeError> {
        self.run_until(index);
        self.evaluator
            .evaluate(expr)
            .map_err(|error| GradeError::Expr {
                expr: expr.to_string(),
                error,
            })
    }

    /// `figure` of the last statement run above block `index` (from the trace's memory
    /// accounting).
    pub fn memory_figure(&mut self, index: usize, figure: MemoryFigure) -> Result<u64, GradeError> {
        let runs = self.run_until(index);
        let last = runs.iter().rev().find_map(|run| run.steps.last());
        figure_of(last, figure).map_err(GradeError::Memory)
    }

    /// The answer of the `answer`, `choices` or `memory` question at block `index`, as a
    /// literal.
    pub fn expected_literal(&mut self, index: usize) -> Result<Literal, GradeError> {
        let kind = self.question(index)?;
        if let QuestionKind::Memory { figure } = kind {
            let bytes = self.memory_figure(index, figure)?;
            return Ok(Literal::Int(i64::try_from(bytes).unwrap_or(i64::MAX)));
        }
        let expr = kind.expr().to_string();
        let value = self.value_at(index, &expr)?;
        Literal::from_value(&value).ok_or(GradeError::NotAValue {
            expr,
            type_name: value.type_name().into_owned(),
        })
    }

    /// The cells the `cells` question at block `index` is about.
    pub fn cells_target(&mut self, index: usize) -> Result<CellsTarget, GradeError> {
        let kind = self.question(index)?;
        let expr = kind.expr().to_string();
        let value = self.value_at(index, &expr)?;
        let Some(tensor) = value.as_tensor() else {
            return Err(GradeError::NotAView {
                expr,
                type_name: value.type_name().into_owned(),
            });
        };
        let elements = tensor.numel();
        if elements > MAX_CELLS as i64 {
            return Err(GradeError::TooManyCells { expr, elements });
        }
        let offsets: BTreeSet<i64> = tensor.layout.offsets().collect();
        Ok(CellsTarget {
            storage: tensor.storage.to_string(),
            offsets: offsets.into_iter().collect(),
        })
    }

    /// Grades `response` to the question at block `index`.
    pub fn grade(&mut self, index: usize, response: &Response) -> Result<Grade, GradeError> {
        let kind = self.question(index)?;
        match (&kind, response) {
            (QuestionKind::Answer { .. } | QuestionKind::Memory { .. }, Response::Text(text)) => {
                let expected = self.expected_literal(index)?;
                Ok(match Literal::parse(text) {
                    Ok(given) => self.compare(index, &expected, &given),
                    Err(error) => Grade {
                        correct: false,
                        feedback: vec![Feedback::NotALiteral { error }],
                        expected: Some(expected.to_string()),
                        given: None,
                    },
                })
            }
            (QuestionKind::Choices { literals, .. }, Response::Choice(choice)) => {
                let given = literals
                    .get(*choice)
                    .cloned()
                    .ok_or(GradeError::NoSuchChoice { index: *choice })?;
                let expected = self.expected_literal(index)?;
                Ok(self.compare(index, &expected, &given))
            }
            (QuestionKind::Cells { .. }, Response::Cells(clicked)) => {
                let target = self.cells_target(index)?;
                let clicked: BTreeSet<i64> = clicked.iter().copied().collect();
                let want: BTreeSet<i64> = target.offsets.iter().copied().collect();
                let missing: Vec<i64> = want.difference(&clicked).copied().collect();
                let extra: Vec<i64> = clicked.difference(&want).copied().collect();
                let correct = missing.is_empty() && extra.is_empty();
                let show = |s: &BTreeSet<i64>| {
                    let items: Vec<String> = s.iter().map(i64::to_string).collect();
                    format!("[{}]", items.join(", "))
                };
                Ok(Grade {
                    correct,
                    feedback: if correct {
                        Vec::new()
                    } else {
                        vec![Feedback::WrongCells { missing, extra }]
                    },
                    expected: Some(show(&want)),
                    given: Some(show(&clicked)),
                })
            }
            (
                QuestionKind::Task {
                    expr, allocates, ..
                },
                Response::Code(code),
            ) => Ok(self.grade_task(index, expr, *allocates, code)),
            _ => Err(GradeError::WrongResponse { kind: kind.name() }),
        }
    }

    /// Runs `code` after the lesson's code above block `index`, on a separate evaluator (the
    /// session's state stays as the lesson left it), and checks `expr` and the bytes.
    fn grade_task(
        &mut self,
        index: usize,
        expr: &str,
        allocates: Option<u64>,
        code: &str,
    ) -> Grade {
        let mut evaluator = new_evaluator();
        evaluator.run(&self.lesson.script_before(index));
        let steps = evaluator.run(code).steps;
        let mut feedback = Vec::new();
        if let Some(step) = steps.iter().find(|s| s.error.is_some()) {
            feedback.push(Feedback::TaskError {
                line: step.line,
                error: step.error.clone().unwrap_or_default(),
            });
        }
        let bytes: u64 = steps.iter().map(|s| s.allocated_bytes as u64).sum();
        match evaluator.evaluate(expr) {
            Ok(Value::Bool(true)) => {}
            Ok(_) => feedback.push(Feedback::TaskCheckFailed {
                expr: expr.to_string(),
            }),
            Err(error) => feedback.push(Feedback::TaskCheckRaised {
                expr: expr.to_string(),
                error: error.to_string(),
            }),
        }
        if let Some(expected) = allocates {
            if bytes != expected {
                feedback.push(Feedback::TaskAllocated { bytes, expected });
            }
        }
        Grade {
            correct: feedback.is_empty(),
            feedback,
            expected: None,
            given: None,
        }
    }

    /// Compares a given literal with the answer, and explains a difference.
    fn compare(&mut self, index: usize, expected: &Literal, given: &Literal) -> Grade {
        let want = expected.to_value();
        let got = given.to_value();
        let mut grade = Grade {
            correct: python_eq(&want, &got),
            feedback: Vec::new(),
            expected: Some(expected.to_string()),
            given: Some(given.to_string()),
        };
        if grade.correct {
            return grade;
        }
        if let Some((name, attribute)) = self.whose_value(index, &got) {
            grade
                .feedback
                .push(Feedback::GaveOtherValue { name, attribute });
        }
        let items = |l: &Literal| match l {
            Literal::Tuple(v) | Literal::List(v) => Some(v.clone()),
            Literal::Size(d) => Some(d.iter().map(|&i| Literal::Int(i)).collect()),
            _ => None,
        };
        if let (Some(w), Some(g)) = (items(expected), items(given)) {
            let seq = |v: Vec<Literal>| Value::Tuple(v.iter().map(Literal::to_value).collect());
            let reversed: Vec<Literal> = g.iter().rev().cloned().collect();
            if python_eq(&seq(w.clone()), &seq(g.clone())) {
                grade.feedback.push(Feedback::WrongType {
                    given: got.type_name().to_string(),
                    expected: want.type_name().to_string(),
                });
            } else if w.len() > 1 && python_eq(&seq(w), &seq(reversed)) {
                grade.feedback.push(Feedback::Reversed);
            }
        }
        grade.feedback.push(Feedback::NotEqual {
            expected: expected.to_string(),
            given: given.to_string(),
        });
        grade
    }

    /// The first tensor variable whose shape, stride, ... equals `value`.
    fn whose_value(&mut self, index: usize, value: &Value) -> Option<(String, String)> {
        self.run_until(index);
        let names: Vec<String> = self
            .evaluator
            .variables()
            .into_iter()
            .filter(|(_, v)| matches!(v, Value::Tensor(_)))
            .map(|(n, _)| n)
            .collect();
        for name in names {
            for (attribute, code) in ATTRIBUTES {
                if let Ok(v) = self.evaluator.evaluate(&format!("{name}.{code}")) {
                    if same_class(&v, value) && python_eq(&v, value) {
                        return Some((name, attribute.to_string()));
                    }
                }
            }
        }
        None
    }
}

/// Whether two values are of one kind for [`Feedback::GaveOtherValue`]: a bool is never
/// "a's numel", though `True == 1` in Python.
fn same_class(a: &Value, b: &Value) -> bool {
    let class = |v: &Value| match v {
        Value::Int(_) => 1,
        Value::Tuple(_) | Value::Size(_) => 2,
        Value::DType(_) => 3,
        _ => 0,
    };
    class(a) != 0 && class(a) == class(b)
}
