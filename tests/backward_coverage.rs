//! Backward coverage: for every differentiable op family of the table, a small script whose
//! gradients PyTorch 2.15 computed (`tests/fixtures/backward/backward.torch.jsonl`, recorded
//! with `tools/oracle/record.py` from `tools/oracle/backward/cases.py`) must trace exactly:
//! the node names (`MaxBackward1`, `MaximumBackward0`, ...), and each `.grad`'s values,
//! shape and strides (a `Linear`'s weight gradient is `[3, 1]`-strided as ATen's
//! `mm_mat2_backward` makes it); and the optimizers' state as PyTorch shares it. That every
//! op the table marks differentiable has a backward formula is checked by the library's
//! test `interp::torch::autograd::coverage` (the table is internal to the crate).

mod common;

#[test]
fn gradients_match_pytorch_for_every_covered_op() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/backward/backward.torch.jsonl"
    );
    let cases = common::read_cases(std::path::Path::new(path));
    assert!(
        cases.len() >= 60,
        "expected the recorded backward cases in {path}"
    );
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

/// `@` above 2-D (`tests/fixtures/backward/matmul_batched.torch.jsonl`, recorded with
/// `tools/oracle/record.py` from `tools/oracle/backward/matmul_cases.py`): ATen's `matmul`
/// through `bmm` (broadcast batch dims summed back) or folded into one `mm`/`mv`; the
/// gradients exact, the nodes PyTorch's.
#[test]
fn batched_matmul_gradients_match_pytorch() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/backward/matmul_batched.torch.jsonl"
    );
    let cases = common::read_cases(std::path::Path::new(path));
    assert!(cases.len() >= 9, "expected the recorded cases in {path}");
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
