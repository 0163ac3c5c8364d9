//! `torch.utils.checkpoint` as PyTorch 2.15 runs it: scripts recorded from real PyTorch
//! (`tests/fixtures/utils/checkpoint.torch.jsonl`, from `tools/oracle/utils/checkpoint_*.py`)
//! must trace exactly (the reentrant node `CheckpointFunctionBackward` recomputing the forward
//! in backward, through dropout with the generator's state restored; the non-reentrant
//! graph; `checkpoint_sequential`'s segments; the gradients equal to the plain model's; the
//! errors), as must the model corpus's `checkpoint_stack`; the warnings are PyTorch's texts.

mod common;

use stridescope::interp::trace_script;

fn problems_of(cases: &[serde_json::Value]) -> Vec<String> {
    cases
        .iter()
        .flat_map(|case| common::compare_case(case).problems())
        .collect()
}

#[test]
fn checkpoint_scripts_recorded_from_pytorch_trace_exactly() {
    let path = common::fixture("utils/checkpoint.torch.jsonl");
    let cases = common::read_cases(&path);
    assert!(cases.len() >= 2, "expected the recorded checkpoint cases");
    let problems = problems_of(&cases);
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_corpus_checkpoint_stack_traces_exactly() {
    let path = common::fixture("models/models.torch.jsonl");
    let cases: Vec<_> = common::read_cases(&path)
        .into_iter()
        .filter(|c| c["id"] == "model-checkpoint_stack")
        .collect();
    assert_eq!(cases.len(), 1);
    let problems = problems_of(&cases);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn checkpoint_warns_as_pytorch_does() {
    // Texts printed by torch 2.15 under `warnings.simplefilter("default")`.
    let trace = trace_script(concat!(
        "import torch\n",
        "import torch.nn as nn\n",
        "from torch.utils.checkpoint import checkpoint, checkpoint_sequential\n",
        "lin = nn.Linear(3, 3)\n",
        "x = torch.randn(2, 3, requires_grad=True)\n",
        "y = checkpoint(lin, x)\n",
        "z = checkpoint(lin, torch.randn(2, 3), use_reentrant=True)\n",
        "s = checkpoint_sequential(nn.Sequential(lin, nn.Tanh()), 2, x)\n",
        "y.grad_fn.name()\n",
        "w = checkpoint(lin, x, use_reentrant=False)\n",
    ));
    let warnings: Vec<Vec<String>> = trace.steps.iter().map(|s| s.warnings.clone()).collect();
    assert_eq!(
        warnings[5],
        vec!["UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a future release, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.".to_string()]
    );
    assert_eq!(
        warnings[6],
        vec![
            "UserWarning: None of the inputs have requires_grad=True. Gradients will be None"
                .to_string()
        ]
    );
    assert_eq!(
        warnings[7],
        vec!["UserWarning: torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In a future release, we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.".to_string()]
    );
    assert_eq!(
        trace.steps[8].output.as_deref(),
        Some("'CheckpointFunctionBackward'")
    );
    assert!(warnings[9].is_empty());
}
