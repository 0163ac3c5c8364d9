//! `torchvision.io.read_image` end to end: scripts recorded from torchvision 0.29 and PyTorch
//! 2.15 (`tests/fixtures/images.torchvision.jsonl`, made by `tools/oracle/record.py` run in
//! `tests/fixtures/png/` with torchvision importable) trace exactly, with the images found
//! beside the script; and `stridescope trace` reads the shipped `astronaut.png` as torchvision
//! does (its figures below were printed by torchvision 0.29.2).

mod common;

use std::process::Command;

use stridescope::engines::CpuEngine;
use stridescope::interp::{Evaluator, Limits};
use stridescope::shells::cli::images::FolderImages;

#[test]
fn recorded_torchvision_scripts_trace_exactly() {
    let cases = common::read_cases(&common::fixture("images.torchvision.jsonl"));
    assert!(cases.len() >= 4);
    let beside = common::fixture("png/script.py");
    let mut problems = Vec::new();
    for case in &cases {
        let script = case["script"].as_str().expect("script");
        let mut evaluator = Evaluator::new(Box::new(CpuEngine::new()), Limits::default());
        evaluator.set_images(Box::new(FolderImages::for_script(&beside)));
        let trace: serde_json::Value =
            serde_json::from_str(&evaluator.run(script).to_json()).expect("trace JSON");
        problems.extend(common::compare_trace(case, Some(&trace)).problems());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs `script` with `stridescope trace` from a fresh folder (so images come from the
/// samples) and returns its steps.
fn trace_cli(script: &str) -> Vec<serde_json::Value> {
    let dir = std::env::temp_dir().join(format!("stridescope-images-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Tests run on threads of one process: each call its own script file.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("script-{call}.py"));
    std::fs::write(&path, script).expect("script");
    let out = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .arg("trace")
        .arg(&path)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trace: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    trace["steps"].as_array().expect("steps").clone()
}

#[test]
fn the_cli_reads_astronaut_as_torchvision_does() {
    let steps = trace_cli(
        "import torch\n\
         from torchvision.io import read_image\n\
         img = read_image(\"astronaut.png\")\n\
         img.stride()\n\
         img[:, 100, 200]\n\
         x = img.float() / 255\n\
         y = img.unsqueeze(0).contiguous(memory_format=torch.channels_last)\n\
         c = img.contiguous()\n\
         c[:, 511, 0]\n",
    );
    let output = |i: usize| steps[i]["output"].as_str().unwrap_or("").to_string();
    let tensor = |i: usize, name: &str| {
        steps[i]["tensors"]
            .as_array()
            .expect("tensors")
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no tensor {name}"))
    };
    for step in &steps {
        assert!(step["error"].is_null(), "{step}");
    }
    let img = tensor(2, "img");
    assert_eq!(img["dtype"], "uint8");
    assert_eq!(img["shape"], serde_json::json!([3, 512, 512]));
    assert_eq!(img["stride"], serde_json::json!([1, 1536, 3]));
    assert_eq!(img["storage_offset"], 0);
    assert_eq!(output(3), "(1, 1536, 3)");
    assert_eq!(output(4), "tensor([81, 57, 17], dtype=torch.uint8)");
    let x = tensor(5, "x");
    assert_eq!(
        (x["dtype"].as_str(), &x["stride"]),
        (Some("float32"), &serde_json::json!([1, 1536, 3]))
    );
    // Already channels_last: `contiguous(memory_format=torch.channels_last)` returns the
    // same view (PyTorch's strides for the size-1 batch dimension included).
    let y = tensor(6, "y");
    assert_eq!(y["stride"], serde_json::json!([3, 1, 1536, 3]));
    assert_eq!(y["storage"], img["storage"]);
    let c = tensor(7, "c");
    assert_eq!(c["stride"], serde_json::json!([262144, 512, 1]));
    assert_ne!(c["storage"], img["storage"]);
    assert_eq!(output(8), "tensor([184, 167, 172], dtype=torch.uint8)");
}

#[test]
fn the_other_samples_have_torchvisions_shapes() {
    let steps = trace_cli(
        "from torchvision.io import read_image\n\
         read_image(\"camera.png\").shape\n\
         read_image(\"chelsea.png\").shape\n\
         read_image(\"coffee.png\").shape\n\
         read_image(\"camera.png\")[0, 256, 256]\n",
    );
    let outputs: Vec<&str> = steps[1..]
        .iter()
        .map(|s| s["output"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        outputs,
        [
            "torch.Size([1, 512, 512])",
            "torch.Size([3, 300, 451])",
            "torch.Size([3, 400, 600])",
            "tensor(14, dtype=torch.uint8)",
        ]
    );
}
