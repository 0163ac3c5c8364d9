//! Tensor-memory scripts in the style of Chinese and English blog posts and textbook
//! sections (storage and views, strides and `contiguous`, `view` against `reshape`,
//! `expand` and in-place writes, `set_`, `torch.Tensor(storage)`, `data_ptr` arithmetic,
//! `id()`, `clone` against `detach`, in-place ops under autograd, NumPy sharing memory,
//! element sizes, dtype promotion, `channels_last`, `as_strided`, `unfold`), complex tensors
//! (arithmetic, `abs`/`angle`/`conj`, reductions, `matmul`, in-place ops through `real` and
//! `imag`) and named tensors (which PyTorch 2.15 no longer has: every `names=` is refused).
//! Each script (`tests/fixtures/tensor_memory_extra/scripts/*.py`) was recorded from real
//! PyTorch 2.15 by `tests/fixtures/tensor_memory_extra/build.sh`; every step must trace
//! exactly (values, layouts, storages, printed text, error texts) except the steps of
//! [`KNOWN`], each with the reason it differs.

mod common;

/// Steps that differ from PyTorch, by case id and line, with why.
const KNOWN: &[(&str, u64, &str)] = &[
    // PyTorch's conjugate is a lazy view (the conjugate bit); Stridescope materializes it,
    // so `c` has a storage of its own and `is_conj()` is false while it lives.
    ("tme-complex_conj", 4, "conj is a copy: c's storage"),
    (
        "tme-complex_conj",
        5,
        "conj is a copy: is_conj() and c's storage",
    ),
    (
        "tme-complex_conj",
        6,
        "conj is a copy: data_ptr and c's storage",
    ),
    ("tme-complex_conj", 7, "conj is a copy: c's storage"),
    ("tme-complex_conj", 8, "conj is a copy: c's storage"),
    // `torch.broadcast_shapes(*shapes)` is not in the op table.
    ("tme-cn_broadcast_stride0", 10, "torch.broadcast_shapes"),
    // Autograd (not this area): an in-place op on a view of a non-leaf rebases the view's
    // history (`CopySlices`, `AsStridedBackward0`) and its gradient.
    (
        "tme-cn_inplace_view_grad",
        6,
        "grad_fn of an in-place op on a view",
    ),
    (
        "tme-cn_inplace_view_grad",
        8,
        "grad_fn of an in-place op on a view",
    ),
    (
        "tme-cn_inplace_view_grad",
        10,
        "gradient through CopySlices",
    ),
    // Iterating over a storage (`list(s)`) is not modelled.
    ("tme-en_storage_types", 15, "list(untyped_storage)"),
];

#[test]
fn tensor_memory_extra_scripts_trace_exactly() {
    let path = common::fixture("tensor_memory_extra/tensor_memory_extra.torch.jsonl");
    let cases = common::read_cases(&path);
    assert!(
        cases.len() >= 30,
        "expected the recorded cases in {}",
        path.display()
    );
    let mut problems = Vec::new();
    let (mut steps, mut matching) = (0usize, 0usize);
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let lines: Vec<u64> = case["steps"]
            .as_array()
            .map(|s| s.iter().map(|s| s["line"].as_u64().unwrap_or(0)).collect())
            .unwrap_or_default();
        let result = common::compare_case(case);
        if let Some(p) = &result.case_problem {
            problems.push(p.clone());
        }
        for (step, line) in result.steps.iter().zip(lines) {
            steps += 1;
            let known = KNOWN.iter().any(|(k, l, _)| *k == id && *l == line);
            if step.problems.is_empty() {
                matching += 1;
            } else if !known {
                problems.extend(step.problems.iter().map(|p| format!("{}: {p}", step.at)));
            }
        }
    }
    eprintln!("tensor_memory_extra: {matching}/{steps} steps match PyTorch");
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
