//! Model code measured against real PyTorch 2.15: `tests/fixtures/models/*.torch.jsonl`, recorded
//! by `tools/oracle/models.sh` (see `tools/oracle/README.md`):
//!
//! - `models.torch.jsonl` (`model-<name>`): the cells of `tools/oracle/models/<name>.py`, model
//!   code as students paste it: "Learning PyTorch with Examples", "Build the Neural Network",
//!   "Autograd mechanics", "Optimizing Model Parameters", the 60-minute blitz's LeNet, chapters of
//!   d2l.ai / 《动手学深度学习》, Chinese blog snippets (parameter counting, `register_buffer`,
//!   `state_dict`, `train()`/`eval()`), checkpointing, optimizers and schedulers, the meta device,
//!   `grad_fn` inspection, hooks, custom `autograd.Function`s and deliberate mistakes;
//! - `init.torch.jsonl` (`init-<Layer>-<size>`): ten layer types built after
//!   `torch.manual_seed(s)` for 20 seeds, every parameter and buffer bound to a variable;
//! - `optim.torch.jsonl` (`optim-<config>`): 50 unrolled steps of SGD (plain, momentum,
//!   dampening, nesterov, weight decay), Adam, AdamW, RMSprop and Adagrad on a small MLP, the
//!   parameters and the optimizer's state tensors compared at every step.
//!
//! Each case is traced in-process and compared step by step with the comparison of
//! `torch_recorded.rs` (`common/mod.rs`), plus the contract's optional `"device"` field: a meta
//! tensor is recorded with `"device": "meta"` and `"values": null`, and must be traced so.
//! Every test prints per-script figures (steps exact / steps, error texts exact / errors) and
//! the first failures, and asserts a floor on the steps exact.
//!
//! The floors are what the code passes now (measured with `check.py` on the same fixtures);
//! the tests run in the suite since the model corpus passed issue 18's 97%:
//!
//!     cargo test --release --test models -- --nocapture
//!
//! On 2026-11-28 at 00:50 UTC: models 984/1007 steps exact (97.7%), error text 45/45, 32 of 40
//! scripts fully exact; init 2730/2730 (100%); optim 751/790 (95.1%), 11 of 12 configurations
//! fully exact. What is left: float32 `mm` as MKL's sgemm computes it (a float32 fused
//! multiply-add per step, in `p` order from 0, for the shapes measured except `k = 1000` and
//! one transposed form; the CPU engine sums in f64 and rounds once), ATen's vectorized
//! transcendental functions, RMSprop(centered, momentum) drifting from its 29th step, and Python
//! dicts as shared objects (`g = opt.param_groups[0]`). At 02:58: optim 747/790 (94.6%) with
//! the optimizers' arithmetic bit-exact (`tests/optim_exact.rs`: ATen's fused `add(alpha=)`,
//! MKL's float32 `sqrt`); the chaotic RMSprop(centered, momentum) case now drifts from its
//! 25th step because its gradients differ from step 1 (the engine's float32 `mm`, above).
//! On 2026-12-07: float32 `mm` as MKL's `sgemm` adds (`engines/cpu/sgemm.rs`: fused chains,
//! split past k = 384, and the dot-product kernel of `x @ W.t()` on a few samples) and
//! float32 `sigmoid` as ATen's float kernel: optim 790/790 (100%), 12 of 12 configurations
//! exact; models 989/1007 (98.2%), 37 of 40 scripts fully exact.

mod common;

use serde_json::Value;
use std::sync::mpsc;
use std::time::Duration;

/// Steps of `models.torch.jsonl` that must match exactly, in percent (raised as the work lands).
const MODELS_FLOOR: f64 = 97.5;
/// Steps of `init.torch.jsonl` that must match exactly, in percent (raised as the work lands).
const INIT_FLOOR: f64 = 100.0;
/// Steps of `optim.torch.jsonl` that must match exactly, in percent (raised as the work lands).
const OPTIM_FLOOR: f64 = 100.0;
/// A case that traces longer than this counts as failing (a loop that never ends).
const CASE_TIMEOUT: Duration = Duration::from_secs(60);
/// Failing steps printed per script (the first ones: later ones often follow from them).
const SHOW_PER_CASE: usize = 2;

/// The device a recorded or traced tensor is on (`"cpu"` when the field is absent).
fn device(t: &Value) -> String {
    t["device"].as_str().unwrap_or("cpu").to_string()
}

/// Moves what `common::compare_trace` does not know out of the steps: each tensor's device and
/// `"values": null` (a meta tensor's). Returns, per step, the tensors' (name, device, has values);
/// the values of a tensor without values become `[]`, so that the common comparison passes them
/// and the devices are compared here.
fn take_devices(steps: &mut [Value]) -> Vec<Vec<(String, String, bool)>> {
    steps
        .iter_mut()
        .map(|step| {
            let Some(tensors) = step["tensors"].as_array_mut() else {
                return Vec::new();
            };
            tensors
                .iter_mut()
                .map(|t| {
                    let has_values = !t["values"].is_null();
                    if !has_values {
                        t["values"] = Value::Array(Vec::new());
                    }
                    (t["name"].to_string(), device(t), has_values)
                })
                .collect()
        })
        .collect()
}

/// Traces one case on its own thread (so that a panic or a hang fails that case only) and
/// compares it with the recording, devices included.
fn run_case(case: &Value) -> common::CaseResult {
    let (tx, rx) = mpsc::channel();
    let script = case["script"].as_str().unwrap_or("").to_string();
    std::thread::spawn(move || {
        let trace =
            std::panic::catch_unwind(|| stridescope::interp::trace_script(&script).to_json());
        let _ = tx.send(trace);
    });
    let mut trace = match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Ok(json)) => serde_json::from_str::<Value>(&json).ok(),
        Ok(Err(_)) | Err(_) => None,
    };
    let mut case = case.clone();
    let expected_devices = case["steps"]
        .as_array_mut()
        .map(|s| take_devices(s))
        .unwrap_or_default();
    let got_devices = trace
        .as_mut()
        .and_then(|t| t["steps"].as_array_mut())
        .map(|s| take_devices(s))
        .unwrap_or_default();
    let mut result = common::compare_trace(&case, trace.as_ref());
    if trace.is_none() {
        result.case_problem = Some(format!(
            "{}: no trace (panicked, or ran past {CASE_TIMEOUT:?})",
            result.id
        ));
    }
    for (i, step) in result.steps.iter_mut().enumerate() {
        let (Some(expected), Some(got)) = (expected_devices.get(i), got_devices.get(i)) else {
            continue;
        };
        for (name, dev, has_values) in expected {
            let Some((_, got_dev, got_values)) = got.iter().find(|(n, _, _)| n == name) else {
                continue; // a missing tensor is already a problem of the common comparison
            };
            if dev != got_dev {
                step.problems
                    .push(format!("{name}.device \"{dev}\" != \"{got_dev}\""));
            }
            if has_values != got_values {
                let shown = |v: &bool| if *v { "values" } else { "null" };
                step.problems.push(format!(
                    "{name}.values {} != {}",
                    shown(has_values),
                    shown(got_values)
                ));
            }
        }
    }
    result
}

/// Percent, 100 when there is nothing to count.
fn pct(x: usize, y: usize) -> f64 {
    if y == 0 {
        100.0
    } else {
        100.0 * x as f64 / y as f64
    }
}

/// Traces every case of `tests/fixtures/models/{name}`, prints the per-script and total
/// figures and the first failures, and asserts the floor on the steps exact.
fn measure(name: &str, floor: f64) {
    let cases = common::read_cases(&common::fixture(&format!("models/{name}")));
    assert!(!cases.is_empty(), "no cases in models/{name}");
    let (mut steps, mut steps_ok, mut errors, mut errors_exact, mut cases_ok) = (0, 0, 0, 0, 0);
    let mut failures: Vec<String> = Vec::new();
    let mut rows: Vec<String> = Vec::new();
    for case in &cases {
        let r = run_case(case);
        let ok = r.steps.iter().filter(|s| s.problems.is_empty()).count();
        let err_ok = r
            .steps
            .iter()
            .filter(|s| s.expected_error.is_some() && s.error_exact)
            .count();
        if let Some(p) = &r.case_problem {
            failures.push(p.clone());
        }
        let failing = r.steps.iter().filter(|s| !s.problems.is_empty());
        for s in failing.take(SHOW_PER_CASE) {
            failures.push(format!("{}: {}", s.at, s.problems.join("; ")));
        }
        rows.push(format!(
            "  {:<40} steps {ok:>4}/{:<4} errors {err_ok:>2}/{:<2}{}",
            r.id,
            r.expected_steps,
            r.expected_errors,
            if r.case_problem.is_some() {
                "  (!)"
            } else {
                ""
            }
        ));
        cases_ok += usize::from(ok == r.expected_steps && r.case_problem.is_none());
        steps += r.expected_steps;
        steps_ok += ok;
        errors += r.expected_errors;
        errors_exact += err_ok;
    }
    println!("== models/{name}: the first failing steps of each script");
    for f in &failures {
        let short: String = f.chars().take(300).collect();
        println!("  {short}");
    }
    println!("== models/{name}: per script");
    for row in &rows {
        println!("{row}");
    }
    println!(
        "== models/{name}: {} cases, {cases_ok} fully exact; steps exact {steps_ok}/{steps} ({:.1}%); \
         error text exact {errors_exact}/{errors} ({:.1}%)",
        cases.len(),
        pct(steps_ok, steps),
        pct(errors_exact, errors)
    );
    assert!(
        pct(steps_ok, steps) >= floor,
        "models/{name}: steps exact {:.1}% is below the floor of {floor}%",
        pct(steps_ok, steps)
    );
}

/// Model code as students paste it (`tools/oracle/models/*.py`).
#[test]
fn model_scripts_trace_as_pytorch() {
    measure("models.torch.jsonl", MODELS_FLOOR);
}

/// Default initialization of ten layer types, 20 seeds, three sizes each.
#[test]
fn layer_initialization_is_pytorchs() {
    measure("init.torch.jsonl", INIT_FLOOR);
}

/// 50 steps of each optimizer configuration, parameters and state compared at every step.
#[test]
fn optimizer_steps_are_pytorchs() {
    measure("optim.torch.jsonl", OPTIM_FLOOR);
}
