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
