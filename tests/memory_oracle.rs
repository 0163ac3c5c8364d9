//! Where a model's memory goes, measured against real PyTorch 2.15:
//! `tests/fixtures/memory/memory.torch.jsonl` (`memory-<name>`; and the other recorded sets of
//! that folder, recorded by `tools/oracle/memory_sets/record.sh SET`: `attention`, `nn_utils`, `rnn`,
//! `inplace_autograd`), the scripts of
//! `tools/oracle/memory/<name>.py` (parameter counting by formula and by `numel()`, the issue's
//! `Linear(100, 200) → ReLU → Linear(200, 10)` with `nn.ReLU()` and `nn.ReLU(inplace=True)`,
//! training steps with SGD momentum, Adam and AdamW, `zero_grad`, `torch.no_grad()`,
//! float16/bfloat16, a small CNN, both kinds of `torch.utils.checkpoint`, a `gpu_mem_track`-like
//! tracker, `del` and rebinding, in-place ops, a training loop, views against copies, a
//! `class Net(nn.Module)`, hand-written attention, Python scalars and reductions, what the walk
//! reaches (class attributes, default arguments, dict keys, a module's list attribute, views of a
//! big storage, meta tensors), a meta-device model, the optimizer zoo with clipping, LSTM/RNN, a
//! Transformer encoder layer; half of them commented in Chinese), recorded by
//! `tools/oracle/memory/record.sh` (`tools/oracle/record.py --memory`: every step has the
//! oracle's tensors and the trace contract's `memory` object, as
//! `../shared/oracle/record_memory.py` records it).
//!
//! Each case is traced in-process; every step's `memory` is compared as `check.py`'s
//! `memory_diffs` does: `live_bytes` exact, `saved` as sorted `[node, slot, shape, dtype]` lists,
//! `peak_bytes` exact where the recording has one (null where a profile could not see it). The
//! test prints, per script and in all, the steps whose live bytes, saved tensors and peak are
//! exact, and the peaks within 5%; the floors below are what the evaluator reached when this test
//! was last measured (session 27, 44 scripts: the course set and the attention, recurrent,
//! `torch.nn.utils` and in-place autograd sets, 1021 steps: live 1021 (100%), saved 1021
//! (100%), peak exact 969/1002 (96.7%), peak within 5% 988/1002 (98.6%), forward-only peaks
//! exact 892/894, tensors 1018 (99.7%) — left: the bf16 GEMM scratch (`half_precision`),
//! backward peaks), to be raised as the memory accounting improves (issue 19's goal: peak
//! equal where recorded).
//! `STRIDESCOPE_MEMORY_ALL=1` prints every difference instead of each script's first three.

mod common;

use serde_json::Value;
use std::sync::mpsc;
use std::time::Duration;

/// Recorded scripts the fixture must hold at least.
const MIN_CASES: usize = 14;
/// Steps (all scripts) whose `live_bytes` must be exact, in percent.
const LIVE_EXACT_FLOOR: f64 = 100.0;
/// Steps whose `saved` list must be exact, in percent.
const SAVED_EXACT_FLOOR: f64 = 100.0;
/// Steps with a recorded peak whose `peak_bytes` must be exact, in percent.
const PEAK_EXACT_FLOOR: f64 = 96.5;
/// Steps with a recorded peak whose `peak_bytes` must be within 5%, in percent.
const PEAK_WITHIN_5_FLOOR: f64 = 98.0;
/// Steps whose tensors, outputs and errors must match (the oracle's other fields), in percent.
const TENSOR_STEPS_FLOOR: f64 = 99.4;
/// A case that traces longer than this counts as failing (a loop that never ends).
const CASE_TIMEOUT: Duration = Duration::from_secs(60);

/// Traces one script on its own thread (so that a panic or a hang fails that case only).
fn trace(case: &Value) -> Option<Value> {
    let (tx, rx) = mpsc::channel();
    let script = case["script"].as_str().unwrap_or("").to_string();
    std::thread::spawn(move || {
        let json =
            std::panic::catch_unwind(|| stridescope::interp::trace_script(&script).to_json());
        let _ = tx.send(json);
    });
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Ok(json)) => serde_json::from_str::<Value>(&json).ok(),
        Ok(Err(_)) | Err(_) => None,
    }
}

/// How many steps of one script (or of all) match, field by field.
#[derive(Default)]
struct Figures {
    steps: usize,
    tensor_ok: usize,
    live: usize,
    saved: usize,
    peaks: usize,
    peak_exact: usize,
    peak_within_5: usize,
    /// Peaks of steps that run `backward()` or `.step()` (the rest run forward ops only):
    /// recorded, exact, within 5%, and the sum of |relative difference| (for the mean).
    train_peaks: usize,
    train_exact: usize,
    train_within_5: usize,
    train_rel_sum: f64,
}

impl Figures {
    fn add(&mut self, o: &Figures) {
        self.steps += o.steps;
        self.tensor_ok += o.tensor_ok;
        self.live += o.live;
        self.saved += o.saved;
        self.peaks += o.peaks;
        self.peak_exact += o.peak_exact;
        self.peak_within_5 += o.peak_within_5;
        self.train_peaks += o.train_peaks;
        self.train_exact += o.train_exact;
        self.train_within_5 += o.train_within_5;
        self.train_rel_sum += o.train_rel_sum;
    }
}

fn pct(x: usize, of: usize) -> f64 {
    if of == 0 {
        100.0
    } else {
        100.0 * x as f64 / of as f64
    }
}

/// How many differences a case reports: 3, or all with `STRIDESCOPE_MEMORY_ALL` set.
fn shown_max() -> usize {
    if std::env::var_os("STRIDESCOPE_MEMORY_ALL").is_some() {
        usize::MAX
    } else {
        3
    }
}

/// Compares one case's memory objects, step by step; returns its figures and the first
/// differences (for the report).
fn compare_memory(case: &Value, got: Option<&Value>) -> (Figures, Vec<String>) {
    let mut f = Figures::default();
    let mut firsts = Vec::new();
    let tensor_result = common::compare_trace(case, got);
    let empty = Vec::new();
    let expected = case["steps"].as_array().unwrap_or(&empty);
    let steps = got.and_then(|t| t["steps"].as_array()).unwrap_or(&empty);
    let lines: Vec<&str> = case["script"].as_str().unwrap_or("").lines().collect();
    let line_of = |s: &Value| s["line"].as_u64().unwrap_or(1).max(1) as usize;
    for (i, e) in expected.iter().enumerate() {
        f.steps += 1;
        // The step's text: its line up to the next step's (a block's whole body).
        let (from, to) = (
            line_of(e) - 1,
            expected.get(i + 1).map_or(lines.len(), line_of) - 1,
        );
        let text = lines.get(from..to.max(from + 1)).unwrap_or(&[]).join("\n");
        let trains = text.contains("backward(") || text.contains(".step(");
        if tensor_result
            .steps
            .get(i)
            .is_some_and(|s| s.problems.is_empty())
        {
            f.tensor_ok += 1;
        } else if firsts.len() < shown_max() {
            let problems = tensor_result
                .steps
                .get(i)
                .map(|s| s.problems.join("; "))
                .unwrap_or_else(|| "step missing".to_string());
            firsts.push(format!(
                "line {} `{}`: {problems}",
                e["line"],
                e["source"].as_str().unwrap_or("")
            ));
        }
        let em = &e["memory"];
        let gm = steps.get(i).map(|s| &s["memory"]).unwrap_or(&Value::Null);
        let at = format!(
            "line {} `{}`",
            e["line"],
            e["source"].as_str().unwrap_or("")
        );
        if em["live_bytes"] == gm["live_bytes"] {
            f.live += 1;
        } else if firsts.len() < shown_max() {
            firsts.push(format!(
                "{at}: live_bytes {} != {}",
                em["live_bytes"], gm["live_bytes"]
            ));
        }
        if common::saved_key(em) == common::saved_key(gm) {
            f.saved += 1;
        } else if firsts.len() < shown_max() {
            firsts.push(format!(
                "{at}: saved {:?} != {:?}",
                common::saved_key(em),
                common::saved_key(gm)
            ));
        }
        if let Some(peak) = em["peak_bytes"].as_u64() {
            f.peaks += 1;
            let got_peak = gm["peak_bytes"].as_u64();
            if got_peak == Some(peak) {
                f.peak_exact += 1;
            } else if firsts.len() < shown_max() {
                firsts.push(format!("{at}: peak_bytes {peak} != {}", gm["peak_bytes"]));
            }
            let within =
                got_peak.is_some_and(|g| (g as f64 - peak as f64).abs() <= 0.05 * peak as f64);
            if within {
                f.peak_within_5 += 1;
            }
            if trains {
                f.train_peaks += 1;
                f.train_exact += usize::from(got_peak == Some(peak));
                f.train_within_5 += usize::from(within);
                f.train_rel_sum += got_peak.map_or(1.0, |g| {
                    (g as f64 - peak as f64).abs() / (peak as f64).max(1.0)
                });
            }
        }
    }
    (f, firsts)
}

/// Every recorded script: per-script and total figures, each total above its floor.
#[test]
fn memory_accounting_matches_pytorch() {
    // The course scripts, then every other recorded set beside them (attention, recurrent).
    let dir = common::fixture("memory");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.to_str().is_some_and(|s| s.ends_with(".torch.jsonl"))
            && !p.ends_with("memory.torch.jsonl")
    });
    files.sort();
    let mut cases = common::read_cases(&dir.join("memory.torch.jsonl"));
    for f in &files {
        cases.extend(common::read_cases(f));
    }
    assert!(
        cases.len() >= MIN_CASES,
        "only {} cases in the memory fixture",
        cases.len()
    );
    assert!(
        cases.iter().all(|c| c["steps"]
            .as_array()
            .is_some_and(|s| s.iter().all(|st| st["memory"]["live_bytes"].is_u64()))),
        "every recorded step has a memory object"
    );
    let mut total = Figures::default();
    println!(
        "  {:<38} {:>5} {:>7} {:>6} {:>6} {:>7} {:>6}",
        "script", "steps", "tensors", "live", "saved", "peak", "peak5%"
    );
    for case in &cases {
        let got = trace(case);
        let (f, firsts) = compare_memory(case, got.as_ref());
        println!(
            "  {:<38} {:>5} {:>7} {:>6} {:>6} {:>3}/{:<3} {:>6}{}",
            case["id"].as_str().unwrap_or("?"),
            f.steps,
            f.tensor_ok,
            f.live,
            f.saved,
            f.peak_exact,
            f.peaks,
            f.peak_within_5,
            if got.is_none() { "  (no trace)" } else { "" }
        );
        for d in firsts {
            println!("      {d}");
        }
        total.add(&f);
    }
    let figures = [
        (
            "tensors/outputs/errors exact",
            total.tensor_ok,
            total.steps,
            TENSOR_STEPS_FLOOR,
        ),
        (
            "live_bytes exact",
            total.live,
            total.steps,
            LIVE_EXACT_FLOOR,
        ),
        ("saved exact", total.saved, total.steps, SAVED_EXACT_FLOOR),
        (
            "peak_bytes exact",
            total.peak_exact,
            total.peaks,
            PEAK_EXACT_FLOOR,
        ),
        (
            "peak_bytes within 5%",
            total.peak_within_5,
            total.peaks,
            PEAK_WITHIN_5_FLOOR,
        ),
    ];
    let mut below = Vec::new();
    for (name, x, of, floor) in figures {
        let p = pct(x, of);
        println!("== memory oracle: {name}: {x}/{of} ({p:.1}%, floor {floor}%)");
        if p < floor {
            below.push(format!("{name}: {p:.1}% is below the floor of {floor}%"));
        }
    }
    let (fwd, fwd_exact, fwd_5) = (
        total.peaks - total.train_peaks,
        total.peak_exact - total.train_exact,
        total.peak_within_5 - total.train_within_5,
    );
    println!(
        "== memory oracle: forward-only peaks: exact {fwd_exact}/{fwd} ({:.1}%), within 5% {fwd_5}/{fwd} ({:.1}%)",
        pct(fwd_exact, fwd),
        pct(fwd_5, fwd)
    );
    println!(
        "== memory oracle: backward()/step() peaks: exact {}/{} ({:.1}%), within 5% {}/{} ({:.1}%), mean |difference| {:.1}%",
        total.train_exact,
        total.train_peaks,
        pct(total.train_exact, total.train_peaks),
        total.train_within_5,
        total.train_peaks,
        pct(total.train_within_5, total.train_peaks),
        100.0 * total.train_rel_sum / total.train_peaks.max(1) as f64
    );
    assert!(below.is_empty(), "{}", below.join("\n"));
}
