//! Autograd as tutorials inspect it, against PyTorch 2.15: `grad_fn` objects (`name()`,
//! `next_functions`, `AccumulateGrad.variable`, the `_saved_*` slots and their error once
//! freed), tensor hooks and `retain_grad()`, `torch.autograd.grad` (with `create_graph=True`
//! for second derivatives), the grad modes as context managers and decorators, `x.data`, and
//! version counters with the in-place error at backward.
//!
//! The scripts and what PyTorch did with them are in `fixtures/autograd/inspect.torch.jsonl`
//! (recorded with `tools/oracle/record.py`): every step's error, output and tensor variables
//! must match. Outputs that show an address (`<MulBackward0 object at 0x...>`) cannot be
//! recorded; their shape is checked below.

mod common;

use stridescope::interp::trace_script;

#[test]
fn autograd_scripts_trace_as_pytorch_ran_them() {
    let path = common::fixture("autograd/inspect.torch.jsonl");
    let cases = common::read_cases(&path);
    assert_eq!(cases.len(), 9, "recorded cases in {}", path.display());
    let problems: Vec<String> = cases
        .iter()
        .flat_map(|case| common::compare_case(case).problems())
        .collect();
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn outputs(script: &str) -> Vec<Option<String>> {
    trace_script(script)
        .steps
        .iter()
        .map(|s| s.output.clone())
        .collect()
}

#[test]
fn node_objects_show_as_pytorch_prints_them() {
    let out = outputs(
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\ny.grad_fn\ny.grad_fn.next_functions\n\
         y.grad_fn is y.grad_fn\nh = x.register_hook(lambda g: g)\nh\ntype(y.grad_fn)\n\
         torch.set_grad_enabled(False)\ntorch.no_grad()",
    );
    let node = out[2].as_deref().unwrap_or_default();
    assert!(
        node.starts_with("<MulBackward0 object at 0x") && node.ends_with('>'),
        "{node}"
    );
    let next = out[3].as_deref().unwrap_or_default();
    assert!(
        next.starts_with("((<AccumulateGrad object at 0x") && next.ends_with(">, 0), (None, 0))"),
        "{next}"
    );
    assert_eq!(out[4].as_deref(), Some("True"));
    let handle = out[6].as_deref().unwrap_or_default();
    assert!(
        handle.starts_with("<torch.utils.hooks.RemovableHandle object at 0x"),
        "{handle}"
    );
    assert_eq!(out[7].as_deref(), Some("<class 'MulBackward0'>"));
    assert_eq!(
        out[8].as_deref(),
        Some("torch.autograd.grad_mode.set_grad_enabled(mode=False)")
    );
}

#[test]
fn reading_grad_of_a_non_leaf_warns_and_gives_none() {
    let trace = trace_script("x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad");
    let step = &trace.steps[2];
    assert_eq!(step.output, None);
    assert!(
        step.warnings
            .iter()
            .any(|w| w.starts_with("UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.")),
        "{:?}",
        step.warnings
    );
}

#[test]
fn saved_tensors_keep_their_storage_alive() {
    // `e` is dropped, but ExpBackward0 saved it: its storage lives as long as `s`'s graph.
    let trace = trace_script(
        "x = torch.tensor([0.0, 1.0], requires_grad=True)\ns = x.exp().sum()\ns.backward()\nx.grad",
    );
    assert_eq!(
        trace.steps[3].output.as_deref(),
        Some("tensor([1.0000, 2.7183])")
    );
}
