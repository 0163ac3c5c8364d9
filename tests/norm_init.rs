//! `torch.nn.functional.batch_norm` / `layer_norm` / `group_norm` and `torch.nn.init`, against
//! PyTorch 2.15 (CPU):
//!
//! - `tests/fixtures/norm_init/cases.torch.jsonl` (scripts of `make_cases.py`, recorded with
//!   `tools/oracle/record.py`): values, running statistics updated in place, layouts,
//!   `grad_fn` names, gradients, error texts, what the initializers return;
//! - `tests/fixtures/norm_init/init_bits.jsonl` (`make_bits.py`): for 20 seeds, float32 and
//!   float64, shapes (3, 2), (16, 8) and (64, 33), the initializers' draws bit for bit
//!   (`kaiming_uniform_(a=sqrt(5))` and the bias bound's `uniform_`, `normal_`,
//!   `xavier_uniform_`, `xavier_normal_`, both branches of `trunc_normal_`,
//!   `kaiming_normal_`), as a hash of each tensor's bytes.

mod common;

use serde_json::Value;
use stridescope::core::tensor::{DType, Scalar};
use stridescope::core::trace::TensorRecord;

/// FNV-1a 64 of `bytes`, as `make_bits.py` computes it.
fn fnv(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The little-endian bytes of a traced tensor's values in its dtype.
fn bytes_of(tensor: &TensorRecord) -> Vec<u8> {
    let mut out = Vec::new();
    for v in tensor.values.iter().flatten() {
        let x = match v.0 {
            Scalar::Float(f) => f,
            Scalar::Int(i) => i as f64,
            Scalar::Bool(b) => f64::from(u8::from(b)),
        };
        if tensor.dtype == DType::Float64 {
            out.extend_from_slice(&x.to_le_bytes());
        } else {
            out.extend_from_slice(&(x as f32).to_le_bytes());
        }
    }
    out
}

#[test]
fn normalizations_and_initializers_trace_as_pytorch_recorded() {
    let path = common::fixture("norm_init/cases.torch.jsonl");
    let cases = common::read_cases(&path);
    assert!(cases.len() >= 10, "recorded cases missing");
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
fn initializers_draw_bit_for_bit_as_pytorch() {
    let path = common::fixture("norm_init/init_bits.jsonl");
    let text = std::fs::read_to_string(&path).expect("init_bits.jsonl");
    let mut checked = 0;
    let mut problems = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("JSON line");
        let script = case["script"].as_str().expect("script");
        let trace = stridescope::interp::trace_script(script);
        if let Some(failed) = trace.steps.iter().find(|s| s.error.is_some()) {
            problems.push(format!(
                "seed {} {}: line {} failed: {:?}",
                case["seed"], case["dtype"], failed.line, failed.error
            ));
            continue;
        }
        let Some(last) = trace.steps.last() else {
            problems.push(format!("seed {}: no steps", case["seed"]));
            continue;
        };
        let expected = case["hashes"].as_object().expect("hashes");
        for (name, hash) in expected {
            checked += 1;
            match last.tensors.iter().find(|t| t.name == *name) {
                None => problems.push(format!("seed {}: no tensor {name}", case["seed"])),
                Some(t) => {
                    if fnv(&bytes_of(t)) != hash.as_str().unwrap_or("") {
                        problems.push(format!(
                            "seed {} {} {name}: values differ from PyTorch's (first: {:?})",
                            case["seed"],
                            case["dtype"],
                            t.values.as_ref().and_then(|v| v.first())
                        ));
                    }
                }
            }
        }
    }
    assert!(checked >= 20 * 2 * 3 * 8, "only {checked} tensors checked");
    assert!(
        problems.is_empty(),
        "{} of {checked} tensors differ:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
