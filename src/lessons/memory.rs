//! `memory:` questions: the student types one of the memory figures of the last statement
//! run above the question (live bytes after it, its peak, the bytes autograd keeps, ...),
//! graded against the evaluator's accounting ([`StepMemory`], the trace's `memory` object).

use serde::Serialize;

use crate::core::trace::{MemoryCategory, Step, StepMemory};

/// A figure of a step's memory that a `memory:` question asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryFigure {
    /// `live_bytes`: bytes of every storage the script can still reach after the statement.
    LiveBytes,
    /// `peak_bytes`: the most bytes alive at once while the statement ran.
    PeakBytes,
    /// `saved_bytes`: bytes kept only for backward (the `saved` category: storages autograd's
    /// nodes hold that are not parameters, buffers, gradients or optimizer state).
    SavedBytes,
    /// `saved_tensors`: how many tensors the graph's nodes saved for backward.
    SavedTensors,
    /// `parameter_bytes`, `buffer_bytes`, `gradient_bytes`, `optimizer_state_bytes`,
    /// `variable_bytes`, `other_bytes`: the live bytes of one category.
    Category(MemoryCategory),
}

impl MemoryFigure {
    /// Every figure, in the order LESSONS.md lists them.
    pub const ALL: [MemoryFigure; 10] = [
        MemoryFigure::LiveBytes,
        MemoryFigure::PeakBytes,
        MemoryFigure::SavedBytes,
        MemoryFigure::SavedTensors,
        MemoryFigure::Category(MemoryCategory::Parameter),
        MemoryFigure::Category(MemoryCategory::Buffer),
        MemoryFigure::Category(MemoryCategory::Gradient),
        MemoryFigure::Category(MemoryCategory::OptimizerState),
        MemoryFigure::Category(MemoryCategory::Variable),
        MemoryFigure::Category(MemoryCategory::Other),
    ];

    /// The figure as written after `memory:`.
    pub fn name(self) -> &'static str {
        match self {
            MemoryFigure::LiveBytes => "live_bytes",
            MemoryFigure::PeakBytes => "peak_bytes",
            MemoryFigure::SavedBytes | MemoryFigure::Category(MemoryCategory::Saved) => {
                "saved_bytes"
            }
            MemoryFigure::SavedTensors => "saved_tensors",
            MemoryFigure::Category(MemoryCategory::Parameter) => "parameter_bytes",
            MemoryFigure::Category(MemoryCategory::Buffer) => "buffer_bytes",
            MemoryFigure::Category(MemoryCategory::Gradient) => "gradient_bytes",
            MemoryFigure::Category(MemoryCategory::OptimizerState) => "optimizer_state_bytes",
            MemoryFigure::Category(MemoryCategory::Variable) => "variable_bytes",
            MemoryFigure::Category(MemoryCategory::Other) => "other_bytes",
        }
    }

    /// The figure written `name`, if any.
    pub fn from_name(name: &str) -> Option<MemoryFigure> {
        MemoryFigure::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Every figure's name, for messages (`live_bytes, peak_bytes, ...`).
    pub fn names() -> String {
        MemoryFigure::ALL
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The figure's value in `memory`; `None` when the accounting has no such figure (a peak
    /// that was not measured).
    pub fn of(self, memory: &StepMemory) -> Option<u64> {
        let category = |c: MemoryCategory| memory.categories.get(&c).copied().unwrap_or(0);
        match self {
            MemoryFigure::LiveBytes => Some(memory.live_bytes),
            MemoryFigure::PeakBytes => memory.peak_bytes,
            MemoryFigure::SavedBytes => Some(category(MemoryCategory::Saved)),
            MemoryFigure::SavedTensors => Some(memory.saved.len() as u64),
            MemoryFigure::Category(c) => Some(category(c)),
        }
    }
}

/// Why a memory figure cannot be read where a question stands.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// No statement runs above the question.
    #[error("a memory question asks about the statement run last above it, and no code runs above this one")]
    NoStatement,
    /// The evaluator recorded no memory accounting for that statement.
    #[error("the engine recorded no memory figures for line {line} (`{source_text}`), so `{figure}` cannot be graded yet")]
    NotRecorded {
        /// The statement's line in the lesson file.
        line: usize,
        /// The statement.
        source_text: String,
        /// The figure asked for.
        figure: &'static str,
    },
    /// The accounting has no such figure for that statement.
    #[error("the engine recorded no {figure} for line {line}")]
    NoFigure {
        /// The statement's line in the lesson file.
        line: usize,
        /// The figure asked for.
        figure: &'static str,
    },
}

/// `figure` of `step` (the last statement run above a question).
pub fn figure_of(step: Option<&Step>, figure: MemoryFigure) -> Result<u64, MemoryError> {
    let step = step.ok_or(MemoryError::NoStatement)?;
    let memory = step
        .memory
        .as_ref()
        .ok_or_else(|| MemoryError::NotRecorded {
            line: step.line,
            source_text: step.source.clone(),
            figure: figure.name(),
        })?;
    figure.of(memory).ok_or(MemoryError::NoFigure {
        line: step.line,
        figure: figure.name(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> StepMemory {
        let mut m = StepMemory {
            live_bytes: 168_200,
            peak_bytes: Some(216_840),
            ..StepMemory::default()
        };
        m.categories.insert(MemoryCategory::Parameter, 88_840);
        m.categories.insert(MemoryCategory::Saved, 76_800);
        m.categories.insert(MemoryCategory::Variable, 2_560);
        m
    }

    #[test]
    fn every_figure_has_a_name_that_reads_back() {
        for figure in MemoryFigure::ALL {
            assert_eq!(MemoryFigure::from_name(figure.name()), Some(figure));
        }
        assert_eq!(MemoryFigure::from_name("bytes"), None);
        assert!(MemoryFigure::names().starts_with("live_bytes, peak_bytes"));
    }

    #[test]
    fn figures_read_the_accounting() {
        let m = memory();
        assert_eq!(MemoryFigure::LiveBytes.of(&m), Some(168_200));
        assert_eq!(MemoryFigure::PeakBytes.of(&m), Some(216_840));
        assert_eq!(MemoryFigure::SavedBytes.of(&m), Some(76_800));
        assert_eq!(
            MemoryFigure::Category(MemoryCategory::Parameter).of(&m),
            Some(88_840)
        );
        // A category with nothing in it is 0 bytes, not an error.
        assert_eq!(
            MemoryFigure::Category(MemoryCategory::Gradient).of(&m),
            Some(0)
        );
        assert_eq!(MemoryFigure::SavedTensors.of(&m), Some(0));
        let no_peak = StepMemory {
            peak_bytes: None,
            ..memory()
        };
        assert_eq!(MemoryFigure::PeakBytes.of(&no_peak), None);
    }

    #[test]
    fn a_step_without_accounting_is_named() {
        let step = Step {
            line: 9,
            source: "y = model(x)".to_string(),
            ..Step::default()
        };
        assert_eq!(
            figure_of(None, MemoryFigure::LiveBytes),
            Err(MemoryError::NoStatement)
        );
        let e = figure_of(Some(&step), MemoryFigure::LiveBytes).unwrap_err();
        assert!(e.to_string().contains("line 9"), "{e}");
        let step = Step {
            memory: Some(memory()),
            ..step
        };
        assert_eq!(figure_of(Some(&step), MemoryFigure::PeakBytes), Ok(216_840));
    }
}
