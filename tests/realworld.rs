//! The real-notebook corpus (issue 9, "Real notebooks run"): `tests/fixtures/realworld.torch.jsonl`,
//! the `>>>` examples of torch 2.15's own docstrings (`doc-<op>`) and cells students paste from
//! the Tensors tutorial, the Tensor Views page, the channels_last tutorial and course articles
//! on strides (`student-<name>`), recorded from real PyTorch by `tools/oracle/realworld.sh`.
//!
//! Each case is traced in-process and compared step by step with the same comparison as
//! `torch_recorded.rs` (`common/mod.rs`).  The test prints the figures and the first failures,
//! and asserts a floor: steps exact >= 97%, and every error text exactly PyTorch's.
//!
//!     cargo test --release --test realworld -- --nocapture
//!
//! On 2026-11-23: 1453/1463 steps exact (99.3%), error text 71/71.

mod common;

use serde_json::Value;
use std::sync::mpsc;
use std::time::Duration;

/// Steps that must match exactly, in percent.
const STEPS_FLOOR: f64 = 97.0;
/// A case that traces longer than this counts as failing (a loop that never ends).
const CASE_TIMEOUT: Duration = Duration::from_secs(20);
/// Failing steps printed.
const SHOW: usize = 40;

/// Traces one case on its own thread, so that a panic or a hang fails that case only.
fn run_case(case: &Value) -> common::CaseResult {
    let (tx, rx) = mpsc::channel();
    let script = case["script"].as_str().unwrap_or("").to_string();
    std::thread::spawn(move || {
        let trace =
            std::panic::catch_unwind(|| stridescope::interp::trace_script(&script).to_json());
        let _ = tx.send(trace);
    });
    let trace = match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Ok(json)) => serde_json::from_str::<Value>(&json).ok(),
        Ok(Err(_)) | Err(_) => None,
    };
    let mut result = common::compare_trace(case, trace.as_ref());
    if trace.is_none() {
        result.case_problem = Some(format!(
            "{}: no trace (panicked, or ran past {CASE_TIMEOUT:?})",
            result.id
        ));
    }
    result
}

#[test]
fn real_notebooks_trace_as_pytorch() {
    let cases = common::read_cases(&common::fixture("realworld.torch.jsonl"));
    assert!(!cases.is_empty(), "no cases in realworld.torch.jsonl");
    let (mut steps, mut steps_ok, mut errors, mut errors_exact) = (0, 0, 0, 0);
    let (mut cases_ok, mut doc_ok, mut doc_cases) = (0, 0, 0);
    let mut failures: Vec<String> = Vec::new();
    for case in &cases {
        let r = run_case(case);
        steps += r.expected_steps;
        errors += r.expected_errors;
        let mut all_ok = r.case_problem.is_none();
        if let Some(p) = &r.case_problem {
            failures.push(p.clone());
        }
        for s in &r.steps {
            if s.problems.is_empty() {
                steps_ok += 1;
            } else {
                all_ok = false;
                failures.push(format!("{}: {}", s.at, s.problems.join("; ")));
            }
            if s.expected_error.is_some() && s.error_exact {
                errors_exact += 1;
            }
        }
        cases_ok += usize::from(all_ok);
        if r.id.starts_with("doc-") {
            doc_cases += 1;
            doc_ok += usize::from(all_ok);
        }
    }
    let pct = |x: usize, y: usize| {
        if y == 0 {
            100.0
        } else {
            100.0 * x as f64 / y as f64
        }
    };
    println!("first failures:");
    for f in failures.iter().take(SHOW) {
        let short: String = f.chars().take(400).collect();
        println!("  {short}");
    }
    println!(
        "realworld: {} cases ({doc_cases} doc-*, {} student-*), {cases_ok} fully exact ({doc_ok} doc-*)",
        cases.len(),
        cases.len() - doc_cases
    );
    println!(
        "steps exact: {steps_ok}/{steps} ({:.1}%)",
        pct(steps_ok, steps)
    );
    println!(
        "error text exact: {errors_exact}/{errors} ({:.1}%)",
        pct(errors_exact, errors)
    );
    assert!(
        pct(steps_ok, steps) >= STEPS_FLOOR,
        "steps exact {:.1}% is below the floor of {STEPS_FLOOR}%",
        pct(steps_ok, steps)
    );
    assert_eq!(
        errors_exact, errors,
        "every error text must be exactly PyTorch's"
    );
}
