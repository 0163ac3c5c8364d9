//! The Python that notebooks use: blocks, loops and their limit, f-strings, comprehensions,
//! `del`, imports, builtins, `print`. Expected texts are Python's (checked with CPython and
//! torch 2.15 by hand; the recorded corpora check the rest).

use proptest::prelude::*;
use stridescope::core::trace::Trace;
use stridescope::engines::CpuEngine;
use stridescope::interp::{trace_script, Evaluator, Limits};

fn outputs(trace: &Trace) -> Vec<Option<String>> {
    trace.steps.iter().map(|s| s.output.clone()).collect()
}

fn errors(trace: &Trace) -> Vec<Option<String>> {
    trace.steps.iter().map(|s| s.error.clone()).collect()
}

#[test]
fn a_for_loop_over_a_tensor_is_one_step_with_a_sub_step_per_statement() {
    let trace = trace_script(
        "a = torch.arange(6).reshape(3, 2)\nfor row in a:\n    print(row.stride(), row.storage_offset())\nrow",
    );
    assert_eq!(trace.steps.len(), 3, "one step per top-level statement");
    let step = &trace.steps[1];
    assert_eq!(step.source, "for row in a:");
    assert_eq!(step.output.as_deref(), Some("(1,) 0\n(1,) 2\n(1,) 4"));
    assert_eq!(step.substeps.len(), 3);
    assert!(step.substeps.iter().all(|s| s.line == 3));
    // `row` stays bound to the last view of `a`, sharing its storage.
    let row = step.tensors.iter().find(|t| t.name == "row").unwrap();
    let a = step.tensors.iter().find(|t| t.name == "a").unwrap();
    assert_eq!((row.storage_offset, &row.storage), (4, &a.storage));
}

#[test]
fn an_endless_loop_stops_at_the_step_limit_and_keeps_the_steps_before_it() {
    let limits = Limits {
        max_statements: 10_000,
        ..Limits::default()
    };
    let mut ev = Evaluator::new(Box::new(CpuEngine::new()), limits);
    let trace = ev.run("a = torch.zeros(3)\nfor i in range(10**9):\n    a.add_(1)\nb = a.clone()");
    assert_eq!(trace.steps.len(), 2, "the script stops at the loop");
    assert_eq!(trace.steps[0].error, None);
    let error = trace.steps[1].error.as_deref().unwrap();
    assert!(error.starts_with("RuntimeError: Stridescope stops after 10000 executed statements"));
    // The writes the loop made before the limit stay, as in Python.
    let a = &trace.steps[1].tensors[0];
    let first = a.values.as_ref().unwrap()[0].0.to_f64();
    assert!(first > 9_000.0, "{first}");
    let mut ev = Evaluator::new(Box::new(CpuEngine::new()), Limits::default());
    let trace = ev.run("x = 0\nwhile True:\n    x = x + 1");
    assert!(trace.steps[1]
        .error
        .as_deref()
        .unwrap()
        .contains("executed statements"));
}

#[test]
fn break_continue_and_nested_blocks() {
    let trace = trace_script(
        "total = 0\nfor i in range(10):\n    if i % 2 == 0:\n        continue\n    elif i > 7:\n        break\n    else:\n        total += i\ntotal",
    );
    assert_eq!(outputs(&trace)[2].as_deref(), Some("16"));
}

#[test]
fn an_exception_in_a_block_stops_the_block_and_names_its_line() {
    let trace =
        trace_script("a = torch.arange(4)\nfor i in range(3):\n    b = a.view(i + 1, 3)\nb");
    let step = &trace.steps[1];
    assert!(step
        .error
        .as_deref()
        .unwrap()
        .starts_with("RuntimeError: shape '[1, 3]' is invalid"));
    assert_eq!(step.error_line, Some(3));
    assert_eq!(
        errors(&trace)[2].as_deref(),
        Some("NameError: name 'b' is not defined")
    );
}

#[test]
fn f_strings_print_and_builtins_match_python() {
    let trace = trace_script(concat!(
        "a = torch.arange(6.).reshape(2, 3)\n",
        "print(f\"shape={tuple(a.shape)} stride={a.stride()} mean={a.mean():.3f} {a.numel():>4}|\")\n",
        "print(1, 'x', [1, 2], sep='-', end='!')\n",
        "[i * i for i in range(5) if i != 2]\n",
        "sum(x for x in [1, 2, 3]), min(3, 1, 2), max([4, 9]), abs(-2.5), round(2.5), round(3.14159, 2)\n",
        "len(a), isinstance(a, torch.Tensor), isinstance(3, (int, float)), str(1.0), int('7') + 1\n",
        "list(enumerate('ab')), list(zip([1, 2], (3, 4))), sorted([3, 1, 2]), 2 in a, 9 not in [1]\n",
        "x = 5\nx *= 3\nx\n",
        "s = 'ok' if x > 10 else 'no'\ns\n",
    ));
    let out = outputs(&trace);
    assert_eq!(
        out[1].as_deref(),
        Some("shape=(2, 3) stride=(3, 1) mean=2.500    6|")
    );
    assert_eq!(out[2].as_deref(), Some("1-x-[1, 2]!"));
    assert_eq!(out[3].as_deref(), Some("[0, 1, 9, 16]"));
    assert_eq!(out[4].as_deref(), Some("(6, 1, 9, 2.5, 2, 3.14)"));
    assert_eq!(out[5].as_deref(), Some("(2, True, True, '1.0', 8)"));
    assert_eq!(
        out[6].as_deref(),
        Some("([(0, 'a'), (1, 'b')], [(1, 3), (2, 4)], [1, 2, 3], True, True)")
    );
    assert_eq!(out[9].as_deref(), Some("15"));
    assert_eq!(out[11].as_deref(), Some("'ok'"));
}

#[test]
fn augmented_assignment_on_a_tensor_is_in_place_and_aliases_see_it() {
    let trace = trace_script("a = torch.zeros(2, 2)\nb = a.t()\na += 1\nb[0, 1] *= 5\na");
    let last = trace.steps.last().unwrap();
    let a = &last.tensors[0];
    let values: Vec<f64> = a
        .values
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| v.0.to_f64())
        .collect();
    assert_eq!(values, vec![1.0, 1.0, 5.0, 1.0]);
    assert_eq!(
        trace.steps[2].allocated_bytes, 0,
        "`a += 1` allocates nothing"
    );
    assert_eq!(a.storage, last.tensors[1].storage);
}

#[test]
fn del_frees_the_storage_when_its_last_name_goes() {
    let trace = trace_script("a = torch.zeros(4)\nb = a[1:]\ndel a\ndel b\na");
    assert_eq!(
        trace.steps[2].storages.len(),
        1,
        "b still holds the storage"
    );
    assert_eq!(trace.steps[3].storages.len(), 0, "freed with its last name");
    assert_eq!(trace.steps[3].live_bytes, 0);
    assert_eq!(
        errors(&trace)[4].as_deref(),
        Some("NameError: name 'a' is not defined")
    );
}

#[test]
fn imports_bind_their_modules_and_unknown_ones_are_named() {
    let trace = trace_script(concat!(
        "import torch.nn as nn\n",
        "import torch.nn.functional as F\n",
        "from torch import nn as layers\n",
        "x = torch.tensor([-1.0, 2.0])\n",
        "y = F.relu(x)\n",
        "nn.ReLU(inplace=True)(x)\n",
        "x\n",
        "import pandas as pd\n",
    ));
    let errs = errors(&trace);
    assert!(errs[..7].iter().all(Option::is_none), "{errs:?}");
    let x = &trace.steps[6].tensors[0];
    assert_eq!(
        x.values.as_ref().unwrap()[0].0.to_f64(),
        0.0,
        "relu in place"
    );
    assert_eq!(
        errs[7].as_deref(),
        Some("ModuleNotFoundError: No module named 'pandas'")
    );
}

#[test]
fn storages_print_as_pytorch_prints_them_and_warn_once() {
    let trace = trace_script(concat!(
        "a = torch.arange(3)\n",
        "a.storage()\n",
        "s = a.storage()\n",
        "len(s), s[1], s[-1], s.size(), s.nbytes(), s.element_size(), s.dtype\n",
        "torch.tensor([1.5, 2.0]).untyped_storage()\n",
        "s[3]\n",
    ));
    let out = outputs(&trace);
    assert_eq!(
        out[1].as_deref(),
        Some(" 0\n 1\n 2\n[torch.storage.TypedStorage(dtype=torch.int64, device=cpu) of size 3]")
    );
    assert_eq!(trace.steps[1].warnings.len(), 1);
    assert!(trace.steps[1].warnings[0].starts_with("UserWarning: TypedStorage is deprecated"));
    assert!(trace.steps[2].warnings.is_empty(), "once per script");
    assert_eq!(out[3].as_deref(), Some("(3, 1, 2, 3, 24, 8, torch.int64)"));
    assert_eq!(
        out[4].as_deref(),
        Some(" 0\n 0\n 192\n 63\n 0\n 0\n 0\n 64\n[torch.storage.UntypedStorage(device=cpu) of size 8]")
    );
    assert_eq!(
        errors(&trace)[5].as_deref(),
        Some("IndexError: index 3 out of range for storage of size 3")
    );
}

#[test]
fn a_fresh_script_draws_from_the_default_seed_and_manual_seed_restarts_it() {
    let trace = trace_script(concat!(
        "a = torch.randint(0, 9, (5, 3))\n",
        "torch.initial_seed()\n",
        "torch.manual_seed(67280421310721)\n",
        "b = torch.randint(0, 9, (5, 3))\n",
        "torch.equal(a, b)\n",
    ));
    let a = trace.steps[0].tensors[0].values.as_ref().unwrap();
    let got: Vec<i64> = a.iter().map(|v| v.0.to_wrapped_int()).collect();
    // torch 2.15 after `torch.manual_seed(67280421310721)`.
    assert_eq!(got, vec![0, 2, 2, 7, 0, 2, 2, 5, 1, 8, 2, 4, 4, 7, 6]);
    assert_eq!(outputs(&trace)[1].as_deref(), Some("67280421310721"));
    let b = &trace.steps[3].tensors[1];
    assert_eq!(b.values, trace.steps[0].tensors[0].values);
}

const BLOCK_PIECES: &[&str] = &[
    "for i in range(3):\n",
    "while i < 2:\n",
    "if a.sum() > 0:\n",
    "elif x:\n",
    "else:\n",
    "    ",
    "\t",
    "break\n",
    "continue\n",
    "pass\n",
    "a += 1\n",
    "x = [j for j in range(i)]\n",
    "print(f\"{i:>3} {a!r} {{}}\")\n",
    "del a\n",
    "a = torch.arange(4)\n",
    "import numpy as np\n",
    "y = a[i] if i else a\n",
    "f\"{\n",
    ":\n",
    "\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random compound statements, broken indentation, half f-strings: never a panic or a
    /// hang, and a script always yields its steps.
    #[test]
    fn random_blocks_never_panic(pieces in proptest::collection::vec(0..BLOCK_PIECES.len(), 0..30)) {
        let script: String = pieces.iter().map(|&i| BLOCK_PIECES[i]).collect();
        let limits = Limits { max_statements: 2_000, ..Limits::default() };
        let mut ev = Evaluator::new(Box::new(CpuEngine::new()), limits);
        let _ = ev.run(&script);
    }
}

#[test]
fn a_caught_exception_marks_its_sub_step_and_is_not_the_steps_error() {
    let trace = trace_script(
        "a = torch.arange(6).reshape(2, 3).t()\ntry:\n    b = a.view(6)\nexcept RuntimeError as e:\n    b = a.reshape(6)\nb.shape",
    );
    let step = &trace.steps[1];
    assert_eq!(step.error, None, "the try statement itself raised nothing");
    let failed = &step.substeps[0];
    assert_eq!(failed.line, 3);
    assert!(failed
        .error
        .as_deref()
        .unwrap_or("")
        .starts_with("RuntimeError: view size"));
    assert_eq!(failed.caught_by, Some(4), "caught by the except on line 4");
    assert_eq!(step.substeps[1].caught_by, None);
    assert_eq!(outputs(&trace)[2].as_deref(), Some("torch.Size([6])"));
}

#[test]
fn the_step_limit_is_never_caught_and_recursion_stops_with_recursion_error() {
    let limits = Limits {
        max_statements: 500,
        ..Limits::default()
    };
    let mut ev = Evaluator::new(Box::new(CpuEngine::new()), limits);
    let trace =
        ev.run("try:\n    while True:\n        pass\nexcept Exception:\n    print('caught')");
    let error = trace.steps[0].error.clone().unwrap_or_default();
    assert!(error.contains("Stridescope stops after 500"), "{error}");
    let trace = trace_script("def f(n):\n    return f(n + 1)\nf(0)");
    assert_eq!(
        errors(&trace)[1].as_deref(),
        Some("RecursionError: maximum recursion depth exceeded")
    );
}

#[test]
fn expm1_and_its_gradient() {
    // The first op added after the layers move: one table entry, its rule and its formula in
    // one family file (`interp/torch/ops/math.rs`). Texts as torch 2.15 prints them.
    let trace = trace_script(
        "x = torch.tensor([0.5, 1.0], requires_grad=True)\ny = torch.expm1(x)\ny\n\
         y.sum().backward()\nx.grad\ntorch.expm1(torch.tensor([0, 1]))\nx.expm1().grad_fn",
    );
    assert_eq!(errors(&trace), vec![None; 7]);
    let out = outputs(&trace);
    assert_eq!(
        out[2].as_deref(),
        Some("tensor([0.6487, 1.7183], grad_fn=<Expm1Backward0>)")
    );
    assert_eq!(out[4].as_deref(), Some("tensor([1.6487, 2.7183])"));
    assert_eq!(out[5].as_deref(), Some("tensor([0.0000, 1.7183])"));
    assert!(out[6]
        .as_deref()
        .is_some_and(|o| o.starts_with("<Expm1Backward0 object at 0x")));
}
