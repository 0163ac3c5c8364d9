//! How long a long script takes to trace natively: a generated 10,000-statement notebook
//! (views, copies, in-place writes, elementwise ops, reductions, errors and outputs) through
//! parse -> evaluate (CPU engine) -> trace JSON. Prints figures; asserts nothing about time.
//!
//! Also times a 10^6-element `torch.randn`.
//!
//! Run: `cargo bench --bench trace` (add `-- --statements N` to change the length).

use std::time::Instant;

use stridescope::engines::CpuEngine;
use stridescope::interp::{Evaluator, Limits};

/// The statement templates a generated script cycles through (`{i}` is the step number).
const TEMPLATES: &[&str] = &[
    "a = torch.arange(24, dtype=torch.float32).reshape(4, 6)",
    "b = a.t()",
    "c = b.contiguous()",
    "b[0, {m4}] = {i}",
    "d = a[1:, ::2]",
    "d.add_(1)",
    "e = a.view(2, 12)",
    "f = b.reshape(24)",
    "g = (a * 2 + 1).relu()",
    "h = g.sum(1, keepdim=True)",
    "a.stride(), b.stride(), d.storage_offset()",
    "x = torch.arange(48).reshape(1, 3, 4, 4).to(memory_format=torch.channels_last)",
    "y = x.permute(0, 2, 3, 1)",
    "y.is_contiguous()",
    "z = x.float().mean((2, 3))",
    "b.view(24)",
    "p, q = a.chunk(2)",
    "p.zero_()",
    "k = a.unsqueeze(0).expand(3, 4, 6)",
    "k[0, 0, 0] = 5",
    "m = a.half()",
    "m",
    "n = torch.ones(4, 6, dtype=torch.int8) * {m7}",
    "o = n.amax(0)",
];

fn script(statements: usize) -> String {
    let mut out = String::new();
    for i in 0..statements {
        let t = TEMPLATES[i % TEMPLATES.len()];
        let line = t
            .replace("{i}", &i.to_string())
            .replace("{m4}", &(i % 4).to_string())
            .replace("{m7}", &(i % 7).to_string());
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let statements = args
        .iter()
        .position(|a| a == "--statements")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let source = script(statements);
    let runs = 5;
    let mut eval_ms = Vec::new();
    let mut json_ms = Vec::new();
    let mut json_bytes = 0;
    let mut errors = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let trace = Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(&source);
        let evaluated = Instant::now();
        let json = trace.to_json();
        let done = Instant::now();
        eval_ms.push((evaluated - start).as_secs_f64() * 1e3);
        json_ms.push((done - evaluated).as_secs_f64() * 1e3);
        json_bytes = json.len();
        errors = trace.steps.iter().filter(|s| s.error.is_some()).count();
        assert_eq!(trace.steps.len(), statements);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let (e, j) = (median(&mut eval_ms), median(&mut json_ms));
    println!(
        "trace of a generated {statements}-statement script (median of {runs} runs, CPU engine)"
    );
    println!("  parse + evaluate: {e:8.1} ms");
    println!(
        "  trace to JSON:    {j:8.1} ms  ({:.1} MB, {errors} statements raised)",
        json_bytes as f64 / 1e6
    );
    println!(
        "  total:            {:8.1} ms  ({:.1} µs per statement)",
        e + j,
        (e + j) * 1e3 / statements as f64
    );
    randn_million();
}

/// A notebook cell drawing a million normal samples: `torch.randn` runs PyTorch's generator
/// bit for bit on the host (the Box-Muller blocks of `normal_fill`), then the trace records
/// the values. Prints the median of 5 runs.
fn randn_million() {
    let source = "x = torch.randn(1000, 1000)";
    let mut eval_ms = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let trace = Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(source);
        eval_ms.push(start.elapsed().as_secs_f64() * 1e3);
        assert!(trace.steps[0].error.is_none());
    }
    eval_ms.sort_by(|a, b| a.total_cmp(b));
    println!(
        "torch.randn(1000, 1000) (10^6 float32 samples, traced): {:8.1} ms (median of 5)",
        eval_ms[2]
    );
}
