//! Data-driven: scripts recorded from real PyTorch (`tests/fixtures/*.torch.jsonl`, made with
//! `tools/oracle/record.py`) must trace exactly as PyTorch ran them: errors, outputs, and for
//! every tensor variable its dtype, shape, strides, offset, storage size, contiguity, sharing
//! and values (floats within the oracle's tolerances).  The comparison is in `common/mod.rs`.
//!
//! `realworld.torch.jsonl` (the real-notebook corpus) is not gated here: `realworld.rs`
//! measures it against its own floor.

mod common;

#[test]
fn scripts_recorded_from_pytorch_trace_exactly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut cases = 0;
    let mut problems = Vec::new();
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("fixtures folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.to_string_lossy();
            // realworld: measured by realworld.rs; rng: generator sessions, replayed by rng.rs.
            name.ends_with(".torch.jsonl")
                && !name.ends_with("realworld.torch.jsonl")
                && !name.ends_with("rng.torch.jsonl")
        })
        .collect();
    // The generated regression corpus of tools/oracle (random scripts recorded from PyTorch).
    files.push(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tools/oracle/sample_cases.jsonl"
        )
        .into(),
    );
    for path in files {
        for case in common::read_cases(&path) {
            cases += 1;
            problems.extend(common::compare_case(&case).problems());
        }
    }
    assert!(cases > 0, "no recorded cases found in {dir}");
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
    println!("{cases} PyTorch-recorded cases match");
}
