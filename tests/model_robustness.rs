//! Model code that goes wrong (an endless `forward`, a million layers, a layer too big for
//! the memory limit) gets a clear error at its line and keeps the steps before it; a long
//! training loop keeps its memory and its trace bounded.

use stridescope::core::trace::{Step, Trace};
use stridescope::interp::trace_script;

/// The step that ran `line`.
fn at_line(trace: &Trace, line: usize) -> &Step {
    trace
        .steps
        .iter()
        .find(|s| s.line == line)
        .unwrap_or_else(|| panic!("no step at line {line}"))
}

#[test]
fn an_endless_forward_is_a_recursion_error_and_the_script_goes_on() {
    let trace = trace_script(
        "import torch
import torch.nn as nn
x = torch.ones(2, 3)
class Loop(nn.Module):
    def forward(self, x):
        return self(x)
m = Loop()
y = m(x)
z = x + 1",
    );
    let error = at_line(&trace, 8).error.clone().unwrap_or_default();
    assert_eq!(error, "RecursionError: maximum recursion depth exceeded");
    assert_eq!(at_line(&trace, 9).error, None);
    assert!(at_line(&trace, 9).tensors.iter().any(|t| t.name == "z"));
}

#[test]
fn a_sequential_of_a_million_layers_stops_at_the_statement_limit() {
    let trace = trace_script(
        "import torch
import torch.nn as nn
x = torch.ones(2, 3)
seq = nn.Sequential(*[nn.Identity() for _ in range(10**6)])",
    );
    assert_eq!(at_line(&trace, 3).error, None);
    let error = at_line(&trace, 4).error.clone().unwrap_or_default();
    assert!(
        error.starts_with("RuntimeError: Stridescope stops after 100000 executed statements"),
        "{error}"
    );
}

#[test]
fn a_layer_of_a_million_million_parameters_needs_the_meta_device() {
    let trace = trace_script(
        "import torch
import torch.nn as nn
big = nn.Linear(10**6, 10**6)
meta = nn.Linear(10**6, 10**6, device='meta')
meta.weight.shape, meta.weight.numel(), meta.weight.is_meta",
    );
    let error = at_line(&trace, 3).error.clone().unwrap_or_default();
    assert!(
        error.contains("you tried to allocate 4000000000000 bytes (3.6 TiB)"),
        "{error}"
    );
    assert!(error.contains("memory limit is 256.0 MiB"), "{error}");
    assert_eq!(at_line(&trace, 4).error, None);
    assert_eq!(
        at_line(&trace, 5).output.as_deref(),
        Some("(torch.Size([1000000, 1000000]), 1000000000000, True)")
    );
}

/// "Learning PyTorch with Examples"' two-layer network (smaller), trained by hand.
const TRAINING_LOOP: &str = "import torch
_ = torch.manual_seed(0)
x = torch.randn(16, 50)
y = torch.randn(16, 4)
w1 = torch.randn(50, 20, requires_grad=True)
w2 = torch.randn(20, 4, requires_grad=True)
for t in range(200):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        w1 -= 1e-6 * w1.grad
        w2 -= 1e-6 * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()";

#[test]
fn a_training_loop_frees_each_iterations_temporaries() {
    let trace = trace_script(TRAINING_LOOP);
    let step = trace.steps.last().expect("the loop's step");
    assert_eq!(step.error, None);
    let live: Vec<usize> = step.substeps.iter().map(|s| s.live_bytes).collect();
    // Each iteration runs 8 statements; the second iteration's memory is the last's.
    let per_iteration = 8;
    assert!(live.len() >= 3 * per_iteration, "{} sub-steps", live.len());
    let second = &live[per_iteration..2 * per_iteration];
    let recorded = live.len() / per_iteration * per_iteration;
    let last = &live[recorded - per_iteration..recorded];
    assert_eq!(second, last, "memory grows from iteration to iteration");
    // After the loop, what the last iteration left: no iteration's temporaries pile up.
    assert_eq!(step.live_bytes, second[per_iteration - 1]);
}

#[test]
fn a_training_loops_trace_shares_what_did_not_change() {
    let trace = trace_script(TRAINING_LOOP);
    let step = trace.steps.last().expect("the loop's step");
    // The same cell written in 200 iterations is one run of the loop's write record.
    let w1 = step
        .writes
        .iter()
        .find(|w| w.runs.iter().map(|r| r[1]).sum::<i64>() == 50 * 20)
        .expect("the writes into w1");
    assert_eq!(w1.runs, [[0, 1000]]);
    // x never changes inside the loop: every sub-step shares its values.
    for sub in &step.substeps {
        let x = sub.tensors.iter().find(|t| t.name == "x").expect("x");
        assert!(x.unchanged && x.values.is_some(), "line {}", sub.line);
    }
    // In the JSON, a sub-step's unchanged values are left out, the top-level steps keep theirs.
    let json: serde_json::Value =
        serde_json::from_str(&trace.to_json()).expect("the trace is JSON");
    let steps = json["steps"].as_array().expect("steps");
    let loop_step = steps.last().expect("the loop");
    let first_x = &loop_step["substeps"][0]["tensors"][0];
    assert_eq!(first_x["name"], "x");
    assert_eq!(first_x["unchanged"], true);
    assert!(first_x["values"].is_null());
    assert_eq!(
        loop_step["tensors"][0]["values"].as_array().map(Vec::len),
        Some(800)
    );
}

#[test]
fn a_many_line_error_is_its_first_line_with_the_rest_as_detail() {
    let trace = trace_script(
        "import torch.nn as nn
a = nn.Linear(2, 3)
b = nn.Linear(2, 4)
b.load_state_dict(a.state_dict())",
    );
    let step = at_line(&trace, 4);
    assert_eq!(
        step.error.as_deref(),
        Some("RuntimeError: Error(s) in loading state_dict for Linear:")
    );
    let detail = step.error_detail.clone().unwrap_or_default();
    assert!(
        detail.contains("size mismatch for weight: copying a param with shape torch.Size([3, 2]) from checkpoint, the shape in current model is torch.Size([4, 2])."),
        "{detail}"
    );
    assert_eq!(
        step.full_error().map(|e| e.lines().count()),
        Some(1 + detail.lines().count())
    );
}
