//! Module hooks and the module internals tutorials reach for, as PyTorch 2.15 runs them:
//! scripts recorded from real PyTorch (`tests/fixtures/module_hooks/*.torch.jsonl`, made
//! with `tools/oracle/record.py` from `tools/oracle/module_hooks/*.py`) must trace exactly:
//! forward and forward pre-hooks (with `with_kwargs`, `prepend`), full backward hooks and
//! backward pre-hooks (`grad_input`, `grad_output`, replaced gradients), handles'
//! `remove()`, feature extraction with hooks, `_modules` / `_parameters` / `_buffers` as
//! dicts a script writes through, dict views (`dict_keys([...])`, `odict_keys`),
//! `Tensor._base` and the `torch::autograd::` node names.

mod common;

#[test]
fn module_hook_scripts_recorded_from_pytorch_trace_exactly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/module_hooks");
    let mut cases = 0;
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixtures folder") {
        let path = entry.expect("entry").path();
        if !path.to_string_lossy().ends_with(".torch.jsonl") {
            continue;
        }
        for case in common::read_cases(&path) {
            cases += 1;
            problems.extend(common::compare_case(&case).problems());
        }
    }
    assert!(
        cases >= 8,
        "expected the recorded module hook cases in {dir}"
    );
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
