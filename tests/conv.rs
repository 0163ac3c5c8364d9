//! Convolutions and poolings (`F.conv1d`, `F.conv2d`, `F.conv_transpose1d/2d`, `F.max_pool1d/2d`,
//! `F.avg_pool1d/2d`, `F.adaptive_avg_pool2d`, `F.adaptive_max_pool2d`): values, shapes,
//! strides, dtypes, error texts, grad_fn names and gradients, statement by statement against
//! what PyTorch 2.15 printed for the same scripts (`tests/fixtures/conv/cases.py`, recorded
//! by `tests/fixtures/conv/record.py` into `expected.json`). Numbers agree within the oracle's
//! float32 tolerance (`isclose(rel_tol=1e-5, abs_tol=1e-5)`): PyTorch's float kernels add in
//! another order than Stridescope's.

use serde_json::Value;
use stridescope::core::trace::Trace;
use stridescope::interp::trace_script;

/// Lines every case starts with (`import torch`, `import torch.nn.functional as F`).
const PRELUDE: usize = 2;

fn cases() -> serde_json::Map<String, Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/conv/expected.json"
    );
    let text = std::fs::read_to_string(path).expect("the recorded cases");
    match serde_json::from_str(&text).expect("valid JSON") {
        Value::Object(map) => map,
        _ => panic!("expected an object of cases"),
    }
}

/// A printed text as words and numbers (object addresses masked).
#[derive(Debug)]
enum Token {
    Text(String),
    Number(f64),
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut text_run = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '0' && chars.get(i + 1) == Some(&'x') {
            // `object at 0x7f...`: any address.
            i += 2;
            while i < chars.len() && chars[i].is_ascii_hexdigit() {
                i += 1;
            }
            text_run.push_str("0x?");
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()));
        let in_word = text_run
            .chars()
            .last()
            .is_some_and(|p| p.is_ascii_alphabetic() || p == '_');
        if starts_number && !in_word {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || chars[i] == '.'
                    || chars[i] == 'e'
                    || ((chars[i] == '-' || chars[i] == '+') && chars[i - 1] == 'e'))
            {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            match number.parse::<f64>() {
                Ok(x) => {
                    if !text_run.is_empty() {
                        out.push(Token::Text(std::mem::take(&mut text_run)));
                    }
                    out.push(Token::Number(x));
                }
                Err(_) => text_run.push_str(&number),
            }
            continue;
        }
        text_run.push(c);
        i += 1;
    }
    if !text_run.is_empty() {
        out.push(Token::Text(text_run));
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-5_f64.max(1e-5 * a.abs().max(b.abs()))
}

/// Whether two printed texts are the same up to float tolerance and addresses.
fn same_text(expected: &str, got: &str) -> bool {
    let (e, g) = (tokens(expected), tokens(got));
    e.len() == g.len()
        && e.iter().zip(&g).all(|(a, b)| match (a, b) {
            (Token::Text(a), Token::Text(b)) => a == b,
            (Token::Number(a), Token::Number(b)) => close(*a, *b),
            _ => false,
        })
}

/// Runs one recorded case; returns its mismatches.
fn check_case(name: &str, case: &Value) -> Vec<String> {
    let script = case["script"].as_str().unwrap_or_default();
    let trace: Trace = trace_script(script);
    let lines: Vec<&str> = script.lines().collect();
    let mut problems = Vec::new();
    let steps = case["steps"].as_array().cloned().unwrap_or_default();
    for (i, expected) in steps.iter().enumerate() {
        let line = lines.get(PRELUDE + i).copied().unwrap_or_default();
        let Some(step) = trace.steps.get(PRELUDE + i) else {
            problems.push(format!("{name}: no step for `{line}`"));
            continue;
        };
        let want_error = expected[0].as_str();
        if want_error != step.error.as_deref() {
            problems.push(format!(
                "{name}: `{line}`\n  error expected {want_error:?}\n  got            {:?}",
                step.error
            ));
            continue;
        }
        if let Some(want) = expected[1].as_str() {
            let got = step.output.as_deref().unwrap_or_default();
            if !same_text(want, got) {
                let cut = |s: &str| s.chars().take(600).collect::<String>();
                problems.push(format!(
                    "{name}: `{line}`\n  printed expected {}\n  got              {}",
                    cut(want),
                    cut(got)
                ));
            }
        }
    }
    problems
}

fn check(name: &str) {
    let cases = cases();
    let case = cases.get(name).unwrap_or_else(|| panic!("no case {name}"));
    let problems = check_case(name, case);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn conv2d_computes_pytorchs_values() {
    check("conv2d_values");
}

#[test]
fn conv1d_computes_pytorchs_values() {
    check("conv1d_values");
}

#[test]
fn conv_transpose_computes_pytorchs_values() {
    check("conv_transpose_values");
}

#[test]
fn convolution_outputs_have_pytorchs_shapes_strides_and_dtypes() {
    check("layouts");
}

#[test]
fn same_padding_with_an_even_kernel_pads_the_odd_one_after() {
    check("same_padding");
}

#[test]
fn convolution_errors_are_pytorchs() {
    check("conv_errors");
}

#[test]
fn convolution_backward_gives_pytorchs_gradients() {
    check("conv_grad");
}

#[test]
fn conv_transpose_backward_gives_pytorchs_gradients() {
    check("conv_transpose_grad");
}

#[test]
fn poolings_compute_pytorchs_values_and_indices() {
    check("pool_values");
}

#[test]
fn poolings_keep_pytorchs_memory_formats() {
    check("pool_layouts");
}

#[test]
fn pooling_errors_are_pytorchs() {
    check("pool_errors");
}

#[test]
fn pooling_backward_gives_pytorchs_gradients() {
    check("pool_grad");
}

#[test]
fn every_recorded_case_has_a_test() {
    let names = [
        "conv2d_values",
        "conv1d_values",
        "conv_transpose_values",
        "layouts",
        "same_padding",
        "conv_errors",
        "conv_grad",
        "conv_transpose_grad",
        "pool_values",
        "pool_layouts",
        "pool_errors",
        "pool_grad",
        "warning_and_work",
        "adaptive_1d",
        "meta",
    ];
    for name in cases().keys() {
        assert!(names.contains(&name.as_str()), "case {name} is not tested");
    }
}

#[test]
fn adaptive_1d_poolings_are_the_2d_ones_squeezed() {
    check("adaptive_1d");
}

#[test]
fn meta_tensors_get_shapes_and_strides_without_values() {
    check("meta");
}

#[test]
fn a_conv_after_a_warning_still_computes() {
    check("warning_and_work");
}

#[test]
fn same_padding_with_an_even_kernel_warns_once_as_pytorch_does() {
    let trace = trace_script(
        "import torch\nimport torch.nn.functional as F\ny = F.conv2d(torch.ones(1, 3, 4, 4), torch.ones(2, 3, 2, 2), padding='same')\ny = F.conv2d(torch.ones(1, 3, 4, 4), torch.ones(2, 3, 2, 2), padding='same')\nprint(y.shape)",
    );
    assert_eq!(
        trace.steps[2].warnings,
        ["UserWarning: Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the input be created (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1135.)"]
    );
    assert!(trace.steps[3].warnings.is_empty());
    assert_eq!(
        trace.steps[4].output.as_deref(),
        Some("torch.Size([1, 2, 4, 4])")
    );
}

#[test]
fn absurd_convolutions_are_refused_by_the_work_limits() {
    // 64 x 4096 x 9 x 4096 positions of im2col per batch element: past max_op_elements.
    let trace = trace_script(
        "import torch\nimport torch.nn.functional as F\ny = F.conv2d(torch.zeros(1, 512, 128, 128), torch.zeros(512, 512, 3, 3), padding=1)\nprint(1)",
    );
    let error = trace.steps[2].error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with("RuntimeError: conv2d: ") && error.contains("more than Stridescope"),
        "{error}"
    );
    assert_eq!(trace.steps[3].output.as_deref(), Some("1"));
}
