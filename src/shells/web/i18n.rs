//! The page's language as a signal, and the words of the catalog (`crate::present::i18n`) in it.
//! `t`, `tf` and `tm` read the language without subscribing: the app draws its whole page
//! again when the reader switches language (`app::App`), so texts are plain strings. The
//! choice is remembered (localStorage) and set on `<html lang>`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::prelude::*;

use crate::present::i18n::{negotiate, query_lang, Arg, Catalog, Lang, Msg};

const LANG_KEY: &str = "stridescope.lang";

thread_local! {
    static LANG: Cell<Option<RwSignal<Lang>>> = const { Cell::new(None) };
    static CATALOGS: RefCell<Vec<Rc<Catalog>>> = const { RefCell::new(Vec::new()) };
}

fn catalog(lang: Lang) -> Rc<Catalog> {
    CATALOGS.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(found) = c.iter().find(|x| x.lang() == lang) {
            return Rc::clone(found);
        }
        let made = Rc::new(Catalog::new(lang));
        c.push(Rc::clone(&made));
        made
    })
}

/// The language of the page (tracked: a closure calling it re-runs on a switch).
pub fn lang() -> Lang {
    LANG.with(|l| l.get())
        .and_then(|s| s.try_get())
        .unwrap_or_default()
}

/// The language, without subscribing.
pub fn lang_untracked() -> Lang {
    LANG.with(|l| l.get())
        .and_then(|s| s.try_get_untracked())
        .unwrap_or_default()
}

/// Message `id`.
pub fn t(id: &str) -> String {
    catalog(lang_untracked()).text(id)
}

/// Message `id`, without subscribing to the language.
pub fn t_untracked(id: &str) -> String {
    catalog(lang_untracked()).text(id)
}

/// Message `id` with variables.
pub fn tf(id: &str, args: &[(&str, Arg)]) -> String {
    catalog(lang_untracked()).format(id, args)
}

/// `msg` in words.
pub fn tm(msg: &Msg) -> String {
    catalog(lang_untracked()).msg(msg)
}

/// Chooses the page's language (`?lang=`, then the remembered choice, then the browser's
/// languages) and keeps `<html lang>` and the document's title in step with it.
pub fn init(embed: bool) -> RwSignal<Lang> {
    let window = web_sys::window();
    let query = window
        .as_ref()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let browser: Vec<String> = window
        .as_ref()
        .map(|w| {
            w.navigator()
                .languages()
                .iter()
                .filter_map(|v| v.as_string())
                .collect()
        })
        .unwrap_or_default();
    let remembered = crate::shells::web::load(LANG_KEY);
    let chosen = negotiate(
        query_lang(&query).as_deref(),
        remembered.as_deref(),
        &browser,
    );
    apply_cell_words(chosen);
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", chosen.tag());
    }
    let signal = RwSignal::new(chosen);
    LANG.with(|l| l.set(Some(signal)));
    Effect::new(move |_| {
        let lang = signal.get();
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        if let Some(root) = document.document_element() {
            let _ = root.set_attribute("lang", lang.tag());
        }
        if !embed {
            document.set_title(&catalog(lang).text("doc-title"));
        }
    });
    signal
}

/// The cell markup's words (`ui_model`) in `lang`.
fn apply_cell_words(lang: Lang) {
    let c = catalog(lang);
    crate::present::cells::set_cell_words(crate::present::cells::CellWords {
        view_cell: c.text("cell-view-template"),
        storage_cell: c.text("cell-storage-template"),
        storage_cell_reached: c.text("cell-storage-reached-template"),
        too_many: c.text("cell-too-many-template"),
    });
}

/// Switches the page's language and remembers the choice.
pub fn set_lang(lang: Lang) {
    apply_cell_words(lang);
    if let Some(s) = LANG.with(|l| l.get()) {
        s.set(lang);
    }
    crate::shells::web::save(LANG_KEY, lang.tag());
    // The page is drawn again in the new language: the switch keeps the focus.
    request_animation_frame(|| {
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector("[data-testid=lang-switch]").ok().flatten())
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
        {
            let _ = el.focus();
        }
    });
}

/// The language switch: a labelled select, every language named in itself.
#[component]
pub fn LangSwitch() -> impl IntoView {
    view! {
        <label class="lang-switch">
            <span class="visually-hidden">{t("lang-label")}</span>
            <select data-testid="lang-switch" on:change=move |ev| {
                if let Some(l) = Lang::from_tag(&event_target_value(&ev)) {
                    set_lang(l);
                }
            }>
                {Lang::ALL.into_iter().map(|l| view! {
                    <option value=l.tag() lang=l.tag() selected=move || lang() == l>{l.native_name()}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
