//! The lesson list (`#lessons`): the shipped track in the page's language, each lesson with
//! the student's progress.

use leptos::prelude::*;

use crate::lessons::index::IndexEntry;
use crate::present::i18n::{Lang, Msg};
use crate::present::lesson_view::Progress;
use crate::shells::web::i18n::{lang, t, tf, tm};
use crate::shells::web::lesson::fetch_index;

#[component]
pub fn LessonIndex() -> impl IntoView {
    let entries: RwSignal<Option<Result<Vec<IndexEntry>, Msg>>> = RwSignal::new(None);
    leptos::task::spawn_local(async move {
        entries.set(Some(fetch_index().await));
    });
    let list = move || {
        let lang = lang();
        match entries.get() {
            None => view! { <p class="muted" role="status">{t("lesson-loading")}</p> }.into_any(),
            Some(Err(msg)) => view! {
                <p class="notice" role="alert" data-testid="lesson-error">
                    {tf("lesson-index-failed", &[("reason", tm(&msg).into())])}
                </p>
            }
            .into_any(),
            Some(Ok(all)) => {
                // One entry per id: in the page's language, else in English.
                let mut ids: Vec<&str> = Vec::new();
                for e in &all {
                    if !ids.contains(&e.id.as_str()) {
                        ids.push(&e.id);
                    }
                }
                let items = ids
                    .into_iter()
                    .filter_map(|id| {
                        all.iter()
                            .find(|e| e.id == id && Lang::from_tag(&e.lang) == Some(lang))
                            .or_else(|| all.iter().find(|e| e.id == id && e.lang == "en"))
                            .cloned()
                    })
                    .map(|e| {
                        let done = Progress::from_json(
                            crate::shells::web::load(&Progress::key(&e.id)).as_deref(),
                            e.questions,
                        )
                        .done();
                        let complete = done >= e.questions && e.questions > 0;
                        view! {
                            <li class:complete=complete>
                                <a href=format!("#lesson={}", e.id) data-testid="lesson-link" data-id=e.id.clone()
                                    data-done=done data-total=e.questions>{e.title.clone()}</a>
                                <span class="muted">{tf("lesson-index-progress", &[("done", done.into()), ("total", e.questions.into())])}</span>
                                {complete.then(|| view! { <span class="badge ok" aria-hidden="true">"✓"</span> })}
                            </li>
                        }
                    })
                    .collect_view();
                view! { <ol class="lesson-list">{items}</ol> }.into_any()
            }
        }
    };
    view! {
        <section class="panel lesson-index" data-testid="lesson-index" aria-labelledby="lesson-index-title">
            <h2 id="lesson-index-title">{t("lesson-index-title")}</h2>
            <p>{t("lesson-index-intro")}</p>
            {list}
        </section>
    }
}
