//! `torch.optim` (the optimizers `SGD`, `Adam`, `AdamW`, `RMSprop`, `Adagrad` and the
//! schedulers `StepLR`, `LambdaLR`): constructors, their checks and messages, `param_groups`,
//! `state`, `state_dict`/`load_state_dict`, `repr`, `zero_grad`, and 50 steps of each
//! optimizer on a small MLP, statement by statement against what PyTorch 2.15 printed for the
//! same scripts (`tests/fixtures/optim/cases.py`, recorded by
//! `tests/fixtures/optim/record.py` into `expected.json`). Numbers agree within the oracle's
//! float32 tolerance (`isclose(rel_tol=1e-5, abs_tol=1e-5)`); texts, errors and warnings
//! exactly (object addresses aside).

use serde_json::Value;
use stridescope::core::trace::Trace;
use stridescope::interp::trace_script;

/// Lines every case starts with (`import torch`, `import torch.nn as nn`, `import
/// torch.nn.functional as F`).
const PRELUDE: usize = 3;

fn cases() -> serde_json::Map<String, Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/optim/expected.json"
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
            .is_some_and(|p| p.is_ascii_alphanumeric() || p == '_');
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

/// Whether two printed texts are the same up to float tolerance and addresses; also the
/// largest difference between their numbers.
fn compare(expected: &str, got: &str) -> (bool, f64) {
    let (e, g) = (tokens(expected), tokens(got));
    let mut worst = 0.0f64;
    let same = e.len() == g.len()
        && e.iter().zip(&g).all(|(a, b)| match (a, b) {
            (Token::Text(a), Token::Text(b)) => a == b,
            (Token::Number(a), Token::Number(b)) => {
                worst = worst.max((a - b).abs());
                close(*a, *b)
            }
            _ => false,
        });
    (same, worst)
}

/// Runs one recorded case; returns its mismatches and the largest numeric difference.
fn check_case(name: &str, case: &Value) -> (Vec<String>, f64) {
    let script = case["script"].as_str().unwrap_or_default();
    let trace: Trace = trace_script(script);
    let mut problems = Vec::new();
    let mut worst = 0.0f64;
    let steps = case["steps"].as_array().cloned().unwrap_or_default();
    for expected in &steps {
        let line = expected[0].as_u64().unwrap_or_default() as usize + PRELUDE;
        let Some(step) = trace.steps.iter().find(|s| s.line == line) else {
            problems.push(format!("{name}: no step at line {line}"));
            continue;
        };
        let source = step.source.lines().next().unwrap_or_default();
        let want_error = expected[1].as_str();
        if want_error != step.error.as_deref() {
            problems.push(format!(
                "{name}:{line} `{source}`\n  error expected {want_error:?}\n  got            {:?}",
                step.error
            ));
            continue;
        }
        let want = expected[2].as_str().unwrap_or_default();
        let got = step.output.as_deref().unwrap_or_default();
        let (same, diff) = compare(want, got);
        worst = worst.max(diff);
        if !same {
            let cut = |s: &str| s.chars().take(800).collect::<String>();
            problems.push(format!(
                "{name}:{line} `{source}`\n  printed expected {}\n  got              {}",
                cut(want),
                cut(got)
            ));
        }
        let want_warnings: Vec<&str> = expected[3]
            .as_array()
            .map(|w| w.iter().filter_map(|s| s.as_str()).collect())
            .unwrap_or_default();
        if want_warnings != step.warnings {
            problems.push(format!(
                "{name}:{line} `{source}`\n  warnings expected {want_warnings:?}\n  got               {:?}",
                step.warnings
            ));
        }
    }
    (problems, worst)
}

fn check(name: &str) {
    let cases = cases();
    let case = cases.get(name).unwrap_or_else(|| panic!("no case {name}"));
    let (problems, worst) = check_case(name, case);
    eprintln!("{name}: largest difference from PyTorch {worst:e}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn constructors_repr_param_groups_and_errors_are_pytorchs() {
    check("constructors");
}

#[test]
fn zero_grad_state_dict_and_load_state_dict_are_pytorchs() {
    check("zero_grad_state_dict");
}

#[test]
fn parameters_without_grad_are_skipped_and_the_closure_runs() {
    check("skipped_params");
}

#[test]
fn script_subclasses_of_optimizers_and_schedulers_work() {
    check("subclasses");
}

#[test]
fn multistep_exponential_and_cosine_schedulers_are_pytorchs() {
    check("more_schedulers");
}

#[test]
fn schedulers_set_pytorchs_learning_rates() {
    check("schedulers");
}

#[test]
fn adam_on_a_manual_model_matches_pytorch() {
    check("manual_model");
}

#[test]
fn sgd_trains_the_mlp_as_pytorch_does() {
    check("mlp_sgd");
    check("mlp_sgd_momentum");
    check("mlp_sgd_nesterov");
    check("mlp_sgd_maximize");
}

#[test]
fn adam_trains_the_mlp_as_pytorch_does() {
    check("mlp_adam");
    check("mlp_adam_amsgrad");
    check("mlp_adam_maximize");
}

#[test]
fn adamw_trains_the_mlp_as_pytorch_does() {
    check("mlp_adamw");
    check("mlp_adamw_amsgrad");
}

#[test]
fn rmsprop_trains_the_mlp_as_pytorch_does() {
    check("mlp_rmsprop");
    check("mlp_rmsprop_centered");
}

#[test]
fn adagrad_trains_the_mlp_as_pytorch_does() {
    check("mlp_adagrad");
    check("mlp_adagrad_decay");
}
