//! How long model scripts take to trace natively (CPU engine, default limits): parse,
//! evaluate and serialize the trace to JSON. Prints figures (median of the runs, trace size,
//! and what the script printed); asserts only that each script runs without an error.
//!
//! - `two_layer_loop.py`: "Learning PyTorch with Examples"' two-layer network, 500
//!   iterations of forward, `backward()` and manual SGD (goal: under 2 s, a trace a browser
//!   can hold);
//! - `mlp20_adam.py`: a 20-layer MLP of width 256, batch 64, forward + backward + Adam step
//!   (goal: under 1 s);
//! - `resnet18_meta.py`: a ResNet-18-shaped model's training step on the meta device (goal:
//!   under 1 s);
//! - `resnet50_meta.py`: a ResNet-50-shaped one (Bottleneck blocks), one SGD step on meta;
//! - `gpt2_meta.py`: a GPT-2-small-shaped model (12 blocks, width 768, sequence 1024, batch
//!   8) written with `nn.Module` classes and attention by hand, one AdamW step on meta (goal
//!   for both: under 2 s in the browser).
//!
//! Run: `cargo bench --bench models` (add `-- --runs N` to change the number of runs,
//! `-- --only NAME` to trace only the scripts whose name contains NAME).

use std::time::Instant;

use stridescope::engines::CpuEngine;
use stridescope::interp::{Evaluator, Limits};

/// The scripts, by name.
const SCRIPTS: &[(&str, &str)] = &[
    (
        "two_layer_loop.py",
        include_str!("models/two_layer_loop.py"),
    ),
    ("mlp20_adam.py", include_str!("models/mlp20_adam.py")),
    ("resnet18_meta.py", include_str!("models/resnet18_meta.py")),
    ("resnet50_meta.py", include_str!("models/resnet50_meta.py")),
    ("gpt2_meta.py", include_str!("models/gpt2_meta.py")),
];

/// Scripts that stop at a known gap of the evaluator: the bench reports the error instead of
/// failing (none today).
const KNOWN_GAPS: &[&str] = &[];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    println!("model scripts traced natively (CPU engine, median of {runs} runs)");
    for (name, source) in SCRIPTS {
        if only.is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let mut stopped = None;
        let mut eval_ms = Vec::new();
        let mut json_ms = Vec::new();
        let mut json_bytes = 0;
        let mut printed = String::new();
        let mut substeps = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let trace = Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(source);
            let evaluated = Instant::now();
            let json = trace.to_json();
            eval_ms.push((evaluated - start).as_secs_f64() * 1e3);
            json_ms.push(evaluated.elapsed().as_secs_f64() * 1e3);
            json_bytes = json.len();
            substeps = trace.steps.iter().map(|s| s.substeps.len()).sum();
            if let Some(failed) = trace.steps.iter().find(|s| s.error.is_some()) {
                let at = format!("line {}: {:?}", failed.line, failed.error);
                assert!(KNOWN_GAPS.contains(name), "{name}: {at}");
                stopped = Some(at);
            }
            printed = trace
                .steps
                .iter()
                .filter_map(|s| s.stdout.as_deref().or(s.output.as_deref()))
                .collect::<Vec<_>>()
                .join(" | ");
        }
        let (e, j) = (median(&mut eval_ms), median(&mut json_ms));
        println!("{name}");
        println!("  parse + evaluate: {e:9.1} ms");
        println!(
            "  trace to JSON:    {j:9.1} ms  ({:.2} MB, {substeps} recorded sub-steps)",
            json_bytes as f64 / 1e6
        );
        println!("  total:            {:9.1} ms", e + j);
        if let Some(at) = stopped {
            println!("  stopped at {at}");
        }
        println!("  printed: {}", printed.replace('\n', " / "));
    }
}

/// The median of `values` (sorted in place).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
