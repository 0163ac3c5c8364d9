//! The images `read_image("NAME")` reads in the browser. Before each run the page looks for
//! image file names in the script's string literals (`lang::names_in_script`) and fetches
//! the ones it does not hold from `samples/NAME` (the app's sample images, copied from
//! `www/samples`). The run never waits: it goes on with the images already held (a missing
//! one raises torchvision's "No such file" error), and runs again when a fetch lands. The
//! reader adds images by the file picker or by dropping files on the editor, under their file
//! names (kept for the page's life). PNG files are decoded by the app's own decoder
//! (`image::png`), bit for bit as torchvision; JPEG, GIF and WebP by the browser
//! (`createImageBitmap` without colour conversion or premultiplied alpha, read back from a
//! canvas), whose decoders may differ from libjpeg's by a few levels.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::core::image::{self, DecodedImage, ImageEntry, ImageError, ImageLibrary};
use crate::present::i18n::Msg;
use crate::shells::web::i18n::{t, tf, tm};
use crate::shells::web::{run_now, AppState};

/// The largest image file the page reads.
const MAX_FILE_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Where an image came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Sample,
    Added,
}

/// One row of the image list.
#[derive(Clone, Debug, PartialEq)]
struct ImageItem {
    name: String,
    origin: Origin,
    /// `[C, H, W]` as `read_image` gives it (UNCHANGED), or why it cannot be read.
    shape: Result<[u32; 3], String>,
}

/// The image list's signals, made once with the page.
#[derive(Clone, Copy)]
pub struct Images {
    items: RwSignal<Vec<ImageItem>>,
    loading: RwSignal<Vec<String>>,
    /// Names the page could not load, each with why.
    problems: RwSignal<Vec<(String, Msg)>>,
}

impl Images {
    /// The signals, also kept for the runs started outside components.
    pub fn new() -> Images {
        let images = Images {
            items: RwSignal::new(Vec::new()),
            loading: RwSignal::new(Vec::new()),
            problems: RwSignal::new(Vec::new()),
        };
        UI.with(|ui| *ui.borrow_mut() = Some(images));
        images
    }
}

thread_local! {
    /// The images held, by name.
    static LIBRARY: RefCell<ImageLibrary> = RefCell::new(ImageLibrary::default());
    /// Names already asked of `samples/` (held, on their way, or not there).
    static ASKED: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
    static UI: RefCell<Option<Images>> = const { RefCell::new(None) };
}

fn ui() -> Option<Images> {
    UI.with(|ui| *ui.borrow())
}

/// The images held now, for a run's evaluator.
pub fn library() -> ImageLibrary {
    LIBRARY.with(|l| l.borrow().clone())
}

/// Starts fetching the sample images the script names that the page does not hold yet; each
/// one that arrives runs the script again.
pub fn prepare(state: AppState) {
    let script = state.script.get_untracked();
    for name in crate::lang::names_in_script(&script) {
        if LIBRARY.with(|l| l.borrow().contains(&name))
            || !ASKED.with(|a| a.borrow_mut().insert(name.clone()))
        {
            continue;
        }
        if !image::is_sample_name(&name) {
            problem(&name, Msg::new("images-not-sample").arg("name", &name));
            continue;
        }
        if let Some(ui) = ui() {
            ui.loading.update(|l| l.push(name.clone()));
        }
        leptos::task::spawn_local(async move {
            let fetched = fetch_bytes(&format!("samples/{name}")).await;
            if let Some(ui) = ui() {
                ui.loading.update(|l| l.retain(|n| *n != name));
            }
            match fetched {
                Ok(bytes) => {
                    let entry = decode_any(&bytes).await;
                    hold(&name, Origin::Sample, entry);
                    run_now(state);
                }
                Err(reason) => problem(
                    &name,
                    Msg::new("images-not-found")
                        .arg("name", &name)
                        .arg("reason", reason),
                ),
            }
        });
    }
}

/// Adds `name` to the list of images that could not be loaded.
fn problem(name: &str, msg: Msg) {
    if let Some(ui) = ui() {
        ui.problems.update(|p| {
            p.retain(|(n, _)| n != name);
            p.push((name.to_string(), msg));
        });
    }
}

/// Holds a decoded image (or its error) under `name` and lists it.
fn hold(name: &str, origin: Origin, entry: ImageEntry) {
    let shape = match &entry {
        Ok(image) => Ok([image.color.channels() as u32, image.height, image.width]),
        Err(e) => Err(e.to_string()),
    };
    LIBRARY.with(|l| l.borrow_mut().add(name, entry));
    if let Some(ui) = ui() {
        ui.problems.update(|p| p.retain(|(n, _)| n != name));
        ui.items.update(|items| {
            items.retain(|i| i.name != name);
            items.push(ImageItem {
                name: name.to_string(),
                origin,
                shape,
            });
        });
    }
}

/// Why a JS call failed, in words.
fn reason(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "network error".to_string())
}

/// GETs `url` as bytes.
async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(reason)?
        .dyn_into()
        .map_err(|_| "no response".to_string())?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(reason)?)
        .await
        .map_err(reason)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Decodes an image file: PNG here, JPEG/GIF/WebP with the browser.
async fn decode_any(bytes: &[u8]) -> ImageEntry {
    match image::sniff(bytes) {
        Some("png") | None => image::decode(bytes).map(Rc::new),
        Some(_) => browser_decode(bytes)
            .await
            .map(Rc::new)
            .map_err(ImageError::Corrupt),
    }
}

/// The browser's decoding, as RGB(A) pixels without colour management.
async fn browser_decode(bytes: &[u8]) -> Result<DecodedImage, String> {
    let window = web_sys::window().ok_or("no window")?;
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(reason)?;
    let options = web_sys::ImageBitmapOptions::new();
    options.set_color_space_conversion(web_sys::ColorSpaceConversion::None);
    options.set_premultiply_alpha(web_sys::PremultiplyAlpha::None);
    let promise = window
        .create_image_bitmap_with_blob_and_image_bitmap_options(&blob, &options)
        .map_err(reason)?;
    let bitmap: web_sys::ImageBitmap = JsFuture::from(promise)
        .await
        .map_err(reason)?
        .dyn_into()
        .map_err(|_| "not an image".to_string())?;
    let (width, height) = (bitmap.width(), bitmap.height());
    if (width as usize) * (height as usize) * 4 > image::png::MAX_DECODED_BYTES {
        return Err(ImageError::TooLarge { width, height }.to_string());
    }
    let document = window.document().ok_or("no document")?;
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(reason)?
        .dyn_into()
        .map_err(|_| "no canvas".to_string())?;
    canvas.set_width(width);
    canvas.set_height(height);
    let context: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(reason)?
        .ok_or("no 2d context")?
        .dyn_into()
        .map_err(|_| "no 2d context".to_string())?;
    context
        .draw_image_with_image_bitmap(&bitmap, 0.0, 0.0)
        .map_err(reason)?;
    let data = context
        .get_image_data(0.0, 0.0, f64::from(width), f64::from(height))
        .map_err(reason)?;
    bitmap.close();
    DecodedImage::from_rgba(width, height, &data.data()).map_err(|e| e.to_string())
}

/// Reads and holds the reader's files under their names, then runs the script again.
fn add_files(state: AppState, files: &web_sys::FileList) {
    for i in 0..files.length() {
        let Some(file) = files.get(i) else { continue };
        let name = file.name();
        leptos::task::spawn_local(async move {
            let entry = if file.size() > MAX_FILE_BYTES {
                Err(ImageError::Corrupt(format!("{} bytes", file.size())))
            } else {
                match JsFuture::from(file.array_buffer()).await {
                    Ok(buffer) => decode_any(&js_sys::Uint8Array::new(&buffer).to_vec()).await,
                    Err(e) => Err(ImageError::Corrupt(reason(e))),
                }
            };
            hold(&name, Origin::Added, entry);
            run_now(state);
        });
    }
}

/// `dragover` on the editor: says that a dropped file is welcome.
pub fn on_dragover(ev: web_sys::DragEvent) {
    let has_files = ev.data_transfer().is_some_and(|d| {
        d.types()
            .iter()
            .any(|t| t.as_string().as_deref() == Some("Files"))
    });
    if has_files {
        ev.prevent_default();
    }
}

/// `drop` on the editor: adds the dropped files (text drops go on as usual).
pub fn on_drop(state: AppState, ev: web_sys::DragEvent) {
    let Some(files) = ev.data_transfer().and_then(|d| d.files()) else {
        return;
    };
    if files.length() > 0 {
        ev.prevent_default();
        add_files(state, &files);
    }
}

/// The markup of the image list: one row per image held, one per image on its way. Every
/// text goes through `escape_html` (file names are the reader's).
fn list_markup(images: Images) -> String {
    use crate::present::cells::escape_html;
    let mut html = String::new();
    for item in images.items.get() {
        let (shape_attr, detail) = match &item.shape {
            Ok([c, h, w]) => (format!("{c},{h},{w}"), format!("{c}×{h}×{w}")),
            Err(e) => (
                String::new(),
                tf("images-undecodable", &[("reason", e.into())]),
            ),
        };
        let origin = match item.origin {
            Origin::Sample => t("images-sample"),
            Origin::Added => t("images-added"),
        };
        let failed = if item.shape.is_err() {
            " class=\"failed\""
        } else {
            ""
        };
        html.push_str(&format!(
            "<li data-testid=\"image-item\" data-name=\"{name}\" data-shape=\"{shape_attr}\"{failed}><code>{name}</code> <span class=\"image-detail\">{detail}</span> <span class=\"image-origin\">{origin}</span></li>",
            name = escape_html(&item.name),
            detail = escape_html(&detail),
            origin = escape_html(&origin),
        ));
    }
    for name in images.loading.get() {
        let text = tf("images-loading", &[("name", name.into())]);
        html.push_str(&format!(
            "<li data-testid=\"image-loading\">{}</li>",
            escape_html(&text)
        ));
    }
    html
}

/// The markup of what could not be loaded, for the names the script still mentions.
fn problems_markup(state: AppState, images: Images) -> String {
    let named = crate::lang::names_in_script(&state.script.get());
    images
        .problems
        .get()
        .into_iter()
        .filter(|(name, _)| named.contains(name))
        .map(|(_, msg)| {
            format!(
                "<p class=\"notice\" role=\"status\" data-testid=\"image-problem\">{}</p>",
                crate::present::cells::escape_html(&tm(&msg))
            )
        })
        .collect()
}

/// The image bar under the editor: the images held, the picker, and what could not load.
#[component]
pub fn ImageBar() -> impl IntoView {
    let state = expect_context::<AppState>();
    let images = ui();
    let on_change = move |ev: leptos::ev::Event| {
        let input = event_target::<web_sys::HtmlInputElement>(&ev);
        if let Some(files) = input.files() {
            add_files(state, &files);
        }
        input.set_value("");
    };
    let list = move || images.map(list_markup).unwrap_or_default();
    let problems = move || {
        images
            .map(|images| problems_markup(state, images))
            .unwrap_or_default()
    };
    view! {
        <div class="image-bar" data-testid="images">
            <span class="image-title">{t("images-title")}</span>
            <ul class="image-list" data-testid="image-list" aria-label=t("images-title") inner_html=list></ul>
            <label class="image-add">
                {t("images-add")}
                <input
                    type="file"
                    accept="image/png,image/jpeg,image/gif,image/webp"
                    multiple=true
                    data-testid="image-picker"
                    aria-label=t("images-picker-label")
                    on:change=on_change
                />
            </label>
            <span class="hint">{t("images-hint")}</span>
            <div class="image-problems" inner_html=problems></div>
        </div>
    }
}
