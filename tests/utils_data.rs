//! `torch.utils.data` as PyTorch 2.15 runs it, and `torch.normal` / `set_default_device`:
//! scripts recorded from real PyTorch (`tests/fixtures/utils/data.torch.jsonl`, made with
//! `tools/oracle/record.py` from `tools/oracle/utils/data_*.py` and `d2l_data.py`) must
//! trace exactly: `TensorDataset`, `DataLoader` batches in `RandomSampler`'s order (drawn
//! from the global generator, so later draws match too), `len()`, `drop_last`, `iter()` /
//! `next()`, a script's own `Dataset`, `default_collate` of numbers, tuples and dicts,
//! `Subset`, `random_split`, and PyTorch's error texts.

mod common;

/// The recorded cases of `file` in `tests/fixtures/utils/`.
fn cases(file: &str) -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/utils")
        .join(file);
    common::read_cases(&path)
}

#[test]
fn data_scripts_recorded_from_pytorch_trace_exactly() {
    let cases = cases("data.torch.jsonl");
    assert!(cases.len() >= 4, "expected the recorded data cases");
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

#[test]
fn normal_and_default_device_recorded_from_pytorch_trace_exactly() {
    let cases = cases("normal.torch.jsonl");
    assert!(
        !cases.is_empty(),
        "expected the recorded torch.normal cases"
    );
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
