//! The lesson player: the lesson's prose, code and questions up to the question open now,
//! beside the app's live diagram. Every control is a native one (inputs, radios, buttons),
//! so the keyboard reaches and works all of them; the questions and their feedback are
//! announced (`aria-live`). Test contract: issue 10 (`data-testid="lesson"`, …).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::lessons::{Block, Lesson, Question, QuestionKind};
use crate::present::cells::value_text;
use crate::shells::web::core_link::markdown_html;
use crate::shells::web::i18n::{t, tf, tm};
use crate::shells::web::lesson::{next, reveal, submit, Given, LessonCtx, QState, QView};
use crate::shells::web::AppState;

/// The player (the page's lesson, once loaded).
#[component]
pub fn LessonPlayer() -> impl IntoView {
    let state = expect_context::<AppState>();
    let ctx = expect_context::<LessonCtx>();
    // Cells selected for a `cells` question are marked in the diagram (again after every
    // redraw of the storages).
    Effect::new(move |_| {
        let selected = ctx.selected.get();
        let target = ctx.cells_target.get();
        state.trace.track();
        state.step.track();
        mark_selected(target.map(|t| t.storage), &selected);
    });
    view! {
        <section class="panel lesson" data-testid="lesson" class:compact=ctx.embed aria-labelledby="lesson-title">
            {move || match ctx.lesson.get() {
                crate::shells::web::lesson::Loaded::Loading => view! {
                    <p class="muted" role="status" id="lesson-title">{t("lesson-loading")}</p>
                }.into_any(),
                crate::shells::web::lesson::Loaded::Failed(msg) => view! {
                    <h2 id="lesson-title">{t("lesson-player")}</h2>
                    <p class="notice" role="alert" data-testid="lesson-error">{tm(&msg)}</p>
                    <p><a href="#lessons">{t("lesson-finish")}</a></p>
                }.into_any(),
                crate::shells::web::lesson::Loaded::Ready(lesson) => view! { <LessonBody lesson=lesson/> }.into_any(),
            }}
        </section>
    }
}

/// Sets `data-selected` on exactly the selected cells of `storage`.
fn mark_selected(storage: Option<String>, selected: &std::collections::BTreeSet<i64>) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Ok(old) = document.query_selector_all("[data-testid=storage-cell][data-selected]") {
        for i in 0..old.length() {
            if let Some(el) = old
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.remove_attribute("data-selected");
            }
        }
    }
    let Some(storage) = storage else { return };
    let id: String = storage
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    for at in selected {
        let selector = format!("[data-testid=storage-cell][data-key=\"{id}:{at}\"]");
        if let Ok(Some(el)) = document.query_selector(&selector) {
            let _ = el.set_attribute("data-selected", "true");
        }
    }
}

#[component]
fn LessonBody(lesson: Lesson) -> impl IntoView {
    let ctx = expect_context::<LessonCtx>();
    let total = lesson.questions().count();
    let blocks = StoredValue::new(lesson.blocks.clone());
    let title = lesson.title.clone();
    let id = lesson.id.clone();
    // Each question shown next gets the focus (its first control; a task, the editor).
    Effect::new(move |first: Option<()>| {
        ctx.current.track();
        if first.is_none() {
            return;
        }
        request_animation_frame(focus_open_question);
    });
    let visible = move || {
        let n = ctx.current.get();
        let all = blocks.with_value(Vec::len);
        let lesson_blocks = blocks.get_value();
        let upto = question_block(&lesson_blocks, n)
            .map(|b| b + 1)
            .unwrap_or(all);
        let mut q = 0;
        lesson_blocks
            .into_iter()
            .take(upto)
            .map(|b| match b {
                Block::Prose { markdown, .. } => {
                    view! { <div class="prose" inner_html=markdown_html(&markdown)></div> }
                        .into_any()
                }
                Block::Code { source, .. } => {
                    view! { <pre class="lesson-code"><code>{source}</code></pre> }.into_any()
                }
                Block::Question(question) => {
                    let k = q;
                    q += 1;
                    view! { <QuestionView n=k total=total question=question/> }.into_any()
                }
            })
            .collect_view()
    };
    let share_status = RwSignal::new(String::new());
    let share_link = RwSignal::new(String::new());
    let share = move |_| {
        let url = crate::lessons::link::link(
            &crate::shells::web::share_ui::app_address(),
            &ctx.source.get_untracked(),
        );
        share_link.set(url.clone());
        crate::shells::web::share_ui::copy_to_clipboard(&url, move |ok| {
            share_status.set(if ok {
                t("lesson-share-copied")
            } else {
                t("copy-refused")
            });
        });
    };
    let current_closed = move || {
        let n = ctx.current.get();
        ctx.questions
            .with(|q| q.get(n).map(|q| q.state.closed()))
            .unwrap_or(false)
    };
    let finished = move || ctx.current.get() >= total;
    view! {
        <header class="lesson-head">
            <h2 id="lesson-title" data-lesson-id=id>{title}</h2>
            <p class="lesson-progress" data-testid="lesson-progress"
                data-done=move || ctx.done().to_string() data-total=total.to_string()>
                <span class="bar" aria-hidden="true"><i style=move || format!("width:{}%", ctx.done() * 100 / total.max(1))></i></span>
                {move || tf("lesson-progress", &[("done", ctx.done().into()), ("total", total.into())])}
            </p>
        </header>
        <div class="lesson-blocks">{visible}</div>
        <div class="lesson-foot">
            <Show when=move || current_closed() && !finished()>
                <button class="primary" data-testid="lesson-next" on:click=move |_| next(ctx)>
                    {t("lesson-next")}" →"
                </button>
            </Show>
            <Show when=finished>
                <p class="lesson-complete" role="status">{tf("lesson-complete", &[("total", total.into())])}</p>
                {(!ctx.embed).then(|| view! { <a class="ghost-link" href="#lessons">{t("lesson-finish")}</a> })}
            </Show>
            <button class="ghost" data-testid="lesson-share" on:click=share>{t("lesson-share")}</button>
            <Show when=move || !share_link.get().is_empty()>
                <input class="share-url" readonly aria-label=t("lesson-share-url") prop:value=move || share_link.get()/>
            </Show>
            <span role="status" aria-live="polite">{move || share_status.get()}</span>
        </div>
    }
}

/// The block index of question `n` among `blocks`.
fn question_block(blocks: &[Block], n: usize) -> Option<usize> {
    blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| matches!(b, Block::Question(_)))
        .nth(n)
        .map(|(i, _)| i)
}

/// Focuses the open question's first control (a task: the editor, at its end).
fn focus_open_question() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(Some(question)) = document.query_selector(
        "[data-testid=lesson-question]:not([data-state=correct]):not([data-state=revealed])",
    ) else {
        return;
    };
    if question.get_attribute("data-kind").as_deref() == Some("task") {
        if let Ok(Some(editor)) = document.query_selector("[data-testid=editor]") {
            if let Ok(editor) = editor.dyn_into::<web_sys::HtmlTextAreaElement>() {
                let _ = editor.focus();
                let end = editor.value().encode_utf16().count() as u32;
                let _ = editor.set_selection_range(end, end);
                return;
            }
        }
    }
    if let Ok(Some(first)) =
        question.query_selector("input:not([disabled]), button:not([disabled])")
    {
        if let Ok(el) = first.dyn_into::<web_sys::HtmlElement>() {
            let _ = el.focus();
        }
    }
}

/// One question with its own controls, feedback, hint and reveal.
#[component]
fn QuestionView(n: usize, total: usize, question: Question) -> impl IntoView {
    let state = expect_context::<AppState>();
    let ctx = expect_context::<LessonCtx>();
    let q = move || {
        ctx.questions
            .with(|q| q.get(n).cloned())
            .unwrap_or_else(|| QView::new(QState::Open))
    };
    let closed = move || q().state.closed();
    let text = RwSignal::new(String::new());
    let choice = RwSignal::new(None::<usize>);
    let kind = question.kind.name();
    let ask_id = format!("q{n}-ask");
    let ask_id_ref = ask_id.clone();
    // What a submit hands in, by the question's kind (the enum, not its name).
    let given: fn(RwSignal<String>, RwSignal<Option<usize>>) -> Given = match &question.kind {
        QuestionKind::Answer { .. } | QuestionKind::Memory { .. } => {
            |text, _| Given::Text(text.get_untracked())
        }
        QuestionKind::Choices { .. } => |_, choice| Given::Choice(choice.get_untracked()),
        QuestionKind::Cells { .. } => |_, _| Given::Cells,
        QuestionKind::Task { .. } => |_, _| Given::Code,
    };
    let do_submit = move || submit(state, ctx, n, given(text, choice));
    let input = match &question.kind {
        QuestionKind::Answer { .. } | QuestionKind::Memory { .. } => {
            let id = format!("q{n}-answer");
            view! {
                <div class="answer-row">
                    <label for=id.clone()>{t("lesson-answer-label")}</label>
                    <input id=id type="text" class="mono" data-testid="lesson-answer" autocomplete="off" spellcheck="false"
                        autocapitalize="off" prop:disabled=closed
                        prop:value=move || text.get()
                        on:input=move |ev| text.set(event_target_value(&ev))
                        on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                            if ev.key() == "Enter" {
                                ev.prevent_default();
                                do_submit();
                            }
                        }/>
                </div>
            }
            .into_any()
        }
        QuestionKind::Choices { choices, .. } => {
            let name = format!("q{n}-choice");
            let options = choices
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    view! {
                        <label class="choice">
                            <input type="radio" name=name.clone() value=c.clone() data-testid="lesson-choice"
                                prop:disabled=closed
                                on:change=move |_| choice.set(Some(i))
                                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                                    if ev.key() == "Enter" {
                                        ev.prevent_default();
                                        choice.set(Some(i));
                                        do_submit();
                                    }
                                }/>
                            <code>{c.clone()}</code>
                        </label>
                    }
                })
                .collect_view();
            view! {
                <fieldset class="choices">
                    <legend>{t("lesson-choices-label")}</legend>
                    {options}
                </fieldset>
            }
            .into_any()
        }
        QuestionKind::Cells { .. } => view! { <CellPicker n=n/> }.into_any(),
        QuestionKind::Task { .. } => view! {
            <p class="task-hint">{t("lesson-kind-task")}</p>
        }
        .into_any(),
    };
    let hint_shown = move || q().hint_shown;
    let hint_button = question.hint.is_some().then(|| {
        view! {
            <button class="ghost" data-testid="lesson-hint" aria-expanded=move || hint_shown().to_string()
                on:click=move |_| ctx.update_question(n, |q| q.hint_shown = !q.hint_shown)>
                {t("lesson-hint")}
            </button>
        }
    });
    let hint_text = question.hint.as_deref().map(|h| {
        let html = markdown_html(h);
        view! {
            <Show when=hint_shown>
                <div class="hint-text" data-testid="lesson-hint-text" inner_html=html.clone()></div>
            </Show>
        }
    });
    let explain = question.explain.as_deref().map(markdown_html);
    let solution = match &question.kind {
        QuestionKind::Task { solution, .. } => Some(solution.clone()),
        _ => None,
    };
    view! {
        <div class="question" data-testid="lesson-question" data-kind=kind data-state=move || q().state.name()
            role="group" aria-labelledby=ask_id_ref>
            <p class="qnum">{tf("lesson-question-n", &[("n", (n + 1).into()), ("total", total.into())])}</p>
            <div class="ask" id=ask_id inner_html=markdown_html(&question.ask)></div>
            {input}
            <div class="qactions">
                <button class="primary" data-testid="lesson-submit" prop:disabled=closed on:click=move |_| do_submit()>
                    {t("lesson-check")}
                </button>
                {hint_button}
                <button class="ghost" data-testid="lesson-reveal" prop:disabled=closed on:click=move |_| reveal(state, ctx, n)>
                    {t("lesson-show-me")}
                </button>
            </div>
            {hint_text}
            <div class="feedback" data-testid="lesson-feedback" role="status" aria-live="polite"
                data-state=move || q().state.name()>
                {move || {
                    let q = q();
                    match q.state {
                        QState::Open => ().into_any(),
                        QState::Wrong => view! {
                            <p class="verdict wrong">{t("lesson-wrong")}</p>
                            <ul>{q.feedback.iter().map(|m| view! { <li>{tm(m)}</li> }).collect_view()}</ul>
                        }.into_any(),
                        QState::Correct => view! {
                            <p class="verdict right">{t("lesson-correct")}</p>
                            {explain.clone().map(|h| view! { <div class="lesson-explain" inner_html=h></div> })}
                        }.into_any(),
                        QState::Revealed => view! {
                            {q.shown.as_ref().map(|m| view! { <p class="verdict shown">{tm(m)}</p> })}
                            {solution.clone().map(|s| view! { <p class="muted">{t("lesson-solution")}</p><pre class="lesson-code"><code>{s}</code></pre> })}
                            {explain.clone().map(|h| view! { <div class="lesson-explain" inner_html=h></div> })}
                        }.into_any(),
                    }
                }}
            </div>
        </div>
    }
}

/// The cells of a `cells` question's storage as toggle buttons (the keyboard's way to pick
/// them; clicking the diagram's cells does the same).
#[component]
fn CellPicker(n: usize) -> impl IntoView {
    let state = expect_context::<AppState>();
    let ctx = expect_context::<LessonCtx>();
    let closed = move || {
        ctx.questions
            .with(|q| q.get(n).map(|q| q.state.closed()))
            .unwrap_or(false)
    };
    let cells = move || {
        let target = ctx.cells_target.get()?;
        let values = state.with_current(|step| {
            step.storages
                .iter()
                .find(|s| s.id.to_string() == target.storage)
                .and_then(|s| s.values.clone())
        })??;
        Some((target.storage, values))
    };
    view! {
        <p class="task-hint">{move || tf("lesson-kind-cells", &[("count", ctx.selected.with(|s| s.len()).into())])}</p>
        {move || cells().map(|(storage, values)| {
            let buttons = values
                .iter()
                .take(crate::lessons::grade::MAX_CELLS)
                .enumerate()
                .map(|(i, v)| {
                    let at = i as i64;
                    let text = value_text(v);
                    let pressed = move || ctx.selected.with(|s| s.contains(&at));
                    view! {
                        <button class="cellpick mono" data-testid="lesson-cell" data-offset=at
                            aria-pressed=move || pressed().to_string() prop:disabled=closed
                            aria-label=move || tf("lesson-cell", &[("offset", at.into()), ("value", text.clone().into())])
                            on:click=move |_| ctx.selected.update(|s| { if !s.remove(&at) { s.insert(at); } })>
                            <small>{at}</small>{value_text(v)}
                        </button>
                    }
                })
                .collect_view();
            let label = storage.clone();
            view! {
                <div class="cellpicks" role="group" aria-label=move || tf("lesson-cells-group", &[("storage", label.clone().into())])>{buttons}</div>
            }
        })}
    }
}
