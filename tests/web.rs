//! Components mounted in a real browser (`wasm-bindgen-test`, run by `./dev test` through
//! ChromeDriver): the app renders a trace of the default scenario and its controls step it.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("document")
}

fn text(selector: &str) -> String {
    document()
        .query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
fn the_app_mounts_and_steps_the_default_scenario() {
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.clear();
    }
    leptos::mount::mount_to_body(stridescope::shells::web::App);
    assert!(text("[data-testid=engine-badge]").contains("CPU"));
    // The words come from the catalog of the browser's language (English here), set on <html>.
    let lang = document()
        .document_element()
        .and_then(|e| e.get_attribute("lang"))
        .unwrap_or_default();
    assert!(lang == "en" || lang == "zh-CN", "{lang}");
    assert!(document()
        .query_selector("[data-testid=lang-switch]")
        .ok()
        .flatten()
        .is_some());
    let label = text("[data-testid=step-label]");
    assert!(
        label.starts_with("Step 1 of ") || label.starts_with("第 1 步"),
        "{label}"
    );
    let views = document()
        .query_selector_all("[data-testid=view]")
        .expect("views")
        .length();
    assert_eq!(views, 1, "after the first statement only `a` exists");
    // The first storage holds a's 15 int64 elements.
    let storage = document()
        .query_selector("[data-testid=storage]")
        .ok()
        .flatten()
        .expect("storage");
    assert_eq!(storage.get_attribute("data-nbytes").as_deref(), Some("120"));
    assert_eq!(
        document()
            .query_selector_all("[data-testid=storage-cell]")
            .expect("cells")
            .length(),
        15
    );
}

/// The CPU engine's float32 matrix product in the browser (128-bit vector blocks, `simd128`,
/// without a fused multiply-add instruction) gives MKL's `sgemm` chains: each `c[i][j]` is
/// `fma(a[i][k-1], b[k-1][j], ... fma(a[i][0], b[0][j], 0.0))` in float32, as `f32::mul_add`
/// (correctly rounded) computes it.
#[wasm_bindgen_test]
fn the_matrix_product_in_the_browser_sums_in_the_reference_order() {
    let (m, k, n) = (37, 53, 29);
    let script = format!(
        "torch.manual_seed(0)\na = torch.randn({m}, {k})\nb = torch.randn({k}, {n})\nc = a @ b\nd = a.t().contiguous().t() @ b\n"
    );
    let json = stridescope::interp::trace_script(&script).to_json();
    let trace: serde_json::Value = serde_json::from_str(&json).expect("trace JSON");
    let last = trace["steps"]
        .as_array()
        .and_then(|s| s.last())
        .expect("steps");
    // As float32 (the trace writes each value in the fewest digits that read back).
    let values = |name: &str| -> Vec<f32> {
        last["tensors"]
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["name"] == name))
            .and_then(|t| t["values"].as_array())
            .map(|vs| {
                vs.iter()
                    .filter_map(|v| v.as_f64())
                    .map(|v| v as f32)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (values("a"), values("b"));
    assert_eq!((a.len(), b.len()), (m * k, k * n));
    let mut reference = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for p in 0..k {
                s = a[i * k + p].mul_add(b[p * n + j], s);
            }
            reference.push(s);
        }
    }
    assert_eq!(values("c"), reference, "a @ b");
    assert_eq!(values("d"), reference, "a column-major a @ b");
}
