//! The dense layers' functional ops against PyTorch 2.15 (CPU): `F.linear`/`torch.addmm`,
//! `F.embedding`, `F.dropout` (and `dropout1d/2d/3d`, `torch.dropout`), `F.bilinear`, the
//! activations' and losses' gradients, and the two-layer network of "Learning PyTorch with
//! Examples" trained with manual SGD.
//!
//! Each script of `tests/fixtures/dense/` runs statement by statement through the evaluator;
//! what it prints (and `ERR: <class>: <message>` for a statement that raised) is compared
//! with what PyTorch printed for the same script (`record.py`, the `.torch.txt` beside it):
//! the text exactly, the numbers within `rtol` (float32 sums are not PyTorch's MKL order).

use stridescope::engines::CpuEngine;
use stridescope::interp::{Evaluator, Limits};

/// What the evaluator prints for `script`, as `record.py` prints PyTorch's run.
fn run(script: &str) -> String {
    let limits = Limits {
        memory_bytes: 2 << 30,
        ..Limits::default()
    };
    let mut ev = Evaluator::new(Box::new(CpuEngine::new()), limits);
    let trace = ev.run(script);
    let mut out = String::new();
    for step in &trace.steps {
        if let Some(printed) = &step.stdout {
            out.push_str(printed);
        }
        if let Some(error) = &step.error {
            out.push_str(&format!("ERR: {}\n", error.lines().next().unwrap_or("")));
        }
    }
    out
}

/// A piece of printed text: a number, or the text between numbers.
#[derive(Debug)]
enum Piece {
    Number(f64),
    Text(String),
}

/// `text` cut into numbers (`-1.5e-05`, `3`, `nan`) and the text between them.
fn pieces(text: &str) -> Vec<Piece> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut text_run = String::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit()
            || (chars[i] == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit));
        let after_word = i > 0 && (chars[i - 1].is_ascii_alphabetic() || chars[i - 1] == '_');
        if starts_number && !after_word {
            let start = i;
            i += 1;
            while i < chars.len() {
                let c = chars[i];
                let exponent_sign = (c == '-' || c == '+') && matches!(chars[i - 1], 'e' | 'E');
                if c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            let number: String = chars[start..i].iter().collect();
            match number.parse::<f64>() {
                Ok(x) => {
                    if !text_run.is_empty() {
                        out.push(Piece::Text(std::mem::take(&mut text_run)));
                    }
                    out.push(Piece::Number(x));
                }
                Err(_) => text_run.push_str(&number),
            }
        } else {
            text_run.push(chars[i]);
            i += 1;
        }
    }
    if !text_run.is_empty() {
        out.push(Piece::Text(text_run));
    }
    out
}

/// Compares the evaluator's printout with PyTorch's line by line: the same text, every
/// number within `rtol` (relative) or `atol` (absolute).
fn assert_matches(name: &str, ours: &str, torch: &str, rtol: f64, atol: f64) {
    let (ours_lines, torch_lines): (Vec<&str>, Vec<&str>) =
        (ours.lines().collect(), torch.lines().collect());
    for (n, (o, t)) in ours_lines.iter().zip(&torch_lines).enumerate() {
        let (po, pt) = (pieces(o), pieces(t));
        let same = po.len() == pt.len()
            && po.iter().zip(&pt).all(|(a, b)| match (a, b) {
                (Piece::Number(x), Piece::Number(y)) => {
                    (x.is_nan() && y.is_nan())
                        || x == y
                        || (x - y).abs() <= atol.max(rtol * x.abs().max(y.abs()))
                }
                (Piece::Text(x), Piece::Text(y)) => x == y,
                _ => false,
            });
        assert!(same, "{name} line {}:\n  ours:  {o}\n  torch: {t}", n + 1);
    }
    assert_eq!(
        ours_lines.len(),
        torch_lines.len(),
        "{name}: {} lines printed, PyTorch printed {}\nours:\n{ours}",
        ours_lines.len(),
        torch_lines.len()
    );
}

/// Runs `tests/fixtures/dense/<name>.py` and compares it with `<name>.torch.txt`.
fn check(name: &str, script: &str, torch: &str, rtol: f64) {
    assert_matches(name, &run(script), torch, rtol, 1e-6);
}

#[test]
fn linear_and_addmm_values_layouts_nodes_gradients_and_errors() {
    check(
        "linear",
        include_str!("fixtures/dense/linear.py"),
        include_str!("fixtures/dense/linear.torch.txt"),
        1e-5,
    );
}

#[test]
fn embedding_rows_padding_gradient_max_norm_and_errors() {
    check(
        "embedding",
        include_str!("fixtures/dense/embedding.py"),
        include_str!("fixtures/dense/embedding.torch.txt"),
        1e-6,
    );
}

#[test]
fn dropout_draws_the_default_generator_bit_for_bit() {
    // Masks of odd sizes, above 16 elements, of a transposed input (drawn in memory
    // order), the channel-wise variants, and the generator's state after them all.
    check(
        "dropout",
        include_str!("fixtures/dense/dropout.py"),
        include_str!("fixtures/dense/dropout.torch.txt"),
        0.0,
    );
}

#[test]
fn bilinear_values_nodes_gradients_and_errors() {
    // PyTorch's `_trilinear` sums in float32; the gradients here in double precision.
    check(
        "bilinear",
        include_str!("fixtures/dense/bilinear.py"),
        include_str!("fixtures/dense/bilinear.torch.txt"),
        1e-4,
    );
}

#[test]
fn activation_gradients_in_float32_and_float64() {
    check(
        "activations",
        include_str!("fixtures/dense/activations.py"),
        include_str!("fixtures/dense/activations.torch.txt"),
        1e-5,
    );
}

#[test]
fn loss_gradients_for_every_reduction() {
    check(
        "losses",
        include_str!("fixtures/dense/losses.py"),
        include_str!("fixtures/dense/losses.torch.txt"),
        1e-5,
    );
}

#[test]
fn the_two_layer_network_trains_as_in_pytorch() {
    // `x.mm(w1).clamp(min=0).mm(w2)`, the squared error summed, `backward()`, and SGD
    // under `torch.no_grad()`: the printed losses of 50 iterations, within the oracle's
    // float32 tolerance (PyTorch's products are MKL's float32 sums).
    check(
        "two_layer_net",
        include_str!("fixtures/dense/two_layer_net.py"),
        include_str!("fixtures/dense/two_layer_net.torch.txt"),
        1e-4,
    );
}

#[test]
fn numbers_and_text_are_told_apart() {
    let p = pieces("AddmmBackward0 [1.5e-05, -2] torch.Size([5, 4])");
    let numbers: Vec<f64> = p
        .iter()
        .filter_map(|p| match p {
            Piece::Number(x) => Some(*x),
            Piece::Text(_) => None,
        })
        .collect();
    assert_eq!(numbers, vec![1.5e-05, -2.0, 5.0, 4.0]);
}
