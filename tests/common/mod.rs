//! The comparison of a trace with a case recorded from real PyTorch (`tools/oracle/record.py`,
//! the schema of `../shared/oracle/cases.jsonl`), shared by `torch_recorded.rs` (every case must
//! match) and `realworld.rs` (the real-notebook corpus and its figures).
//!
//! A step matches when its error text, its output text and, for every tensor variable, the
//! name and order, dtype, shape, strides, offset, storage size, contiguity, values (floats
//! within the oracle's tolerances) and which variables share a storage are PyTorch's.

#![allow(dead_code)] // each test binary uses its own part

use serde_json::Value;
use std::path::{Path, PathBuf};

fn tolerance(dtype: &str) -> Option<f64> {
    match dtype {
        "float16" => Some(1e-3),
        "bfloat16" => Some(1e-2),
        "float32" => Some(1e-5),
        "float64" => Some(1e-9),
        _ => None,
    }
}

fn values_match(dtype: &str, expected: &Value, got: &Value) -> bool {
    if expected.is_null() {
        return got.is_null(); // a meta tensor has no values (check.py's rule)
    }
    let (Some(e), Some(g)) = (expected.as_array(), got.as_array()) else {
        return false;
    };
    e.len() == g.len()
        && e.iter().zip(g).all(|(x, y)| match (x, y) {
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => match tolerance(dtype) {
                None => a.as_i64() == b.as_i64() && a.as_f64() == b.as_f64(),
                Some(tol) => {
                    let (a, b) = (
                        a.as_f64().unwrap_or(f64::NAN),
                        b.as_f64().unwrap_or(f64::NAN),
                    );
                    (a - b).abs() <= tol.max(tol * a.abs().max(b.abs()))
                }
            },
            _ => false,
        })
}

/// Canonical storage ids (`s0`, `s1`, ... in order of first appearance).
fn sharing(tensors: &[Value]) -> Vec<usize> {
    let mut seen: Vec<String> = Vec::new();
    tensors
        .iter()
        .map(|t| {
            let id = t["storage"].to_string();
            match seen.iter().position(|s| *s == id) {
                Some(i) => i,
                None => {
                    seen.push(id);
                    seen.len() - 1
                }
            }
        })
        .collect()
}

/// How one recorded step compares.
pub struct StepResult {
    /// `"{id} line {n} `{source}`"`.
    pub at: String,
    /// PyTorch's error text, if the statement raised.
    pub expected_error: Option<String>,
    /// Whether the trace's error text is exactly PyTorch's.
    pub error_exact: bool,
    /// Every difference; empty when the step matches.
    pub problems: Vec<String>,
}

/// How one case compares: a step result for each recorded step, or (when the trace has a
/// different number of steps, or none) one problem for the whole case.
pub struct CaseResult {
    pub id: String,
    pub steps: Vec<StepResult>,
    pub case_problem: Option<String>,
    /// Recorded steps.
    pub expected_steps: usize,
    /// Recorded steps that raised.
    pub expected_errors: usize,
}

impl CaseResult {
    /// Every problem, one line each.
    pub fn problems(&self) -> Vec<String> {
        let mut all: Vec<String> = self.case_problem.iter().cloned().collect();
        for s in &self.steps {
            all.extend(s.problems.iter().map(|p| format!("{}: {p}", s.at)));
        }
        all
    }
}

fn compare_step(at: String, e: &Value, g: &Value) -> StepResult {
    let mut problems = Vec::new();
    if e["error"] != g["error"] {
        problems.push(format!("error {} != {}", e["error"], g["error"]));
    }
    if e["output"] != g["output"] {
        problems.push(format!("output {} != {}", e["output"], g["output"]));
    }
    let (et, gt) = (
        e["tensors"].as_array().cloned().unwrap_or_default(),
        g["tensors"].as_array().cloned().unwrap_or_default(),
    );
    let names = |ts: &[Value]| ts.iter().map(|t| t["name"].to_string()).collect::<Vec<_>>();
    if names(&et) != names(&gt) {
        problems.push(format!("tensors {:?} != {:?}", names(&et), names(&gt)));
    } else {
        for (x, y) in et.iter().zip(&gt) {
            for field in [
                "dtype",
                "shape",
                "stride",
                "storage_offset",
                "storage_nbytes",
                "contiguous",
            ] {
                if x[field] != y[field] {
                    problems.push(format!(
                        "{}.{field} {} != {}",
                        x["name"], x[field], y[field]
                    ));
                }
            }
            if !values_match(
                x["dtype"].as_str().unwrap_or(""),
                &x["values"],
                &y["values"],
            ) {
                problems.push(format!("{}.values differ", x["name"]));
            }
        }
        if sharing(&et) != sharing(&gt) {
            problems.push(format!(
                "storage sharing {:?} != {:?}",
                sharing(&et),
                sharing(&gt)
            ));
        }
    }
    StepResult {
        at,
        expected_error: e["error"].as_str().map(str::to_string),
        error_exact: e["error"] == g["error"],
        problems,
    }
}

/// Compares `trace` (the JSON of `stridescope trace`, or None when there is none) with a
/// recorded case.
pub fn compare_trace(case: &Value, trace: Option<&Value>) -> CaseResult {
    let id = case["id"].as_str().unwrap_or("?").to_string();
    let expected = case["steps"].as_array().cloned().unwrap_or_default();
    let expected_errors = expected.iter().filter(|s| !s["error"].is_null()).count();
    let mut result = CaseResult {
        id: id.clone(),
        steps: Vec::new(),
        case_problem: None,
        expected_steps: expected.len(),
        expected_errors,
    };
    let Some(got) = trace.and_then(|t| t["steps"].as_array()) else {
        result.case_problem = Some(format!("{id}: no steps"));
        return result;
    };
    if expected.len() != got.len() {
        // The steps are still compared in order, as check.py does; missing ones fail.
        result.case_problem = Some(format!(
            "{id}: expected {} steps, got {}",
            expected.len(),
            got.len()
        ));
    }
    let missing = Value::Object(Default::default());
    result.steps = expected
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let at = format!(
                "{id} line {} `{}`",
                e["line"],
                e["source"].as_str().unwrap_or("")
            );
            let mut step = compare_step(at, e, got.get(i).unwrap_or(&missing));
            if i >= got.len() {
                step.problems = vec!["step missing".to_string()];
            }
            step
        })
        .collect();
    result
}

/// Traces a case's script in-process with `stridescope::interp::trace_script` and compares.
pub fn compare_case(case: &Value) -> CaseResult {
    let script = case["script"].as_str().unwrap_or("");
    let trace: Value = serde_json::from_str(&stridescope::interp::trace_script(script).to_json())
        .expect("trace JSON");
    compare_trace(case, Some(&trace))
}

/// The cases of a `.jsonl` file.
pub fn read_cases(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("case JSON"))
        .collect()
}

/// `tests/fixtures/NAME`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A step's `memory.saved` as sorted `[node, slot, shape, dtype]` (the storage id left out).
pub fn saved_key(memory: &Value) -> Vec<String> {
    let mut keys: Vec<String> = memory["saved"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|s| {
                    let four: Vec<Value> = s
                        .as_array()
                        .map(|a| a.iter().take(4).cloned().collect())
                        .unwrap_or_default();
                    Value::Array(four).to_string()
                })
                .collect()
        })
        .unwrap_or_default();
    keys.sort();
    keys
}

/// Each step's error, or else its output (empty when it shows nothing), in order: what a
/// notebook shows under each cell.
pub fn shown(trace: &stridescope::core::trace::Trace) -> Vec<String> {
    trace
        .steps
        .iter()
        .map(|s| {
            s.error
                .clone()
                .or_else(|| s.output.clone())
                .unwrap_or_default()
        })
        .collect()
}
