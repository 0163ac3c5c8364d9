//! The lesson player (issue 10): where lessons come from (`#lesson=ID`, `#lessons`,
//! `?lesson=PATH_OR_URL`, `#lesson-data=v1.…`), the player's state, grading through the
//! lessons core (`crate::lessons`), progress in localStorage, and, in embeds, progress
//! posted to the parent page. `player.rs` draws a lesson and `index.rs` the list. The
//! diagram is the app's own panels: the player sets the app's script to the lesson's code
//! so far, and the views panel conceals what an open question asks about.

mod index;
mod player;

use std::collections::BTreeSet;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::lessons::grade::CellsTarget;
use crate::lessons::index::IndexEntry;
use crate::lessons::{Block, Lesson, QuestionKind, Response};
use crate::present::i18n::{Lang, Msg};
use crate::present::lesson_view::{self, Outcome, Progress, Route};
use crate::shells::web::core_link::{self, Grading};
use crate::shells::web::i18n::{lang, lang_untracked};
use crate::shells::web::{run_now, AppState};

pub use index::LessonIndex;
pub use player::LessonPlayer;

/// Where a question stands (`data-state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QState {
    Open,
    Wrong,
    Correct,
    Revealed,
}

impl QState {
    pub fn name(self) -> &'static str {
        match self {
            QState::Open => "open",
            QState::Wrong => "wrong",
            QState::Correct => "correct",
            QState::Revealed => "revealed",
        }
    }

    pub fn closed(self) -> bool {
        matches!(self, QState::Correct | QState::Revealed)
    }
}

/// One question's state in the player.
#[derive(Clone, Debug, PartialEq)]
pub struct QView {
    pub state: QState,
    /// Why the last answer was wrong (or why it could not be graded).
    pub feedback: Vec<Msg>,
    pub hint_shown: bool,
    /// The answer shown by "Show me" (or the task's solution).
    pub shown: Option<Msg>,
}

impl QView {
    fn new(state: QState) -> Self {
        QView {
            state,
            feedback: Vec::new(),
            hint_shown: false,
            shown: None,
        }
    }
}

/// The lesson being played.
#[derive(Clone, Debug, PartialEq)]
pub enum Loaded {
    Loading,
    Failed(Msg),
    Ready(Lesson),
}

/// The player's signals, shared by its components and the app's panels (context).
#[derive(Clone, Copy)]
pub struct LessonCtx {
    pub route: StoredValue<Route>,
    pub lesson: RwSignal<Loaded>,
    /// The lesson file's text (for "Share this lesson").
    pub source: RwSignal<String>,
    /// The question shown last (0-based); `questions` once all are closed.
    pub current: RwSignal<usize>,
    pub questions: RwSignal<Vec<QView>>,
    /// Storage offsets selected for the open `cells` question.
    pub selected: RwSignal<BTreeSet<i64>>,
    /// The storage the open `cells` question is about.
    pub cells_target: RwSignal<Option<CellsTarget>>,
    /// The names of the views concealed now.
    pub concealed: Memo<Vec<String>>,
    pub embed: bool,
}

thread_local! {
    /// The session grading the lesson (one evaluator; not a signal: it is not `Send`).
    static SESSION: std::cell::RefCell<Option<Box<dyn Grading>>> = const { std::cell::RefCell::new(None) };
}

fn with_session<R>(f: impl FnOnce(&mut dyn Grading) -> R) -> Option<R> {
    SESSION.with(|s| s.borrow_mut().as_mut().map(|g| f(g.as_mut())))
}

impl LessonCtx {
    /// The lesson, when loaded (tracked).
    pub fn ready(&self) -> Option<Lesson> {
        self.lesson.with(|l| match l {
            Loaded::Ready(lesson) => Some(lesson.clone()),
            _ => None,
        })
    }

    fn lesson_untracked(&self) -> Option<Lesson> {
        self.lesson.with_untracked(|l| match l {
            Loaded::Ready(lesson) => Some(lesson.clone()),
            _ => None,
        })
    }

    pub fn done(&self) -> usize {
        self.questions
            .with(|q| q.iter().filter(|q| q.state.closed()).count())
    }

    /// Question `n`'s state (untracked copy).
    fn question_state(&self, n: usize) -> QState {
        self.questions
            .with_untracked(|q| q.get(n).map(|q| q.state))
            .unwrap_or(QState::Open)
    }

    fn update_question(&self, n: usize, f: impl FnOnce(&mut QView)) {
        self.questions.update(|q| {
            if let Some(q) = q.get_mut(n) {
                f(q);
            }
        });
    }

    /// Progress as stored: the closed questions.
    fn progress(&self) -> Progress {
        let mut p = Progress::default();
        self.questions.with_untracked(|q| {
            for (i, q) in q.iter().enumerate() {
                match q.state {
                    QState::Correct => {
                        p.answered.insert(i, Outcome::Correct);
                    }
                    QState::Revealed => {
                        p.answered.insert(i, Outcome::Revealed);
                    }
                    _ => {}
                }
            }
        });
        p
    }

    fn save_progress(&self) {
        let Some(lesson) = self.lesson_untracked() else {
            return;
        };
        crate::shells::web::save(&Progress::key(&lesson.id), &self.progress().to_json());
        if self.embed {
            post_progress(
                &lesson.id,
                self.progress().done(),
                lesson.questions().count(),
            );
        }
    }
}

/// Posts `{type: "stridescope:progress", lesson, done, total}` to the parent page (embeds).
fn post_progress(id: &str, done: usize, total: usize) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &"stridescope:progress".into());
    let _ = js_sys::Reflect::set(&message, &"lesson".into(), &id.into());
    let _ = js_sys::Reflect::set(&message, &"done".into(), &(done as f64).into());
    let _ = js_sys::Reflect::set(&message, &"total".into(), &(total as f64).into());
    let _ = parent.post_message(&message, "*");
}

/// The block index of question `n`.
fn block_of(lesson: &Lesson, n: usize) -> Option<usize> {
    lesson.question_block(n)
}

/// The source of the last code block above block `index`, if any.
fn last_code_before(lesson: &Lesson, index: usize) -> Option<&str> {
    lesson.blocks[..index.min(lesson.blocks.len())]
        .iter()
        .rev()
        .find_map(|b| match b {
            Block::Code { source, .. } => Some(source.as_str()),
            _ => None,
        })
}

/// Whether question `n` is the first question after the code block above it.
fn first_after_code(lesson: &Lesson, n: usize) -> bool {
    let Some(block) = block_of(lesson, n) else {
        return false;
    };
    match n.checked_sub(1).and_then(|p| block_of(lesson, p)) {
        None => true,
        Some(prev) => lesson.blocks[prev..block]
            .iter()
            .any(|b| matches!(b, Block::Code { .. })),
    }
}

/// The lesson's code above question `n` (all of it once every question is closed).
fn script_for(lesson: &Lesson, n: usize) -> String {
    match block_of(lesson, n) {
        Some(block) => lesson.script_before(block),
        None => lesson.script_before(lesson.blocks.len()),
    }
}

/// Starts the player (or the lesson list) for `route`: provides its context and loads the
/// lesson (shipped lessons again in the new language when the reader switches).
pub fn start(state: AppState, route: Route, embed: bool) -> LessonCtx {
    let lesson = RwSignal::new(Loaded::Loading);
    let current = RwSignal::new(0usize);
    let questions: RwSignal<Vec<QView>> = RwSignal::new(Vec::new());
    let concealed = Memo::new(move |_| {
        let n = current.get();
        let open = questions.with(|q| q.get(n).map(|q| !q.state.closed()).unwrap_or(false));
        if !open {
            return Vec::new();
        }
        let names = lesson.with(|l| {
            let Loaded::Ready(lesson) = l else {
                return None;
            };
            let block = block_of(lesson, n)?;
            let kind_conceals = matches!(
                &lesson.blocks[block],
                Block::Question(q) if !matches!(q.kind, QuestionKind::Task { .. })
            );
            if !kind_conceals || !first_after_code(lesson, n) {
                return None;
            }
            let last = last_code_before(lesson, block)?;
            Some((lesson.script_before(block), last.to_string()))
        });
        let Some((script, last)) = names else {
            return Vec::new();
        };
        let from = lesson_view::last_block_first_line(&script, &last);
        state
            .trace
            .with(|t| {
                t.steps
                    .last()
                    .map(|_| lesson_view::created_from(&t.steps, from))
            })
            .unwrap_or_default()
    });
    let ctx = LessonCtx {
        route: StoredValue::new(route.clone()),
        lesson,
        source: RwSignal::new(String::new()),
        current,
        questions,
        selected: RwSignal::new(BTreeSet::new()),
        cells_target: RwSignal::new(None),
        concealed,
        embed,
    };
    provide_context(ctx);
    if route == Route::Index {
        return ctx;
    }
    // Shipped lessons load in the page's language, again when it changes.
    Effect::new(move |_| {
        let lang = lang();
        let route = ctx.route.get_value();
        if !matches!(route, Route::Shipped(_))
            && ctx.lesson.with_untracked(|l| *l != Loaded::Loading)
        {
            return;
        }
        leptos::task::spawn_local(async move {
            let loaded = load(&route, lang).await;
            match loaded {
                Ok(source) => open(state, ctx, source),
                Err(msg) => ctx.lesson.set(Loaded::Failed(msg)),
            }
        });
    });
    // The diagram follows the question shown: the lesson's code above it.
    Effect::new(move |_| {
        let n = current.get();
        let Some(lesson) = ctx.ready() else { return };
        show_code(state, ctx, &lesson, n);
    });
    ctx
}

/// Sets the app's script to the lesson's code above question `n` and shows its last step;
/// the editor is writable only for a task.
fn show_code(state: AppState, ctx: LessonCtx, lesson: &Lesson, n: usize) {
    let script = script_for(lesson, n);
    let task = block_of(lesson, n)
        .and_then(|b| match &lesson.blocks[b] {
            Block::Question(q) => Some(matches!(q.kind, QuestionKind::Task { .. })),
            _ => None,
        })
        .unwrap_or(false);
    let open_task = task && !ctx.question_state(n).closed();
    state.read_only.set(!open_task);
    if state.script.get_untracked() != script {
        state.step.set(usize::MAX / 2);
        state.script.set(script);
        run_now(state);
    }
    // A cells question: which storage, and nothing selected yet.
    ctx.selected.set(BTreeSet::new());
    let target = block_of(lesson, n).and_then(|b| match &lesson.blocks[b] {
        Block::Question(q) if matches!(q.kind, QuestionKind::Cells { .. }) => {
            with_session(|s| s.cells_target(b).ok()).flatten()
        }
        _ => None,
    });
    if let (Some(t), true) = (&target, ctx.question_state(n) == QState::Revealed) {
        ctx.selected.set(t.offsets.iter().copied().collect());
    }
    ctx.cells_target.set(target);
}

/// Parses `source` and starts playing it where the stored progress left off.
fn open(state: AppState, ctx: LessonCtx, source: String) {
    let Some(core) = core_link::core() else {
        core_link::load(move |loaded| match loaded {
            Ok(_) => open(state, ctx, source),
            Err(error) => ctx.lesson.set(Loaded::Failed(
                Msg::new("lesson-load-failed").arg("reason", error),
            )),
        });
        return;
    };
    let lesson = match core.parse_lesson(&source) {
        Ok(l) => l,
        Err((line, error)) => {
            ctx.lesson.set(Loaded::Failed(
                Msg::new("lesson-load-failed").arg(
                    "reason",
                    crate::present::i18n::Catalog::new(lang_untracked()).msg(
                        &Msg::new("lesson-parse-error")
                            .arg("line", line)
                            .arg("error", error),
                    ),
                ),
            ));
            return;
        }
    };
    let total = lesson.questions().count();
    let progress = Progress::from_json(
        crate::shells::web::load(&Progress::key(&lesson.id)).as_deref(),
        total,
    );
    let views = (0..total)
        .map(|i| {
            QView::new(match progress.answered.get(&i) {
                Some(Outcome::Correct) => QState::Correct,
                Some(Outcome::Revealed) => QState::Revealed,
                None => QState::Open,
            })
        })
        .collect();
    SESSION.with(|s| *s.borrow_mut() = Some(core.lesson_session(lesson.clone())));
    ctx.source.set(source);
    ctx.questions.set(views);
    ctx.current.set(progress.first_open(total));
    ctx.lesson.set(Loaded::Ready(lesson.clone()));
    if ctx.embed {
        post_progress(&lesson.id, progress.done(), total);
    }
    show_code(state, ctx, &lesson, ctx.current.get_untracked());
}

/// Loads the lesson file's text for `route`.
async fn load(route: &Route, lang: Lang) -> Result<String, Msg> {
    let failed = |reason: Msg| {
        Msg::new("lesson-load-failed").arg(
            "reason",
            crate::present::i18n::Catalog::new(lang_untracked()).msg(&reason),
        )
    };
    match route {
        Route::Index => Err(failed(Msg::new("lesson-bad-id").arg("id", ""))),
        Route::Data(hash) => crate::lessons::link::decode_source(hash)
            .map_err(|e| Msg::new("lesson-load-failed").arg("reason", e.to_string())),
        Route::Shipped(id) => {
            if !lesson_view::is_lesson_id(id) {
                return Err(failed(Msg::new("lesson-bad-id").arg("id", id.as_str())));
            }
            let entries = fetch_index().await.map_err(failed)?;
            let entry = entries
                .iter()
                .find(|e| &e.id == id && Lang::from_tag(&e.lang) == Some(lang))
                .or_else(|| entries.iter().find(|e| &e.id == id && e.lang == "en"))
                .or_else(|| entries.iter().find(|e| &e.id == id))
                .ok_or_else(|| failed(Msg::new("lesson-not-found").arg("id", id.as_str())))?;
            if entry.file.contains("..") || entry.file.contains(':') {
                return Err(failed(Msg::new("lesson-bad-id").arg("id", id.as_str())));
            }
            fetch_text(&format!("lessons/{}", entry.file))
                .await
                .map_err(failed)
        }
        Route::Url(raw) => {
            let url = same_origin_url(raw).map_err(failed)?;
            fetch_text(&url).await.map_err(failed)
        }
    }
}

/// `raw` (percent-encoded, relative or absolute) resolved against the page, when it is on
/// the page's origin.
fn same_origin_url(raw: &str) -> Result<String, Msg> {
    let decoded = js_sys::decode_uri_component(raw)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| raw.to_string());
    let location = web_sys::window()
        .map(|w| w.location())
        .ok_or_else(|| Msg::new("lesson-bad-url").arg("url", decoded.as_str()))?;
    let href = location.href().unwrap_or_default();
    let origin = location.origin().unwrap_or_default();
    let url = web_sys::Url::new_with_base(&decoded, &href)
        .map_err(|_| Msg::new("lesson-bad-url").arg("url", decoded.as_str()))?;
    if url.origin() != origin || !matches!(url.protocol().as_str(), "http:" | "https:") {
        return Err(Msg::new("lesson-cross-origin")
            .arg("origin", origin)
            .arg("url", decoded.as_str()));
    }
    Ok(url.href())
}

fn js_reason(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "network error".to_string())
}

/// GETs `url` as text (at most the largest lesson file).
async fn fetch_text(url: &str) -> Result<String, Msg> {
    let fail = |reason: String| {
        Msg::new("lesson-fetch-failed")
            .arg("url", url)
            .arg("reason", reason)
    };
    let window = web_sys::window().ok_or_else(|| fail("no window".into()))?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| fail(js_reason(e)))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| fail("no response".into()))?;
    if !response.ok() {
        return Err(fail(format!("HTTP {}", response.status())));
    }
    let text = response.text().map_err(|e| fail(js_reason(e)))?;
    let text = JsFuture::from(text)
        .await
        .map_err(|e| fail(js_reason(e)))?
        .as_string()
        .ok_or_else(|| fail("not text".into()))?;
    if text.len() > crate::lessons::parse::MAX_LESSON_BYTES {
        return Err(fail(format!("{} bytes", text.len())));
    }
    Ok(text)
}

/// The shipped track's index.
async fn fetch_index() -> Result<Vec<IndexEntry>, Msg> {
    let text = fetch_text("lessons/index.json").await?;
    serde_json::from_str(&text).map_err(|e| {
        Msg::new("lesson-fetch-failed")
            .arg("url", "lessons/index.json")
            .arg("reason", e.to_string())
    })
}

/// What the student gave for question `n`, from the player's inputs and the editor.
pub enum Given {
    Text(String),
    Choice(Option<usize>),
    Cells,
    Code,
}

/// Grades question `n`.
pub fn submit(state: AppState, ctx: LessonCtx, n: usize, given: Given) {
    let Some(lesson) = ctx.lesson_untracked() else {
        return;
    };
    let Some(block) = block_of(&lesson, n) else {
        return;
    };
    let response = match given {
        Given::Text(t) => Response::Text(t),
        Given::Choice(Some(i)) => Response::Choice(i),
        Given::Choice(None) => {
            ctx.update_question(n, |q| {
                q.state = QState::Wrong;
                q.feedback = vec![Msg::new("lesson-pick")];
            });
            return;
        }
        Given::Cells => Response::Cells(ctx.selected.get_untracked().into_iter().collect()),
        Given::Code => {
            let prefix = lesson.script_before(block);
            let editor = state.script.get_untracked();
            Response::Code(lesson_view::student_code(&editor, &prefix))
        }
    };
    let Some(graded) = with_session(|s| s.grade(block, &response)) else {
        return;
    };
    match graded {
        Ok(grade) if grade.correct => {
            ctx.update_question(n, |q| {
                q.state = QState::Correct;
                q.feedback.clear();
            });
            state.read_only.set(true);
            ctx.save_progress();
        }
        Ok(grade) => {
            let mut feedback: Vec<Msg> = grade
                .feedback
                .iter()
                .map(lesson_view::feedback_message)
                .collect();
            if feedback.is_empty() {
                feedback.push(Msg::new("lesson-wrong"));
            }
            ctx.update_question(n, |q| {
                q.state = QState::Wrong;
                q.feedback = feedback;
            });
        }
        Err(e) => ctx.update_question(n, |q| {
            q.state = QState::Wrong;
            q.feedback = vec![Msg::new("lesson-ungradable").arg("error", e)];
        }),
    }
}

/// "Show me": the answer of question `n` (a task's solution goes into the editor).
pub fn reveal(state: AppState, ctx: LessonCtx, n: usize) {
    let Some(lesson) = ctx.lesson_untracked() else {
        return;
    };
    let Some(block) = block_of(&lesson, n) else {
        return;
    };
    let Block::Question(question) = &lesson.blocks[block] else {
        return;
    };
    let shown = match &question.kind {
        QuestionKind::Answer { .. }
        | QuestionKind::Choices { .. }
        | QuestionKind::Memory { .. } => {
            with_session(|s| s.expected_literal(block)).map(|r| match r {
                Ok(lit) => Msg::new("lesson-revealed").arg("answer", lit.to_string()),
                Err(e) => Msg::new("lesson-ungradable").arg("error", e),
            })
        }
        QuestionKind::Cells { .. } => with_session(|s| s.cells_target(block)).map(|r| match r {
            Ok(t) => {
                ctx.selected.set(t.offsets.iter().copied().collect());
                let cells: Vec<String> = t.offsets.iter().map(i64::to_string).collect();
                Msg::new("lesson-revealed-cells").arg("cells", cells.join(", "))
            }
            Err(e) => Msg::new("lesson-ungradable").arg("error", e),
        }),
        QuestionKind::Task { solution, .. } => {
            let mut script = lesson.script_before(block);
            script.push_str(solution);
            if !script.ends_with('\n') {
                script.push('\n');
            }
            state.script.set(script);
            run_now(state);
            Some(Msg::new("lesson-revealed-task"))
        }
    };
    ctx.update_question(n, |q| {
        q.state = QState::Revealed;
        q.feedback.clear();
        q.shown = shown;
    });
    state.read_only.set(true);
    ctx.save_progress();
}

/// A click on a storage cell while a `cells` question is open toggles its selection
/// (instead of pinning it). Returns whether the click was the question's.
pub fn cell_clicked(ctx: LessonCtx, storage: &str, offset: i64) -> bool {
    let n = ctx.current.get_untracked();
    if ctx.question_state(n).closed() {
        return false;
    }
    let ours = ctx
        .cells_target
        .with_untracked(|t| t.as_ref().is_some_and(|t| t.storage == storage));
    if !ours {
        return false;
    }
    ctx.selected.update(|s| {
        if !s.remove(&offset) {
            s.insert(offset);
        }
    });
    true
}

/// Moves on to the next question.
pub fn next(ctx: LessonCtx) {
    let total = ctx.questions.with_untracked(Vec::len);
    ctx.current.update(|c| *c = (*c + 1).min(total));
}
