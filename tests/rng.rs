//! Data-driven: PyTorch's CPU random streams (`tests/fixtures/rng.torch.jsonl`, recorded with
//! `tools/oracle/record_rng.py` from torch 2.15 on x86-64) replayed through
//! `stridescope::core::tensor::random`. Each fixture line is one session: `torch.manual_seed(seed)`
//! and a sequence of `rand`/`randn`/`randint`/`randperm`/`*_like`/`uniform_`/`normal_`/`random_`
//! calls whose generator state and cached normal sample carry over. Every recorded value, every
//! large result's bit-pattern checksum and sum, and every error message must match.
//!
//! Floats are compared within the oracle's tolerances (float16 1e-3, bfloat16 1e-2, float32
//! 1e-5, float64 1e-9); the test also counts how many are bit-exact and prints the figures
//! (`cargo test --test rng -- --nocapture`).
//!
//! Note on the default seed: a real Python process seeds its default generator from
//! `/dev/urandom` (`torch.initial_seed()` differs per process); 67280421310721 is the seed of a
//! new `torch.Generator()`, which Stridescope uses for a script that never calls
//! `torch.manual_seed`. The sessions seeded with it record what such a generator draws.

use half::{bf16, f16};
use serde_json::Value;
use stridescope::core::tensor::random::{
    check_randperm_dtype, randperm, sample, CpuGenerator, Distribution,
};
use stridescope::core::tensor::{DType, Scalar};

const FIXTURE: &str = include_str!("fixtures/rng.torch.jsonl");

fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 1e-3,
        DType::BFloat16 => 1e-2,
        DType::Float32 => 1e-5,
        _ => 1e-9,
    }
}

fn expected_f64(v: &Value) -> f64 {
    match v {
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        // Floats are recorded as repr strings ("0.1", "inf", "nan"): parsed exactly.
        Value::String(s) => s.parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn scalar_f64(s: Scalar) -> f64 {
    match s {
        Scalar::Bool(b) => f64::from(u8::from(b)),
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

/// The element's bit pattern as the recorder sums it.
fn bits(s: Scalar, dtype: DType) -> u64 {
    match (s, dtype) {
        (Scalar::Float(f), DType::Float16) => u64::from(f16::from_f64(f).to_bits()),
        (Scalar::Float(f), DType::BFloat16) => u64::from(bf16::from_f64(f).to_bits()),
        (Scalar::Float(f), DType::Float32) => u64::from((f as f32).to_bits()),
        (Scalar::Float(f), _) => f.to_bits(),
        (Scalar::Int(i), _) => i as u64,
        (Scalar::Bool(b), _) => u64::from(b),
    }
}

/// Exactly rounded enough for a 1e-9 relative check: Neumaier's compensated sum.
fn sum(values: &[Scalar]) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for v in values {
        let x = scalar_f64(*v);
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    s + c
}

/// `torch.randperm(n, dtype=...)`'s values converted to the dtype.
fn convert(v: i64, dtype: DType) -> Scalar {
    match dtype {
        DType::Float16 => Scalar::Float(f64::from(f16::from_f32(v as f32))),
        DType::BFloat16 => Scalar::Float(f64::from(bf16::from_f32(v as f32))),
        DType::Float32 => Scalar::Float(f64::from(v as f32)),
        DType::Float64 => Scalar::Float(v as f64),
        _ => Scalar::Int(v),
    }
}

#[derive(Default)]
struct Tally {
    steps: usize,
    errors: usize,
    values: usize,
    within: usize,
    exact: usize,
    checksums: usize,
    checksums_exact: usize,
    failures: Vec<String>,
    /// Steps with values within tolerance but not bit-exact (reported, not failed).
    inexact: Vec<String>,
}

impl Tally {
    fn value(&mut self, context: &str, index: usize, dtype: DType, expected: &Value, got: Scalar) {
        self.values += 1;
        let (e, g) = (expected_f64(expected), scalar_f64(got));
        if e.to_bits() == g.to_bits() || (e.is_nan() && g.is_nan()) {
            self.exact += 1;
            self.within += 1;
        } else if dtype.is_floating() && (e - g).abs() <= tolerance(dtype) * e.abs().max(1.0) {
            self.within += 1;
            if !self.inexact.last().is_some_and(|f| f.starts_with(context)) {
                self.inexact
                    .push(format!("{context}: [{index}] expected {e:?}, got {g:?}"));
            }
        } else if self.failures.len() < 40
            && !self.failures.last().is_some_and(|f| f.starts_with(context))
        {
            // One line per step: the first element that differs.
            self.failures
                .push(format!("{context}: [{index}] expected {e:?}, got {g:?}"));
        }
    }
}

fn distribution(kind: &str, args: &[Value]) -> Option<Distribution> {
    let f = |i: usize| args.get(i).map_or(f64::NAN, expected_f64);
    let i = |k: usize| args.get(k).and_then(Value::as_i64).unwrap_or(0);
    Some(match kind {
        "uniform" => Distribution::Uniform {
            from: f(0),
            to: f(1),
        },
        "normal" => Distribution::Normal {
            mean: f(0),
            std: f(1),
        },
        "random_from_to" => Distribution::RandomFromTo {
            from: i(0),
            to_exclusive: i(1),
        },
        "random_from" => Distribution::RandomFrom { from: i(0) },
        "random_default" => Distribution::RandomDefault,
        _ => return None,
    })
}

fn check_step(tally: &mut Tally, generator: &mut CpuGenerator, id: &str, step: &Value) {
    tally.steps += 1;
    let call = step["call"].as_str().unwrap_or("?");
    let context = format!("{id}: {call}");
    let kind = step["kind"].as_str().unwrap_or("");
    let args = step["args"].as_array().cloned().unwrap_or_default();
    let got = if kind == "randperm" {
        let n = args.first().and_then(Value::as_i64).unwrap_or(0);
        // randperm's dtype is not recorded on errors; the call text names it.
        let dtype = step["dtype"]
            .as_str()
            .and_then(DType::from_name)
            .or_else(|| {
                call.split("dtype=torch.")
                    .nth(1)
                    .and_then(|s| DType::from_name(s.trim_end_matches(')')))
            })
            .unwrap_or(DType::Int64);
        check_randperm_dtype(n, dtype)
            .and_then(|()| randperm(generator, n))
            .map(|v| v.into_iter().map(|x| convert(x, dtype)).collect::<Vec<_>>())
    } else {
        let Some(dist) = distribution(kind, &args) else {
            tally
                .failures
                .push(format!("{context}: unknown kind {kind}"));
            return;
        };
        let dtype = step["dtype"]
            .as_str()
            .or_else(|| {
                call.split("dtype=torch.")
                    .nth(1)
                    .and_then(|s| s.split(&[')', ',']).next())
            })
            .and_then(DType::from_name)
            .unwrap_or(DType::Float32);
        let numel = step["numel"].as_u64().unwrap_or(1) as usize;
        let contiguous = step["contiguous"].as_bool().unwrap_or(true);
        sample(generator, &dist, dtype, numel, contiguous)
    };
    if let Some(error) = step["error"].as_str() {
        tally.errors += 1;
        match got {
            Err(e) if e.to_string() == error => {}
            Err(e) => tally.failures.push(format!(
                "{context}: expected {error:?}, got {:?}",
                e.to_string()
            )),
            Ok(_) => tally
                .failures
                .push(format!("{context}: expected {error:?}, got values")),
        }
        return;
    }
    let got = match got {
        Ok(v) => v,
        Err(e) => {
            tally.failures.push(format!("{context}: unexpected {e}"));
            return;
        }
    };
    let Some(dtype) = step["dtype"].as_str().and_then(DType::from_name) else {
        tally.failures.push(format!("{context}: no dtype"));
        return;
    };
    let numel = step["numel"].as_u64().unwrap_or(0) as usize;
    if got.len() != numel {
        tally
            .failures
            .push(format!("{context}: {} values, expected {numel}", got.len()));
        return;
    }
    if let Some(values) = step["values"].as_array() {
        for (i, v) in values.iter().enumerate() {
            tally.value(&context, i, dtype, v, got[i]);
        }
        return;
    }
    let head = step["head"].as_array().cloned().unwrap_or_default();
    let tail = step["tail"].as_array().cloned().unwrap_or_default();
    for (i, v) in head.iter().enumerate() {
        tally.value(&context, i, dtype, v, got[i]);
    }
    for (k, v) in tail.iter().enumerate() {
        let i = numel - tail.len() + k;
        tally.value(&context, i, dtype, v, got[i]);
    }
    for pair in step["samples"].as_array().cloned().unwrap_or_default() {
        let i = pair[0].as_u64().unwrap_or(0) as usize;
        tally.value(&context, i, dtype, &pair[1], got[i]);
    }
    if let Some(expected) = step["bitsum"].as_str() {
        tally.checksums += 1;
        let bitsum = got
            .iter()
            .fold(0u64, |acc, v| acc.wrapping_add(bits(*v, dtype)));
        let exact = expected == bitsum.to_string();
        let close = match step.get("sum") {
            Some(s) => {
                let (e, g) = (expected_f64(s), sum(&got));
                e == g || (e - g).abs() <= tolerance(dtype) * e.abs().max(1.0)
            }
            None => exact,
        };
        if exact {
            tally.checksums_exact += 1;
        } else {
            tally
                .inexact
                .push(format!("{context}: bit-pattern checksum differs"));
        }
        if !close && tally.failures.len() < 20 {
            tally
                .failures
                .push(format!("{context}: checksum/sum differs"));
        }
    }
}

#[test]
fn pytorch_random_streams_replay_exactly() {
    let mut tally = Tally::default();
    let mut sessions = 0;
    for line in FIXTURE.lines().filter(|l| !l.trim().is_empty()) {
        let session: Value = serde_json::from_str(line).expect("fixture line is JSON");
        sessions += 1;
        let id = session["id"].as_str().unwrap_or("?").to_string();
        let seed = session["seed"].as_u64().expect("seed");
        let mut generator = CpuGenerator::new(seed);
        for step in session["steps"].as_array().into_iter().flatten() {
            check_step(&mut tally, &mut generator, &id, step);
        }
    }
    println!(
        "rng fixture: {sessions} sessions, {} steps ({} errors); values {}/{} within tolerance, {} bit-exact; checksums {}/{} exact",
        tally.steps,
        tally.errors,
        tally.within,
        tally.values,
        tally.exact,
        tally.checksums_exact,
        tally.checksums
    );
    for line in tally.inexact.iter().take(20) {
        println!("  not bit-exact: {line}");
    }
    assert!(sessions >= 50, "the fixture has {sessions} sessions");
    assert!(
        tally.failures.is_empty(),
        "{} mismatches, first ones:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
    assert_eq!(tally.within, tally.values);
}

#[test]
fn default_seed_is_a_new_generators_seed() {
    let mut generator = CpuGenerator::default();
    assert_eq!(generator.initial_seed(), 67_280_421_310_721);
    // torch.Generator() then torch.randint(0, 9, (5, 3), generator=g), recorded with 2.15.
    let got = sample(
        &mut generator,
        &Distribution::RandomFromTo {
            from: 0,
            to_exclusive: 9,
        },
        DType::Int64,
        15,
        true,
    )
    .map(|v| v.into_iter().map(scalar_f64).collect::<Vec<_>>());
    let expected = [0., 2., 2., 7., 0., 2., 2., 5., 1., 8., 2., 4., 4., 7., 6.];
    assert_eq!(got.ok(), Some(expected.to_vec()));
}
