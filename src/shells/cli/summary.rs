//! `stridescope summary [--json] FILE`: a model's memory by layer, exact (issue 19's table).
//!
//! Runs the script as `stridescope trace` does and prints the trace's [`ModelSummary`]: one
//! row per module call (parameters and their bytes, output shape and bytes, bytes saved for
//! backward, the peak while it ran), then the totals for parameters, gradients, optimizer
//! state, activations and the run's peak. `--json` prints the summary as JSON instead.

use std::io::Write;

use crate::core::trace::{ModelSummary, Step, SummaryRow, Trace};
use crate::engines::CpuEngine;
use crate::interp::{Evaluator, Limits};
use crate::lang::parse_script;

/// The command's usage text.
pub const USAGE: &str = "usage: stridescope summary [--json] [--cuda] FILE\n\
\n\
summary: runs FILE (a PyTorch notebook script) and prints its model summary: one row per\n\
module call (layer, kind, parameters, parameter bytes, output shape, output bytes, bytes saved\n\
for backward, peak bytes while it ran), then the totals for parameters, gradients, optimizer\n\
state, activations (the most bytes saved for backward at once) and the run's peak. Bytes are\n\
exact, as PyTorch's CPU allocator counts them. --json prints the summary as JSON.\n\
--cuda runs FILE as on a (simulated) CUDA device, as `stridescope trace --cuda` does.\n\
A script that calls no module prints a one-line message (with --json: null) and exits 0;\n\
an unreadable file is exit 2, a syntax error exit 1.";

/// Runs `stridescope summary ARGS`; returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let mut json = false;
    let mut cuda = false;
    let mut file = None;
    for arg in args {
        match arg.as_str() {
            "--json" => json = true,
            "--cuda" => cuda = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return 0;
            }
            path if !path.starts_with('-') && file.is_none() => file = Some(path.to_string()),
            _ => {
                eprintln!("{USAGE}");
                return 2;
            }
        }
    }
    let Some(path) = file else {
        eprintln!("{USAGE}");
        return 2;
    };
    let source = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            eprintln!("stridescope: cannot read {path}: {e}");
            return 2;
        }
    };
    if let Some((line, col, message)) = first_syntax_error(&source) {
        eprintln!("stridescope: {path}:{line}:{col}: {message} (nothing was run)");
        return 1;
    }
    let mut evaluator = Evaluator::new(Box::new(CpuEngine::new()), Limits::default());
    evaluator.set_images(Box::new(super::images::FolderImages::for_script(
        path.as_ref(),
    )));
    evaluator.set_cuda_device(cuda);
    let trace = evaluator.run(&source);
    for step in trace.steps.iter().filter(|s| s.error.is_some()) {
        eprintln!(
            "stridescope: {path}:{}: {} (the summary covers what ran)",
            step.error_line.unwrap_or(step.line),
            step.error.as_deref().unwrap_or_default()
        );
    }
    let mut out = std::io::stdout().lock();
    let text = match (&trace.summary, json) {
        (Some(summary), true) => serde_json::to_string_pretty(summary).unwrap_or_default(),
        (Some(summary), false) => table(summary, peak_line(&trace)),
        (None, true) => {
            eprintln!("{}", no_module_message(&path));
            "null".to_string()
        }
        (None, false) => no_module_message(&path),
    };
    if writeln!(out, "{text}").is_err() {
        return 1;
    }
    0
}

/// The one line said when the script calls no module.
pub fn no_module_message(path: &str) -> String {
    format!("stridescope: {path} calls no nn.Module, so there is no model summary (trace it with `stridescope trace`)")
}

/// The first syntax error of `source`: its line, column and Python's text.
pub fn first_syntax_error(source: &str) -> Option<(usize, usize, String)> {
    parse_script(source).into_iter().find_map(|parsed| {
        parsed.err().map(|(line, e)| {
            let line = if e.pos.line > 0 { e.pos.line } else { line };
            (line, e.pos.col.max(1), e.to_string())
        })
    })
}

/// The line running at the run's highest peak (sub-steps included), when the trace has
/// memory figures.
pub fn peak_line(trace: &Trace) -> Option<usize> {
    fn walk<'a>(steps: &'a [Step], best: &mut Option<(u64, &'a Step)>) {
        for step in steps {
            if let Some(peak) = step.memory.as_ref().and_then(|m| m.peak_bytes) {
                if best.is_none_or(|(b, _)| peak > b) {
                    *best = Some((peak, step));
                }
            }
            walk(&step.substeps, best);
        }
    }
    let mut best = None;
    walk(&trace.steps, &mut best);
    best.map(|(_, step)| {
        step.memory
            .as_ref()
            .and_then(|m| m.peak_line)
            .unwrap_or(step.line)
    })
}

/// `80800` as `80,800`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A shape as `[64, 200]` (`[]` for a scalar, `-` for no tensor output).
fn shape_text(row: &SummaryRow) -> String {
    if row.output_shape.is_empty() && row.output_bytes == 0 {
        return "-".to_string();
    }
    let dims: Vec<String> = row.output_shape.iter().map(i64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// The summary as an aligned table with its totals; `peak_line` is where the peak was
/// reached, when known.
pub fn table(summary: &ModelSummary, peak_line: Option<usize>) -> String {
    const HEAD: [&str; 8] = [
        "Layer",
        "Kind",
        "Params",
        "Param bytes",
        "Output shape",
        "Output bytes",
        "Saved bytes",
        "Peak bytes",
    ];
    let rows: Vec<[String; 8]> = summary
        .rows
        .iter()
        .map(|r| {
            let name = if r.layer.is_empty() {
                "(model)"
            } else {
                &r.layer
            };
            [
                format!("{}{name}", "  ".repeat(r.depth)),
                r.kind.clone(),
                grouped(r.params),
                grouped(r.param_bytes),
                shape_text(r),
                grouped(r.output_bytes),
                grouped(r.saved_bytes),
                grouped(r.peak_bytes),
            ]
        })
        .collect();
    let mut widths = HEAD.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 8]| -> String {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            // Text columns to the left, numbers to the right.
            if i < 2 || i == 4 {
                s.push_str(&format!("{cell:<w$}"));
            } else {
                s.push_str(&format!("{cell:>w$}"));
            }
        }
        s.trim_end().to_string()
    };
    let mut out = String::new();
    out.push_str(&line(&HEAD.map(String::from)));
    out.push('\n');
    let total_width: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
    out.push_str(&"-".repeat(total_width));
    out.push('\n');
    for row in &rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    out.push_str(&"-".repeat(total_width));
    out.push('\n');
    let peak_note = peak_line
        .map(|l| format!("  at line {l}"))
        .unwrap_or_default();
    let totals: [(&str, u64, String); 5] = [
        ("Parameters", summary.parameter_bytes, String::new()),
        ("Gradients", summary.gradient_bytes, String::new()),
        (
            "Optimizer state",
            summary.optimizer_state_bytes,
            String::new(),
        ),
        (
            "Activations",
            summary.activation_bytes,
            "  saved for backward, most at once".to_string(),
        ),
        ("Peak", summary.peak_bytes, peak_note),
    ];
    let number_width = totals
        .iter()
        .map(|(_, b, _)| grouped(*b).len())
        .max()
        .unwrap_or(1);
    for (label, bytes, note) in &totals {
        out.push_str(&format!(
            "{label:<15}  {:>number_width$} B  ({}){note}\n",
            grouped(*bytes),
            crate::core::print::human_bytes(*bytes)
        ));
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(layer: &str, kind: &str, depth: usize, params: u64, shape: &[i64]) -> SummaryRow {
        SummaryRow {
            layer: layer.to_string(),
            kind: kind.to_string(),
            depth,
            params,
            param_bytes: params * 4,
            output_shape: shape.to_vec(),
            output_bytes: shape.iter().product::<i64>() as u64 * 4,
            saved_bytes: 0,
            peak_bytes: 0,
            line: 7,
        }
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(80800), "80,800");
        assert_eq!(grouped(216840), "216,840");
        assert_eq!(grouped(66060288), "66,060,288");
    }

    #[test]
    fn the_table_is_aligned_with_its_totals() {
        let summary = ModelSummary {
            rows: vec![
                row("", "Sequential", 0, 22210, &[64, 10]),
                row("0", "Linear", 1, 20200, &[64, 200]),
                row("1", "ReLU", 1, 0, &[64, 200]),
                row("2", "Linear", 1, 2010, &[64, 10]),
            ],
            parameter_bytes: 88840,
            gradient_bytes: 88840,
            optimizer_state_bytes: 0,
            activation_bytes: 76800,
            peak_bytes: 216840,
        };
        let text = table(&summary, Some(7));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("Layer"));
        assert!(lines[0].contains("Saved bytes"));
        assert!(lines[2].starts_with("(model)"));
        assert!(lines[3].starts_with("  0 "), "{}", lines[3]);
        assert!(lines[3].contains("80,800"));
        assert!(lines[3].contains("[64, 200]"));
        assert!(lines[3].contains("51,200"));
        // Every row's columns line up: the output shape starts at the same column.
        let col = lines[2].find("[64, 10]").unwrap();
        assert_eq!(lines[3].find("[64, 200]"), Some(col));
        assert!(
            text.contains("\nParameters        88,840 B  (86.8 KiB)\n"),
            "{text}"
        );
        assert!(
            text.contains("\nOptimizer state        0 B  (0 B)\n"),
            "{text}"
        );
        assert!(
            text.ends_with("\nPeak             216,840 B  (211.8 KiB)  at line 7"),
            "{text}"
        );
    }

    #[test]
    fn a_syntax_error_is_found_before_anything_runs() {
        let (line, _, message) = first_syntax_error("a = 1\nb = (\nc = 2\n").unwrap();
        assert!(line >= 2, "line {line}");
        assert!(message.starts_with("SyntaxError"), "{message}");
        assert!(first_syntax_error("a = 1\n").is_none());
    }
}
