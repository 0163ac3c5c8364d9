//! The browser shell (wasm32 only): runs the default scenario on the CPU engine and renders
//! its trace as a table of steps. It only renders the trace; it computes no semantics.
//! Every text is set with `set_text_content`: user text is never parsed as HTML.

use wasm_bindgen::JsValue;
use web_sys::{Document, Element};

use crate::eval::trace_script;
use crate::trace::Trace;

/// Mounts the app into `#app`.
pub fn start() {
    console_error_panic_hook::set_once();
    if let Err(e) = mount() {
        web_sys::console::error_1(&e);
    }
}

fn mount() -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let app = document
        .get_element_by_id("app")
        .ok_or_else(|| JsValue::from_str("no #app element"))?;
    let trace = trace_script(crate::DEFAULT_SCENARIO);
    app.set_text_content(None);
    add(&app, &render(&document, &trace)?)?;
    Ok(())
}

fn add(parent: &Element, child: &Element) -> Result<(), JsValue> {
    parent.append_child(child)?;
    Ok(())
}

fn el(document: &Document, tag: &str, class: &str, text: Option<&str>) -> Result<Element, JsValue> {
    let e = document.create_element(tag)?;
    if !class.is_empty() {
        e.set_class_name(class);
    }
    if let Some(t) = text {
        e.set_text_content(Some(t));
    }
    Ok(e)
}

fn render(document: &Document, trace: &Trace) -> Result<Element, JsValue> {
    let wrap = el(document, "section", "", None)?;
    let note = format!(
        "The default scenario, run by the {} engine compiled to WebAssembly: {} statements.",
        trace.engine,
        trace.steps.len()
    );
    add(&wrap, &el(document, "p", "note", Some(&note))?)?;
    let table = el(document, "table", "steps", None)?;
    let head = el(document, "tr", "", None)?;
    for h in ["line", "statement", "output", "tensors after it"] {
        add(&head, &el(document, "th", "", Some(h))?)?;
    }
    add(&table, &head)?;
    for step in &trace.steps {
        let row = el(document, "tr", "", None)?;
        add(
            &row,
            &el(document, "td", "mono", Some(&step.line.to_string()))?,
        )?;
        let src = el(document, "td", "", None)?;
        add(&src, &el(document, "code", "", Some(&step.source))?)?;
        add(&row, &src)?;
        let out = el(document, "td", "", None)?;
        if let Some(e) = &step.error {
            add(&out, &el(document, "pre", "error", Some(e))?)?;
        } else if let Some(o) = &step.output {
            add(&out, &el(document, "pre", "", Some(o))?)?;
        }
        add(&row, &out)?;
        let views = el(document, "td", "", None)?;
        for t in &step.tensors {
            let line = format!(
                "{}: shape {:?} stride {:?} offset {} {} {} ({} B)",
                t.name, t.shape, t.stride, t.storage_offset, t.dtype, t.storage, t.storage_nbytes
            );
            let view = el(document, "code", "view", Some(&line))?;
            let join = |v: &[i64]| {
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            view.set_attribute("data-name", &t.name)?;
            view.set_attribute("data-shape", &join(&t.shape))?;
            view.set_attribute("data-stride", &join(&t.stride))?;
            view.set_attribute("data-offset", &t.storage_offset.to_string())?;
            view.set_attribute("data-storage", &t.storage)?;
            add(&views, &view)?;
        }
        add(&row, &views)?;
        add(&table, &row)?;
    }
    add(&wrap, &table)?;
    Ok(wrap)
}
