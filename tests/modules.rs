//! `nn.Module` as PyTorch 2.15 runs it: scripts recorded from real PyTorch
//! (`tests/fixtures/modules/*.torch.jsonl`, made with `tools/oracle/record.py` from
//! `tools/oracle/modules/*.py`) must trace exactly: module reprs, registration of
//! parameters, buffers and submodules, the walks, `state_dict`, the containers, each
//! layer's `extra_repr` and initial parameters (drawn from the generator in PyTorch's
//! order), and PyTorch's error texts.

mod common;

#[test]
fn module_scripts_recorded_from_pytorch_trace_exactly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/modules");
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
    assert!(cases >= 5, "expected the recorded module cases in {dir}");
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
