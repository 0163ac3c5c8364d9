//! The optimizers' own float32 arithmetic, bit for bit: 50 steps of SGD (nesterov, weight
//! decay; dampening, maximize), Adam (amsgrad, weight decay; maximize), AdamW, RMSprop
//! (plain; centered with momentum and weight decay) and Adagrad (learning-rate decay, weight
//! decay, initial accumulator) on two parameters whose gradients are drawn from the generator
//! before every step, recorded from PyTorch 2.15 on CPU (`tools/oracle/optim_exact/cases.py`,
//! `tests/fixtures/optim/exact.torch.jsonl`). No matrix product is involved, so every
//! parameter and state tensor must equal PyTorch's exactly at every step, not only within the
//! oracle's tolerance: ATen's fused `add(other, alpha=)`, `addcmul`, `lerp`, the unfused
//! `addcdiv`, and MKL's float32 `sqrt` (one ulp below the correctly rounded root for ~0.6%
//! of inputs) as the CPU computes them.

mod common;

use serde_json::Value;

/// The tensors of a step whose values differ from the recorded ones in any bit.
fn inexact(expected: &Value, got: &Value) -> Vec<String> {
    let values = |step: &Value| -> Vec<(String, Value)> {
        step["tensors"]
            .as_array()
            .map(|ts| {
                ts.iter()
                    .map(|t| {
                        (
                            t["name"].as_str().unwrap_or("").to_string(),
                            t["values"].clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let got = values(got);
    values(expected)
        .into_iter()
        .filter(|(name, v)| !got.iter().any(|(n, g)| n == name && g == v))
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn optimizer_steps_are_pytorchs_bit_for_bit() {
    let cases = common::read_cases(&common::fixture("optim/exact.torch.jsonl"));
    assert_eq!(cases.len(), 8, "the recorded configurations");
    let mut failures = Vec::new();
    for case in &cases {
        let script = case["script"].as_str().unwrap_or("");
        let trace: Value =
            serde_json::from_str(&stridescope::interp::trace_script(script).to_json())
                .expect("trace JSON");
        let result = common::compare_trace(case, Some(&trace));
        let expected = case["steps"].as_array().cloned().unwrap_or_default();
        let got = trace["steps"].as_array().cloned().unwrap_or_default();
        let mut exact = 0;
        for (i, (step, e)) in result.steps.iter().zip(&expected).enumerate() {
            let missing = Value::Null;
            let differ = inexact(e, got.get(i).unwrap_or(&missing));
            if step.problems.is_empty() && differ.is_empty() {
                exact += 1;
            } else if failures.len() < 5 {
                failures.push(format!("{}: {:?} {:?}", step.at, step.problems, differ));
            }
        }
        println!(
            "  {:50} steps bit-exact {exact}/{}",
            result.id,
            expected.len()
        );
        if let Some(problem) = result.case_problem {
            failures.push(problem);
        }
    }
    assert!(failures.is_empty(), "steps not PyTorch's: {failures:#?}");
}

/// `step()` of 13 optimizer configurations (weight decay, maximize, momentum, nesterov,
/// amsgrad, centered, lr decay), first and later steps, recorded with the trace contract's
/// memory object (`tools/oracle/optim_exact/memory_cases.py`,
/// `tests/fixtures/optim/memory.torch.jsonl`): live and peak bytes exactly PyTorch's CPU
/// allocator's (each op's output and wrapped scalars, Python's `grad`, `avg`, `std` and `denom`
/// freed when the next parameter's is bound).
#[test]
fn optimizer_step_memory_is_pytorchs() {
    let cases = common::read_cases(&common::fixture("optim/memory.torch.jsonl"));
    assert_eq!(cases.len(), 13, "the recorded configurations");
    let mut failures = Vec::new();
    for case in &cases {
        let script = case["script"].as_str().unwrap_or("");
        let trace: Value =
            serde_json::from_str(&stridescope::interp::trace_script(script).to_json())
                .expect("trace JSON");
        let result = common::compare_trace(case, Some(&trace));
        let expected = case["steps"].as_array().cloned().unwrap_or_default();
        let got = trace["steps"].as_array().cloned().unwrap_or_default();
        for (i, (step, e)) in result.steps.iter().zip(&expected).enumerate() {
            let g = got.get(i).cloned().unwrap_or(Value::Null);
            for field in ["live_bytes", "peak_bytes"] {
                if e["memory"][field] != g["memory"][field] {
                    failures.push(format!(
                        "{}: {field} {} != {}",
                        step.at, e["memory"][field], g["memory"][field]
                    ));
                }
            }
            if !step.problems.is_empty() {
                failures.push(format!("{}: {:?}", step.at, step.problems));
            }
        }
        if let Some(problem) = result.case_problem {
            failures.push(problem);
        }
    }
    assert!(failures.is_empty(), "steps not PyTorch's: {failures:#?}");
}
