//! Bad input never panics, hangs or loses the lines before it.

use proptest::prelude::*;
use stridescope::engines::CpuEngine;
use stridescope::interp::{trace_script, Evaluator, Limits};

/// Every line of every public oracle script (or a built-in sample when the oracle is absent).
fn oracle_lines() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/oracle/cases.jsonl");
    let mut lines = Vec::new();
    if let Ok(text) = std::fs::read_to_string(path) {
        for case in text.lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(case) {
                if let Some(script) = v["script"].as_str() {
                    lines.extend(script.lines().map(str::to_string));
                }
            }
        }
    }
    if lines.is_empty() {
        lines.extend(stridescope::DEFAULT_SCENARIO.lines().map(str::to_string));
    }
    lines
}

const NOISE: &[char] = &[
    '(', ')', '[', ']', ',', ':', '.', '=', '-', '1', '0', 'a', '_', ' ', '"', '\'', '#', '\\',
    '@', '%', '*', 'é', '\u{0}', '9',
];

#[test]
fn mutated_oracle_lines_never_panic() {
    let lines = oracle_lines();
    // A deterministic xorshift, so a failure reproduces.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let prelude = "a = torch.arange(24).reshape(2, 3, 4)\nb = a.transpose(0, 1)\nc = a.float()\nx = torch.arange(16, dtype=torch.float32).reshape(1, 4, 2, 2)\n";
    for chunk in lines.chunks(40) {
        let mut script = String::from(prelude);
        for line in chunk {
            let mut chars: Vec<char> = line.chars().collect();
            for _ in 0..1 + next() % 3 {
                let at = if chars.is_empty() {
                    0
                } else {
                    (next() % (chars.len() as u64 + 1)) as usize
                };
                if next() % 2 == 0 && at < chars.len() {
                    chars.remove(at);
                } else {
                    chars.insert(at, NOISE[(next() % NOISE.len() as u64) as usize]);
                }
            }
            script.extend(chars);
            script.push('\n');
        }
        let trace = trace_script(&script);
        assert!(!trace.steps.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = trace_script(&text);
    }

    #[test]
    fn random_calls_on_tensors_never_panic(
        method in prop::sample::select(vec![
            "view", "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "permute", "movedim", "expand",
            "narrow", "select", "unfold", "diagonal", "as_strided", "split", "chunk", "unbind", "contiguous",
            "clone", "to", "sum", "mean", "amax", "stride", "size", "fill_", "add_", "mul_", "clamp_", "copy_",
        ]),
        args in prop::collection::vec(prop::sample::select(vec![
            "-3", "-1", "0", "1", "2", "5", "100", "(2, 3)", "(1, -1)", "[0, 0]", "torch.float16",
            "torch.channels_last", "a", "None", "True", "2.5", "(-1,)", "()", "9223372036854775807",
            "-9223372036854775807", "4611686018427387904", "(4611686018427387904, 4)", "(0, 1)",
        ]), 0..4),
    ) {
        let script = format!(
            "a = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)\nb = a.{method}({})\n",
            args.join(", ")
        );
        let trace = trace_script(&script);
        prop_assert_eq!(trace.steps.len(), 2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(800))]

    /// Advanced indexing, read and written, with random mixes of lists, masks, index
    /// tensors (some out of bounds, some huge), slices, ints, `None`, `...` and bools.
    #[test]
    fn random_advanced_indices_never_panic(
        items in prop::collection::vec(prop::sample::select(vec![
            "[0, 2]", "[[0, 1], [1, 0]]", "[]", "[True, False]", "[True, False, True]", "[-1, 5]",
            "[0.5, 1]", "i", "i.t()", "m", "m[0]", "m[0, 0]", "a > 3", "a[0] > 3", "j", "big",
            "torch.tensor(1)", "torch.tensor(True)", "torch.tensor([1.0])", "1", "-1", "7",
            "1:", "::2", "None", "...", "True", "False", "'x'", "(0, 1)", "[0, torch.tensor(1)]",
            "[[0], [1, 2]]", "[9223372036854775807]", "torch.zeros(1, dtype=torch.long).expand(100000000)",
        ]), 1..4),
        write in prop::sample::select(vec![
            "", " = 0", " = 2.5", " = torch.tensor([1.0, 2.0])", " = torch.ones(3, 1)",
            " = torch.tensor(7)", " = a", " += 1", " = [1, 2]",
        ]),
        method in prop::sample::select(vec![
            "", "b = a.nonzero()", "b = a.nonzero(as_tuple=True)", "b = torch.argwhere(a)",
            "b = a.masked_select(a > 4)", "b = a.masked_select(m)",
            "b = a.index_put_((i,), torch.tensor(1.0), accumulate=True)",
            "b = a.index_put((j, j), torch.ones(2))", "b = a.index_put_([m], torch.tensor([5.0]))",
        ]),
    ) {
        let script = format!(
            "a = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)\n\
             i = torch.tensor([[0, 1], [1, 0]])\n\
             j = torch.tensor([0, 1])\n\
             m = a.sum(2) > 20\n\
             big = torch.arange(200) % 2\n\
             a[{}]{write}\n\
             {method}\n",
            items.join(", ")
        );
        let trace = trace_script(&script);
        // The setup lines run cleanly whatever the index (an empty method line is no step).
        prop_assert!(trace.steps.len() >= 6);
        prop_assert!(trace.steps[..5].iter().all(|s| s.error.is_none()));
    }
}

#[test]
fn huge_advanced_indices_hit_the_limits_with_a_clear_message() {
    for line in [
        "b = a[torch.zeros(1, dtype=torch.long).expand(100000000)]",
        "b = a[torch.zeros(10000, 1, dtype=torch.long), torch.zeros(1, 10000, dtype=torch.long)]",
        "a[torch.zeros(10000, 1, dtype=torch.long), torch.zeros(1, 10000, dtype=torch.long)] = 1",
        "b = torch.zeros(1).expand(100000, 100000).nonzero()",
        "b = torch.zeros(1).expand(100000, 100000).masked_select(torch.tensor(True))",
    ] {
        let trace = trace_script(&format!("a = torch.zeros(3, 3)\n{line}\n"));
        let error = trace.steps[1].error.clone().unwrap_or_default();
        assert!(
            error.contains("more than Stridescope processes in one op"),
            "{line}: {error}"
        );
    }
}

#[test]
fn a_typo_is_a_syntax_error_at_its_line_and_column_and_the_rest_still_runs() {
    let trace =
        trace_script("a = torch.arange(6)\nb = a.view(2, 3\nc = a + 1\nd = a.view(3, 2)) \n");
    assert_eq!(trace.steps.len(), 4);
    assert_eq!(trace.steps[0].error, None);
    assert_eq!(trace.steps[0].tensors.len(), 1);
    assert_eq!(
        trace.steps[1].error.as_deref(),
        Some("SyntaxError: '(' was never closed")
    );
    assert_eq!(trace.steps[1].line, 2);
    assert_eq!(trace.steps[1].column, Some(11));
    assert_eq!(trace.steps[2].error, None);
    assert_eq!(
        trace.steps[3].error.as_deref(),
        Some("SyntaxError: unmatched ')'")
    );
    assert_eq!(trace.steps[3].column, Some(17));
    // The failed lines bound nothing; the good one did.
    let names: Vec<&str> = trace.steps[3]
        .tensors
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["a", "c"]);
}

#[test]
fn a_huge_shape_is_refused_with_the_memory_limit_named() {
    let trace = trace_script("x = torch.zeros(100000, 100000)\ny = torch.ones(2)\n");
    let error = trace.steps[0].error.clone().unwrap_or_default();
    assert!(error.starts_with("RuntimeError: "), "{error}");
    assert!(error.contains("40000000000 bytes"), "{error}");
    assert!(error.contains("memory limit is 256.0 MiB"), "{error}");
    assert_eq!(trace.steps[1].error, None);
    assert_eq!(trace.steps[1].live_bytes, 8);
}

#[test]
fn the_memory_limit_is_configurable() {
    let limits = Limits {
        memory_bytes: 1024,
        ..Limits::default()
    };
    let mut evaluator = Evaluator::new(Box::new(CpuEngine::new()), limits);
    let trace = evaluator.run("a = torch.zeros(100)\nb = torch.zeros(300)\n");
    assert_eq!(trace.steps[0].error, None);
    let error = trace.steps[1].error.clone().unwrap_or_default();
    assert!(
        error.contains("memory limit is 1.0 KiB with 400 B in use"),
        "{error}"
    );
}

#[test]
fn a_loop_over_a_large_tensor_stops_recording_values_at_the_trace_budget() {
    // 20 sub-steps of a 10,000-element tensor and its storage: 400,000 values without a cap.
    let limits = Limits {
        max_recorded_total: 100_000,
        ..Limits::default()
    };
    let mut evaluator = Evaluator::new(Box::new(CpuEngine::new()), limits);
    let trace = evaluator
        .run("a = torch.zeros(10000)\nsmall = torch.ones(3)\nfor i in range(20):\n    a[i] = i\n");
    let recorded = |s: &stridescope::core::trace::Step| {
        s.tensors
            .iter()
            .any(|t| t.name == "a" && t.values.is_some())
    };
    assert!(
        recorded(&trace.steps[0]),
        "the first steps keep their values"
    );
    let last = trace.steps[2]
        .substeps
        .last()
        .expect("the loop's sub-steps are recorded");
    assert!(
        !recorded(last),
        "the budget ran out before the last sub-step"
    );
    assert!(
        last.tensors
            .iter()
            .any(|t| t.name == "small" && t.values.is_some()),
        "small tensors are always recorded"
    );
    assert_eq!(last.error, None);
}

#[test]
fn a_huge_expanded_view_is_allowed_and_prints_summarized() {
    let trace = trace_script("e = torch.arange(3).expand(100000, 100000, 3)\ne\n");
    assert_eq!(trace.steps[0].error, None);
    assert_eq!(
        trace.steps[0].tensors[0].values, None,
        "too large to record"
    );
    let out = trace.steps[1].output.clone().unwrap_or_default();
    assert!(
        out.starts_with(
            "tensor([[[0, 1, 2],\n         [0, 1, 2],\n         [0, 1, 2],\n         ...,"
        ),
        "{out}"
    );
}

#[test]
fn huge_and_odd_arguments_are_errors_not_aborts() {
    for line in [
        "a = torch.arange(9223372036854775807)",
        "a = torch.ones(-1)",
        "a = torch.ones(4611686018427387904, 4)",
        "a = torch.arange(10).as_strided((3,), (9223372036854775807,))",
        "a = torch.arange(10).view(-1, -1)",
        "a = torch.arange(10).expand(10, 10, 10, 10, 10, 10, 10, 10, 10, 10).sum()",
        "a = torch.zeros(1).expand(100000, 100000).fill_(1)",
        "a = torch.zeros(1).expand(100000, 100000).unbind()",
        "a = torch.arange(10)[::0]",
        "a = torch.arange(5) % 0",
        "a = torch.arange(3).unfold(0, 2, 0)",
        "a = 9223372036854775807 + 1",
        "a = torch.tensor([[1, 2], [3]])",
    ] {
        let trace = trace_script(line);
        assert!(trace.steps[0].error.is_some(), "{line} should fail");
    }
}
