//! Sharing from the page: "Copy link", the Embed dialog, SVG and PNG export, the notice for
//! links that could not be opened, and, in embed mode, telling the parent page our height.
//! The link format and the snippet are `crate::present::share`'s and the drawing `crate::present::export`'s;
//! this module only wires them to the DOM.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::present::share::{self, EmbedOptions, PanelKind, PinnedCell, SharedState, Theme};
use crate::shells::web::i18n::{t, tf, tm};
use crate::shells::web::{AppState, Hover};

/// The catalog id of a panel's label.
fn panel_label(p: PanelKind) -> &'static str {
    match p {
        PanelKind::Editor => "panel-editor",
        PanelKind::Steps => "panel-steps",
        PanelKind::Output => "panel-output",
        PanelKind::Memory => "panel-memory",
        PanelKind::Storage => "panel-storage",
        PanelKind::Views => "panel-views",
    }
}

/// The catalog id of a theme's name.
fn theme_label(theme: Theme) -> &'static str {
    match theme {
        Theme::Auto => "theme-auto",
        Theme::Light => "theme-light-name",
        Theme::Dark => "theme-dark-name",
    }
}

/// The pinned cell of the page, as a link stores it.
pub fn pinned_of(hover: &Hover) -> PinnedCell {
    PinnedCell {
        storage: hover.storage.to_string(),
        offset: hover.offset,
        view: hover.view.clone(),
    }
}

/// A link's pinned cell, as the page highlights it (None when the link names no storage
/// a trace could hold: such a pin highlights nothing).
pub fn hover_of(pinned: &PinnedCell) -> Option<Hover> {
    Some(Hover {
        storage: crate::core::tensor::StorageId::parse(&pinned.storage)?,
        offset: pinned.offset,
        view: pinned.view.clone(),
    })
}

/// Everything a link restores, as the page shows it now.
pub fn current_state(state: AppState) -> SharedState {
    SharedState {
        script: state.script.get_untracked(),
        step: state.step.get_untracked(),
        pinned: state.pinned.get_untracked().as_ref().map(pinned_of),
        picked: state.picked.get_untracked(),
        theme: state.theme.get_untracked(),
        hidden: state.hidden.get_untracked(),
        read_only: state.read_only.get_untracked(),
        height: None,
        title: None,
        cuda: crate::shells::web::panels::memory::cuda_run(),
    }
}

/// The page's address without its hash.
fn page_address() -> String {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return String::new();
    };
    let href = location.href().unwrap_or_default();
    match href.split_once('#') {
        Some((base, _)) => base.to_string(),
        None => href,
    }
}

/// The address of `embed.html` beside this page (same folder, any subpath, file:// too).
pub fn embed_address() -> String {
    let base = page_address();
    let base = base.split_once('?').map(|(b, _)| b).unwrap_or(&base);
    match base.rfind('/') {
        Some(i) => format!("{}embed.html", &base[..=i]),
        None => "embed.html".to_string(),
    }
}

/// The full app's address beside this page, for "Open in Stridescope" from an embed.
pub(crate) fn app_address() -> String {
    let embed = embed_address();
    format!("{}index.html", embed.trim_end_matches("embed.html"))
}

/// A link to the page as it is now.
pub fn share_link(state: AppState) -> String {
    let base = page_address();
    format!("{base}#{}", share::encode(&current_state(state)))
}

/// Replaces the address bar's hash without adding a history entry.
pub fn write_hash(hash: &str) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{hash}")));
    }
}

pub(crate) fn copy_to_clipboard(text: &str, done: impl FnOnce(bool) + 'static) {
    let Some(window) = web_sys::window() else {
        done(false);
        return;
    };
    let promise = window.navigator().clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// Saves `blob` as a download called `name`.
fn download(blob: &web_sys::Blob, name: &str) {
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(a) = document
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        if let Some(body) = document.body() {
            let _ = body.append_child(&a);
            a.click();
            a.remove();
        }
    }
    // The browser has the file once the click is handled; free the URL a little later.
    let _ = leptos::leptos_dom::helpers::set_timeout_with_handle(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
}

fn svg_blob(svg: &str) -> Option<web_sys::Blob> {
    let parts = js_sys::Array::of1(&JsValue::from_str(svg));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/svg+xml;charset=utf-8");
    web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()
}

/// The pictures the page's canvases show now (large views and storages), for the PNG.
fn canvas_rasters() -> Vec<crate::present::export::Raster> {
    use crate::present::export::{Raster, RasterOf};
    let Some(found) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector_all("canvas[data-testid=gpu-view]").ok())
    else {
        return Vec::new();
    };
    (0..found.length())
        .filter_map(|i| {
            let canvas = found
                .item(i)?
                .dyn_into::<web_sys::HtmlCanvasElement>()
                .ok()?;
            let of = match (
                canvas.get_attribute("data-name"),
                canvas.get_attribute("data-storage"),
            ) {
                (Some(name), _) => RasterOf::View(name),
                (None, Some(id)) => RasterOf::Storage(crate::core::tensor::StorageId::parse(&id)?),
                _ => return None,
            };
            Some(Raster {
                of,
                // Drawn now with what goes over it (a WebGPU canvas is read in its frame's task).
                href: super::panels::canvas_picture(&canvas)?,
                width: f64::from(canvas.width()),
                height: f64::from(canvas.height()),
            })
        })
        .collect()
}

/// The current step's diagram, highlighting the hovered or pinned cell; large views and
/// storages are drawn as `rasters` show them.
fn diagram(state: AppState, rasters: &[crate::present::export::Raster]) -> Option<(String, usize)> {
    let i = state.step.get_untracked();
    let highlight = state
        .hover
        .get_untracked()
        .or_else(|| state.pinned.get_untracked())
        .map(|h| (h.storage, h.offset));
    let dark = state.dark.get_untracked();
    state.trace.with_untracked(|t| {
        let step = t.steps.get(i)?;
        let options = crate::present::export::DiagramOptions {
            highlight,
            dark,
            lang: crate::shells::web::i18n::lang_untracked(),
            heading: tf(
                "step-label",
                &[
                    ("n", (i + 1).into()),
                    ("count", t.steps.len().into()),
                    ("line", step.line.into()),
                ],
            ),
        };
        Some((
            crate::present::export::diagram_svg_with(step, &options, rasters),
            i + 1,
        ))
    })
}

fn export_svg(state: AppState, status: RwSignal<String>) {
    // Vector only: a large view is said to be a raster (the PNG has its picture).
    let Some((svg, k)) = diagram(state, &[]) else {
        status.set(t("export-nothing"));
        return;
    };
    match svg_blob(&svg) {
        Some(blob) => {
            let name = format!("stridescope-step-{k}.svg");
            download(&blob, &name);
            status.set(tf("export-saved", &[("name", name.into())]));
        }
        None => status.set(t("export-svg-failed")),
    }
}

/// The largest side of an exported PNG, in pixels (browsers refuse larger canvases).
const MAX_PNG_SIDE: f64 = 16_000.0;

fn export_png(state: AppState, status: RwSignal<String>) {
    let Some((svg, k)) = diagram(state, &canvas_rasters()) else {
        status.set(t("export-nothing"));
        return;
    };
    let Some(blob) = svg_blob(&svg) else {
        status.set(t("export-png-failed"));
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let Ok(image) = web_sys::HtmlImageElement::new() else {
        return;
    };
    status.set(t("export-png-drawing"));
    let img = image.clone();
    let src = url.clone();
    let onload = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&src);
        let (w, h) = (
            f64::from(img.natural_width()),
            f64::from(img.natural_height()),
        );
        let scale = 2.0_f64.min(MAX_PNG_SIDE / w.max(h).max(1.0));
        let Some(canvas) = web_sys::window()
            .and_then(|win| win.document())
            .and_then(|d| d.create_element("canvas").ok())
            .and_then(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        canvas.set_width((w * scale).ceil() as u32);
        canvas.set_height((h * scale).ceil() as u32);
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        let _ = ctx.scale(scale, scale);
        let _ = ctx.draw_image_with_html_image_element(&img, 0.0, 0.0);
        let name = format!("stridescope-step-{k}.png");
        let saved =
            Closure::once_into_js(move |png: JsValue| match png.dyn_into::<web_sys::Blob>() {
                Ok(png) => {
                    download(&png, &name);
                    status.set(tf("export-saved", &[("name", name.into())]));
                }
                Err(_) => status.set(t("export-png-encode-failed")),
            });
        let _ = canvas.to_blob(saved.unchecked_ref());
    });
    image.set_onload(Some(onload.unchecked_ref()));
    image.set_src(&url);
}

/// "Copy link", "Embed…", "SVG", "PNG": the sharing buttons of the full page.
#[component]
pub fn ShareBar(embed_open: RwSignal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let status = RwSignal::new(String::new());
    let link = RwSignal::new(String::new());
    let copy_link = move |_| {
        let url = share_link(state);
        link.set(url.clone());
        let pinned = state.pinned.get_untracked().is_some();
        copy_to_clipboard(&url, move |ok| {
            status.set(if ok && pinned {
                t("copied-pinned")
            } else if ok {
                t("copied-plain")
            } else {
                t("copy-refused")
            });
        });
    };
    view! {
        <div class="share-bar" role="group" aria-label=t("share-group")>
            <button class="ghost" data-testid="copy-link" on:click=copy_link title=t("copy-link-title")>{t("copy-link")}</button>
            <button class="ghost" data-testid="embed-open" aria-haspopup="dialog" on:click=move |_| embed_open.set(true)>{t("embed-open")}</button>
            <button class="ghost" data-testid="export-svg" on:click=move |_| export_svg(state, status) title=t("export-svg-title")>{t("export-svg")}</button>
            <button class="ghost" data-testid="export-png" on:click=move |_| export_png(state, status) title=t("export-png-title")>{t("export-png")}</button>
            <Show when=move || !link.get().is_empty()>
                <input class="share-url" data-testid="share-url" readonly aria-label=t("share-url") prop:value=move || link.get() on:focus=move |ev| {
                    if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                        input.select();
                    }
                }/>
            </Show>
            <span class="share-status" data-testid="share-status" role="status" aria-live="polite">{move || status.get()}</span>
        </div>
    }
}

/// The Embed dialog: options as checkboxes, the snippet for the current state, Copy.
#[component]
pub fn EmbedDialog(open: RwSignal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let hidden = RwSignal::new(state.hidden.get_untracked());
    let read_only = RwSignal::new(false);
    let theme = RwSignal::new(Theme::Auto);
    let start_step = RwSignal::new(1usize);
    let height = RwSignal::new(560u32);
    let title = RwSignal::new(String::new());
    let auto_height = RwSignal::new(true);
    let copied = RwSignal::new(String::new());
    // Each time it opens, it starts from the page as it is.
    Effect::new(move |_| {
        if open.get() {
            start_step.set(state.step.get_untracked() + 1);
            theme.set(state.theme.get_untracked());
            hidden.set(state.hidden.get_untracked());
            copied.set(String::new());
        }
    });
    let embed_state = move || {
        let mut s = current_state(state);
        s.step = start_step.get().saturating_sub(1);
        s.hidden = hidden.get();
        s.read_only = read_only.get();
        s.theme = theme.get();
        s.height = Some(height.get());
        let t = title.get();
        s.title = (!t.trim().is_empty()).then_some(t);
        // The snippet follows the script as it is typed.
        state.script.track();
        state.pinned.track();
        s
    };
    let snippet = move || {
        share::embed_snippet(
            &embed_state(),
            &EmbedOptions {
                embed_url: embed_address(),
                auto_height: auto_height.get(),
            },
        )
    };
    let preview = move || format!("{}#{}", embed_address(), share::encode(&embed_state()));
    let copy = move |_| {
        copy_to_clipboard(&snippet(), move |ok| {
            copied.set(if ok {
                t("embed-copied")
            } else {
                t("embed-copy-refused")
            });
        })
    };
    let close = move || open.set(false);
    let panel_boxes = move || {
        PanelKind::ALL
            .into_iter()
            .map(|p| {
                view! {
                    <label class="check">
                        <input type="checkbox" data-testid=format!("embed-panel-{}", p.name())
                            prop:checked=move || !hidden.get().contains(&p)
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                hidden.update(|h| {
                                    h.retain(|x| *x != p);
                                    if !on {
                                        h.push(p);
                                    }
                                });
                            }/>
                        {t(panel_label(p))}
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <Show when=move || open.get()>
            <div class="dialog-backdrop" on:click=move |_| close()></div>
            <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="embed-title" data-testid="embed-dialog"
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Escape" {
                        close();
                    }
                }>
                <div class="dialog-head">
                    <h2 id="embed-title">{t("embed-title")}</h2>
                    <button class="ghost" aria-label=t("close") data-testid="embed-close" on:click=move |_| close() autofocus>"✕"</button>
                </div>
                <p class="hint">{t("embed-intro")}</p>
                <fieldset>
                    <legend>{t("embed-panels")}</legend>
                    <div class="checks">{panel_boxes}</div>
                </fieldset>
                <div class="dialog-grid">
                    <label class="check"><input type="checkbox" data-testid="embed-readonly" prop:checked=move || read_only.get() on:change=move |ev| read_only.set(event_target_checked(&ev))/>{t("embed-readonly")}</label>
                    <label class="check"><input type="checkbox" data-testid="embed-autoheight" prop:checked=move || auto_height.get() on:change=move |ev| auto_height.set(event_target_checked(&ev))/>{t("embed-autoheight")}</label>
                    <label>{t("embed-theme")}" "
                        <select data-testid="embed-theme" on:change=move |ev| theme.set(Theme::from_name(&event_target_value(&ev)).unwrap_or_default())>
                            {[Theme::Auto, Theme::Light, Theme::Dark].into_iter().map(|t| view! {
                                <option value=t.name() selected=move || theme.get() == t>{crate::shells::web::i18n::t(theme_label(t))}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <label>{t("embed-step")}" "
                        <input type="number" min="1" data-testid="embed-step" prop:value=move || start_step.get().to_string()
                            on:input=move |ev| {
                                if let Ok(n) = event_target_value(&ev).parse::<usize>() {
                                    start_step.set(n.max(1));
                                }
                            }/>
                    </label>
                    <label>{t("embed-height")}" "
                        <input type="number" min="120" max="4000" step="20" data-testid="embed-height" prop:value=move || height.get().to_string()
                            on:input=move |ev| {
                                if let Ok(n) = event_target_value(&ev).parse::<u32>() {
                                    height.set(n);
                                }
                            }/>
                    </label>
                    <label class="wide">{t("embed-a11y-title")}" "
                        <input type="text" maxlength="200" data-testid="embed-title" placeholder=move || { state.script.track(); current_state(state).accessible_title() }
                            prop:value=move || title.get() on:input=move |ev| title.set(event_target_value(&ev))/>
                    </label>
                </div>
                <label class="snippet-label" for="embed-snippet">{t("embed-snippet")}</label>
                <textarea id="embed-snippet" class="snippet" readonly data-testid="embed-snippet" rows="6" prop:value=snippet></textarea>
                <div class="dialog-actions">
                    <button class="ghost primary" data-testid="embed-copy" on:click=copy>{t("embed-copy")}</button>
                    <a class="ghost-link" data-testid="embed-preview" href=preview target="_blank" rel="noopener">{t("embed-preview")}</a>
                    <span role="status" aria-live="polite">{move || copied.get()}</span>
                </div>
            </div>
        </Show>
    }
}

/// Why the link in the address could not be opened (as text; never HTML from the link).
#[component]
pub fn LinkNotice() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <Show when=move || state.link_notice.get().is_some()>
            <div class="link-notice" role="alert" data-testid="link-notice">
                <span>{move || state.link_notice.get().map(|m| tm(&m)).unwrap_or_default()}</span>
                " "{t("link-default")}
                <button class="ghost" aria-label=t("dismiss") on:click=move |_| state.link_notice.set(None)>"✕"</button>
            </div>
        </Show>
    }
}

/// In the full app, a link made for an embed can hide panels or lock the editor: this bar
/// says so and undoes it (the page has no other panel switches).
#[component]
pub fn LinkOptionsBar() -> impl IntoView {
    let state = expect_context::<AppState>();
    let shown = move || !state.hidden.with(Vec::is_empty) || state.read_only.get();
    view! {
        <Show when=shown>
            <div class="link-options" role="status" data-testid="link-options">
                <span>
                    {move || {
                        let mut parts = Vec::new();
                        let hidden = state.hidden.get();
                        if !hidden.is_empty() {
                            let names: Vec<String> = hidden.iter().map(|p| t(panel_label(*p))).collect();
                            parts.push(tf("link-hides", &[("panels", names.join(", ").into())]));
                        }
                        if state.read_only.get() {
                            parts.push(t("link-readonly"));
                        }
                        parts.join(" ")
                    }}
                </span>
                <Show when=move || !state.hidden.with(Vec::is_empty)>
                    <button class="ghost" data-testid="show-all-panels" on:click=move |_| state.hidden.set(Vec::new())>{t("show-all-panels")}</button>
                </Show>
                <Show when=move || state.read_only.get()>
                    <button class="ghost" data-testid="make-editable" on:click=move |_| state.read_only.set(false)>{t("edit-script")}</button>
                </Show>
            </div>
        </Show>
    }
}

/// In embed mode: the compact header with "Open in Stridescope".
#[component]
pub fn EmbedBar() -> impl IntoView {
    let state = expect_context::<AppState>();
    let open_full = move || format!("{}#{}", app_address(), share::encode(&current_state(state)));
    view! {
        <header class="embed-bar">
            <a class="brand-mini" href=move || { state.script.track(); state.step.track(); state.pinned.track(); open_full() } target="_blank" rel="noopener" data-testid="open-full" title=t("open-full-title")>{t("open-full")}</a>
            <span class="badge engine" data-testid="engine-badge" title=move || tm(&state.engine.get().detail)>
                {move || state.engine.get().kind.label()}
            </span>
        </header>
    }
}

/// Embed mode: posts `{type: "stridescope:height", height}` to the parent page whenever the
/// content's height changes, so that the iframe can grow (see `share::AUTO_HEIGHT_SCRIPT`).
pub fn post_height_to_parent() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let Some(root) = window
        .document()
        .and_then(|d| d.query_selector(".app").ok().flatten())
    else {
        return;
    };
    let measured = root.clone();
    let last = std::cell::Cell::new(0.0_f64);
    let post = Closure::<dyn FnMut()>::new(move || {
        let height = measured.get_bounding_client_rect().height().ceil();
        if (height - last.get()).abs() < 1.0 {
            return;
        }
        last.set(height);
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"stridescope:height".into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        let _ = parent.post_message(&message, "*");
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(post.as_ref().unchecked_ref()) {
        observer.observe(&root);
        // The observer lives as long as the page.
        std::mem::forget(observer);
    }
    post.forget();
}
