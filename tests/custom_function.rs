//! Custom `torch.autograd.Function`s as PyTorch 2.15 runs them: scripts recorded from real
//! PyTorch (`tests/fixtures/custom_function/custom_function.torch.jsonl`, made with
//! `tools/oracle/record.py` from the `cf_*.py` scripts beside it, each case named `cf-<name>`)
//! must trace exactly: `apply` with the `ctx` API (`save_for_backward`, `saved_tensors`,
//! `needs_input_grad`, attributes, `mark_dirty`, `mark_non_differentiable`,
//! `set_materialize_grads`), the 2.x `setup_context` style, several outputs, the node
//! (`FBackward`, its `next_functions`), gradients into the rest of the graph,
//! `once_differentiable`, `gradcheck`, a custom function inside an `nn.Module`, hooks on its
//! outputs, `torch.autograd.graph.saved_tensors_hooks` / `save_on_cpu`, and PyTorch's error
//! texts for `apply`'s arguments and for what `backward` returns.

mod common;

#[test]
fn custom_function_scripts_recorded_from_pytorch_trace_exactly() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/custom_function/custom_function.torch.jsonl"
    );
    let cases = common::read_cases(std::path::Path::new(path));
    assert!(cases.len() >= 8, "expected the recorded cases in {path}");
    let mut problems = Vec::new();
    for case in &cases {
        problems.extend(common::compare_case(case).problems());
    }
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_recorded_case_has_its_script_beside_it() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/custom_function"
    );
    let path = std::path::Path::new(dir).join("custom_function.torch.jsonl");
    for case in common::read_cases(&path) {
        let id = case["id"].as_str().unwrap_or_default();
        let recorded = case["script"].as_str().unwrap_or_default();
        let name = id.trim_start_matches("cf-").replace('-', "_");
        let script = std::path::Path::new(dir).join(format!("cf_{name}.py"));
        let text = std::fs::read_to_string(&script).unwrap_or_default();
        assert_eq!(
            text.trim_end(),
            recorded.trim_end(),
            "{} is not the script recorded as {id}",
            script.display()
        );
    }
}
