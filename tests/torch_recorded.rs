//! Data-driven: scripts recorded from real PyTorch (`tests/fixtures/*.torch.jsonl`, made with
//! `tools/oracle/record.py`) must trace exactly as PyTorch ran them: errors, outputs, and for
//! every tensor variable its dtype, shape, strides, offset, storage size, contiguity, sharing
//! and values (floats within the oracle's tolerances).

use serde_json::Value;
use stridescope::eval::trace_script;

fn tolerance(dtype: &str) -> Option<f64> {
    match dtype {
        "float16" => Some(1e-3),
        "bfloat16" => Some(1e-2),
        "float32" => Some(1e-5),
        "float64" => Some(1e-9),
        _ => None,
    }
}

fn values_match(dtype: &str, expected: &Value, got: &Value) -> bool {
    let (Some(e), Some(g)) = (expected.as_array(), got.as_array()) else {
        return false;
    };
    e.len() == g.len()
        && e.iter().zip(g).all(|(x, y)| match (x, y) {
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => match tolerance(dtype) {
                None => a.as_i64() == b.as_i64() && a.as_f64() == b.as_f64(),
                Some(tol) => {
                    let (a, b) = (
                        a.as_f64().unwrap_or(f64::NAN),
                        b.as_f64().unwrap_or(f64::NAN),
                    );
                    (a - b).abs() <= tol.max(tol * a.abs().max(b.abs()))
                }
            },
            _ => false,
        })
}

/// Canonical storage ids (`s0`, `s1`, ... in order of first appearance).
fn sharing(tensors: &[Value]) -> Vec<usize> {
    let mut seen: Vec<String> = Vec::new();
    tensors
        .iter()
        .map(|t| {
            let id = t["storage"].to_string();
            match seen.iter().position(|s| *s == id) {
                Some(i) => i,
                None => {
                    seen.push(id);
                    seen.len() - 1
                }
            }
        })
        .collect()
}

fn compare_case(case: &Value) -> Vec<String> {
    let id = case["id"].as_str().unwrap_or("?");
    let script = case["script"].as_str().unwrap_or("");
    let trace: Value = serde_json::from_str(&trace_script(script).to_json()).expect("trace JSON");
    let (Some(expected), Some(got)) = (case["steps"].as_array(), trace["steps"].as_array()) else {
        return vec![format!("{id}: no steps")];
    };
    let mut problems = Vec::new();
    if expected.len() != got.len() {
        problems.push(format!(
            "{id}: expected {} steps, got {}",
            expected.len(),
            got.len()
        ));
        return problems;
    }
    for (e, g) in expected.iter().zip(got) {
        let at = format!(
            "{id} line {} `{}`",
            e["line"],
            e["source"].as_str().unwrap_or("")
        );
        if e["error"] != g["error"] {
            problems.push(format!("{at}: error {} != {}", e["error"], g["error"]));
        }
        if e["output"] != g["output"] {
            problems.push(format!("{at}: output {} != {}", e["output"], g["output"]));
        }
        let (et, gt) = (
            e["tensors"].as_array().cloned().unwrap_or_default(),
            g["tensors"].as_array().cloned().unwrap_or_default(),
        );
        let names = |ts: &[Value]| ts.iter().map(|t| t["name"].to_string()).collect::<Vec<_>>();
        if names(&et) != names(&gt) {
            problems.push(format!(
                "{at}: tensors {:?} != {:?}",
                names(&et),
                names(&gt)
            ));
            continue;
        }
        for (x, y) in et.iter().zip(&gt) {
            for field in [
                "dtype",
                "shape",
                "stride",
                "storage_offset",
                "storage_nbytes",
                "contiguous",
            ] {
                if x[field] != y[field] {
                    problems.push(format!(
                        "{at}: {}.{field} {} != {}",
                        x["name"], x[field], y[field]
                    ));
                }
            }
            if !values_match(
                x["dtype"].as_str().unwrap_or(""),
                &x["values"],
                &y["values"],
            ) {
                problems.push(format!("{at}: {}.values differ", x["name"]));
            }
        }
        if sharing(&et) != sharing(&gt) {
            problems.push(format!(
                "{at}: storage sharing {:?} != {:?}",
                sharing(&et),
                sharing(&gt)
            ));
        }
    }
    problems
}

#[test]
fn scripts_recorded_from_pytorch_trace_exactly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut cases = 0;
    let mut problems = Vec::new();
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("fixtures folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".torch.jsonl"))
        .collect();
    // The generated regression corpus of tools/oracle (random scripts recorded from PyTorch).
    files.push(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tools/oracle/sample_cases.jsonl"
        )
        .into(),
    );
    for path in files {
        for line in std::fs::read_to_string(&path)
            .expect("fixture")
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            let case: Value = serde_json::from_str(line).expect("case JSON");
            cases += 1;
            problems.extend(compare_case(&case));
        }
    }
    assert!(cases > 0, "no recorded cases found in {dir}");
    assert!(
        problems.is_empty(),
        "{} differences from PyTorch:\n{}",
        problems.len(),
        problems.join("\n")
    );
    println!("{cases} PyTorch-recorded cases match");
}
