//! The mirror engine (CPU reference + every op replayed on the GPU engine, as the browser
//! runs) leaves the GPU's storages byte-identical to the CPU's, on the oracle scripts.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::RefCell;
use std::rc::Rc;

use stridescope::engines::gpu::GpuEngine;
use stridescope::engines::mirror::{MirrorEngine, MirrorStats};
use stridescope::engines::{CpuEngine, Engine};
use stridescope::interp::{Evaluator, Limits};

#[test]
fn gpu_storages_match_the_reference_after_every_oracle_script() {
    std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    let gpu = Rc::new(RefCell::new(
        GpuEngine::new_blocking().expect("a GPU adapter (lavapipe in CI)"),
    ));
    let stats = Rc::new(RefCell::new(MirrorStats::default()));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/oracle/cases.jsonl");
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|_| format!("{{\"script\": {:?}}}", stridescope::DEFAULT_SCENARIO));
    let mut checked = 0;
    for line in text.lines().take(60) {
        let case: serde_json::Value = serde_json::from_str(line).expect("case");
        let script = case["script"].as_str().unwrap_or("");
        let mirrored = Evaluator::new(
            Box::new(MirrorEngine::new(gpu.clone(), stats.clone())),
            Limits::default(),
        )
        .run(script);
        let reference = Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(script);
        assert_eq!(
            serde_json::to_value(&mirrored.steps).expect("json"),
            serde_json::to_value(&reference.steps).expect("json"),
            "{script}"
        );
        let Some(last) = mirrored.steps.last() else {
            continue;
        };
        for storage in &last.storages {
            let gpu_id = stats.borrow().ids[&storage.id];
            let bytes = gpu.borrow_mut().read_storage(gpu_id);
            let dtype = storage.dtype;
            let values: Vec<_> = (0..bytes.len() / dtype.item_size())
                .map(|i| stridescope::core::trace::TraceScalar(dtype.read(&bytes, i)))
                .collect();
            assert_eq!(
                Some(values.as_slice()),
                storage.values.as_deref(),
                "GPU copy of {} after {script}",
                storage.id
            );
            checked += 1;
        }
    }
    let s = stats.borrow();
    println!(
        "{checked} storages identical; {} ops on the GPU, {} handed to the CPU",
        s.gpu_ops, s.cpu_ops
    );
    assert!(checked > 0 && s.gpu_ops > 0);
}
