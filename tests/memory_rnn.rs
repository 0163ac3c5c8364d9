//! Recurrent layers' memory against real PyTorch 2.15 on CPU:
//! `tests/fixtures/memory/rnn.torch.jsonl`, the scripts `tools/oracle/memory_sets/rnn/*.py`
//! recorded by `tools/oracle/memory_sets/record.sh rnn`. `nn.LSTM` on float32 runs through oneDNN
//! (`MkldnnRnnLayerBackward0`, a uint8 workspace saved as `result3`, weight reorders and a
//! scratchpad inside the op): one layer, two layers, bidirectional with `batch_first`, no
//! bias, a long batch-first sequence, given states on an unbatched input, `h`/`c` in the
//! loss, `no_grad` inference, dropout between layers, eval, frozen parameters,
//! `autograd.grad`; `nn.GRU`/`nn.RNN` run ATen's loop.
//!
//! Every step must match: tensors, outputs and errors as the oracle compares them, and the
//! trace contract's `memory` (`live_bytes` exact, `saved` as sorted `[node, slot, shape,
//! dtype]`, `peak_bytes` exact where recorded) — except the steps of [`KNOWN`], each with
//! what it lacks.

mod common;

use serde_json::Value;

/// Steps not exact yet, as `(case id, line)`, with why.
const KNOWN: &[(&str, u64, &str)] = &[
    // The backward of ATen's GRU and RNN loops (per-step `addmm`/activation buffers and
    // the in-place gates' gradients) peaks higher here.
    ("rnn-gru_rnn", 10, "GRU backward peak"),
    (
        "rnn-gru_rnn",
        15,
        "RNN backward peak (per-step addmm/tanh buffers)",
    ),
    // `out`, `h` and `c` all in the loss: the output's node runs once with the three
    // gradients as PyTorch's, but `hy`'s node sends the output a zero gradient that the
    // engine adds to the output's own (PyTorch copies the non-contiguous one): 4 bytes.
    (
        "rnn-lstm_states",
        17,
        "LSTM backward with out, h and c in the loss",
    ),
];

/// The memory differences of one step.
fn memory_diffs(expected: &Value, got: &Value) -> Vec<String> {
    let (em, gm) = (&expected["memory"], &got["memory"]);
    let mut out = Vec::new();
    if em["live_bytes"] != gm["live_bytes"] {
        out.push(format!(
            "live_bytes {} != {}",
            em["live_bytes"], gm["live_bytes"]
        ));
    }
    if common::saved_key(em) != common::saved_key(gm) {
        out.push(format!(
            "saved {:?} != {:?}",
            common::saved_key(em),
            common::saved_key(gm)
        ));
    }
    if em["peak_bytes"].is_u64() && em["peak_bytes"] != gm["peak_bytes"] {
        out.push(format!(
            "peak_bytes {} != {}",
            em["peak_bytes"], gm["peak_bytes"]
        ));
    }
    out
}

#[test]
fn recurrent_layers_memory_is_pytorchs() {
    let cases = common::read_cases(&common::fixture("memory/rnn.torch.jsonl"));
    assert!(cases.len() >= 3, "only {} cases", cases.len());
    let (mut steps, mut exact) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        let script = case["script"].as_str().unwrap_or("");
        let trace: Value =
            serde_json::from_str(&stridescope::interp::trace_script(script).to_json())
                .expect("trace JSON");
        let result = common::compare_trace(case, Some(&trace));
        if let Some(p) = &result.case_problem {
            failures.push(p.clone());
        }
        let got = trace["steps"].as_array().cloned().unwrap_or_default();
        let (mut case_steps, mut case_exact) = (0, 0);
        for (i, (e, step)) in case["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .zip(&result.steps)
            .enumerate()
        {
            let mut problems = step.problems.clone();
            problems.extend(memory_diffs(e, got.get(i).unwrap_or(&Value::Null)));
            case_steps += 1;
            let line = e["line"].as_u64().unwrap_or(0);
            let known = KNOWN.iter().any(|(k, l, _)| *k == id && *l == line);
            if problems.is_empty() {
                case_exact += 1;
            } else if !known {
                failures.push(format!("{}: {}", step.at, problems.join("; ")));
            } else {
                println!("  known: {}: {}", step.at, problems.join("; "));
            }
        }
        println!("  {id:<32} {case_exact}/{case_steps} steps exact");
        steps += case_steps;
        exact += case_exact;
    }
    println!(
        "== rnn memory: {exact}/{steps} steps exact ({} known)",
        KNOWN.len()
    );
    assert!(
        failures.is_empty(),
        "steps that differ from PyTorch:\n{}",
        failures.join("\n")
    );
}
