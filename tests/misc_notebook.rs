//! What notebooks about tensor memory do beyond torch itself: the standard-library modules
//! at their top (`os`, `sys`, `warnings`, `random`, `time`, `copy`, `gc`, `itertools`,
//! `functools`), writes through storages, `dir(tensor)` and `format` of 0-d tensors.
//!
//! `tests/fixtures/misc/cases.torch.jsonl` holds the scripts of `cases.jsonl` beside it,
//! recorded with `tools/oracle/record.py` from PyTorch 2.15 on CPython 3.11 (outputs, error
//! texts, every tensor's layout and values, which tensors share a storage).

mod common;

use stridescope::interp::trace_script;

#[test]
fn misc_notebook_scripts_trace_as_pytorch_recorded() {
    let cases = common::read_cases(&common::fixture("misc/cases.torch.jsonl"));
    assert!(cases.len() >= 7, "recorded cases missing");
    let mut problems = Vec::new();
    let mut steps = 0;
    for case in &cases {
        let result = common::compare_case(case);
        steps += result.expected_steps;
        problems.extend(result.problems());
    }
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch in {steps} steps:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn an_ignore_filter_drops_the_warnings_after_it() {
    let trace = trace_script(
        "t = torch.arange(3.)\nimport warnings\nwarnings.filterwarnings(\"ignore\")\ns = t.storage()\nwarnings.warn(\"shown?\")",
    );
    assert!(trace.steps.iter().all(|s| s.warnings.is_empty()));
    let trace = trace_script("import warnings\nwarnings.warn(\"careful\")");
    assert_eq!(
        trace.steps[1].warnings,
        vec!["UserWarning: careful".to_string()]
    );
    let trace = trace_script(
        "import warnings\nwarnings.simplefilter(\"ignore\", FutureWarning)\nwarnings.warn(\"still here\")",
    );
    assert_eq!(
        trace.steps[2].warnings,
        vec!["UserWarning: still here".to_string()]
    );
}

#[test]
fn the_clock_is_the_same_every_run() {
    let script = "import time\na = time.time()\nb = time.perf_counter()\ntime.sleep(0.5)\nprint(time.perf_counter() - b >= 0.5)";
    let first = trace_script(script);
    assert_eq!(first.steps[4].output.as_deref(), Some("True"));
    let again = trace_script(script);
    assert_eq!(
        serde_json::to_string(&first.steps).ok(),
        serde_json::to_string(&again.steps).ok()
    );
}

#[test]
fn unknown_names_of_these_modules_are_python_errors() {
    let trace = trace_script("import os\nos.nothing_here\nimport gc\nprint(gc.collect())");
    assert_eq!(
        trace.steps[1].error.as_deref(),
        Some("AttributeError: module 'os' has no attribute 'nothing_here'")
    );
    assert_eq!(trace.steps[3].output.as_deref(), Some("0"));
    let trace = trace_script("import shutil");
    assert_eq!(
        trace.steps[0].error.as_deref(),
        Some("ModuleNotFoundError: No module named 'shutil'")
    );
}
