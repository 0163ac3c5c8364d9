//! The evaluator, reached through one trait object: in the web build (feature `split`) it
//! lives in a wasm chunk of its own that is fetched after the page's first paint, so the app
//! shell (the UI, the engines and the renderer) is what the first download carries.
//!
//! Nothing in the app calls the evaluator except through [`Core`]; that is what lets
//! `wasm-split-cli` move it out of the main module (a direct call would pull it back in).

use crate::core::image::ImageLibrary;
use crate::core::trace::Trace;
use crate::engines::Engine;
use crate::interp::{Evaluator, Limits};
use crate::lessons::grade::CellsTarget;
use crate::lessons::{Grade, Lesson, LessonSession, Literal, Response};

/// What the app asks of the evaluator.
pub trait Core {
    /// Runs `script` on `engine` within `limits`, with `images` for `read_image`; with
    /// `cuda`, as on a (simulated) CUDA device.
    fn run(
        &self,
        script: &str,
        limits: Limits,
        engine: Box<dyn Engine>,
        images: ImageLibrary,
        cuda: bool,
    ) -> Trace;

    /// Parses a lesson file: the lesson, or the 1-based line and the message of its error.
    fn parse_lesson(&self, text: &str) -> Result<Lesson, (usize, String)>;

    /// A lesson's Markdown as safe HTML (`lesson_view::markdown_html`).
    fn markdown_html(&self, markdown: &str) -> String;

    /// A session that grades `lesson`'s questions.
    fn lesson_session(&self, lesson: Lesson) -> Box<dyn Grading>;
}

/// A lesson's grading session ([`LessonSession`]); errors come as their messages.
pub trait Grading {
    /// Grades the response to the question in block `index`.
    fn grade(&mut self, index: usize, response: &Response) -> Result<Grade, String>;
    /// The right answer of the `answer`/`choices` question in block `index`.
    fn expected_literal(&mut self, index: usize) -> Result<Literal, String>;
    /// The cells that the `cells` question in block `index` asks for.
    fn cells_target(&mut self, index: usize) -> Result<CellsTarget, String>;
}

impl Grading for LessonSession {
    fn grade(&mut self, index: usize, response: &Response) -> Result<Grade, String> {
        LessonSession::grade(self, index, response).map_err(|e| e.to_string())
    }
    fn expected_literal(&mut self, index: usize) -> Result<Literal, String> {
        LessonSession::expected_literal(self, index).map_err(|e| e.to_string())
    }
    fn cells_target(&mut self, index: usize) -> Result<CellsTarget, String> {
        LessonSession::cells_target(self, index).map_err(|e| e.to_string())
    }
}

struct CoreImpl;

impl Core for CoreImpl {
    fn run(
        &self,
        script: &str,
        limits: Limits,
        engine: Box<dyn Engine>,
        images: ImageLibrary,
        cuda: bool,
    ) -> Trace {
        let mut evaluator = Evaluator::new(engine, limits);
        evaluator.set_images(Box::new(images));
        evaluator.set_cuda_device(cuda);
        evaluator.run(script)
    }

    fn parse_lesson(&self, text: &str) -> Result<Lesson, (usize, String)> {
        crate::lessons::parse_lesson(text).map_err(|e| (e.line, e.to_string()))
    }

    fn markdown_html(&self, markdown: &str) -> String {
        crate::present::lesson_view::markdown_html(markdown)
    }

    fn lesson_session(&self, lesson: Lesson) -> Box<dyn Grading> {
        Box::new(LessonSession::new(lesson))
    }
}

/// A lesson's Markdown as HTML, once the evaluator's chunk is loaded (a lesson is shown only
/// after it was parsed, which needs the chunk, so this is always the case there).
pub fn markdown_html(markdown: &str) -> String {
    core()
        .map(|c| c.markdown_html(markdown))
        .unwrap_or_default()
}

/// What runs once the evaluator's chunk arrives.
#[cfg(feature = "split")]
type Waiters = Vec<Box<dyn FnOnce(Result<&'static dyn Core, String>)>>;

#[cfg(feature = "split")]
thread_local! {
    /// The evaluator, once its chunk arrived.
    static LOADED: std::cell::Cell<Option<&'static dyn Core>> = const { std::cell::Cell::new(None) };
    /// Whether the chunk is being fetched, and who waits for it.
    static WAITING: std::cell::RefCell<Option<Waiters>> = const { std::cell::RefCell::new(None) };
}

/// The evaluator, once its chunk is loaded (always, without the `split` feature).
pub fn core() -> Option<&'static dyn Core> {
    #[cfg(not(feature = "split"))]
    {
        Some(&CoreImpl)
    }
    #[cfg(feature = "split")]
    {
        LOADED.with(std::cell::Cell::get)
    }
}

/// The split point: `wasm-split-cli` moves this function, and everything only it reaches,
/// into `split_core.wasm`. Calling it fetches that module first.
#[cfg(feature = "split")]
#[wasm_split_helpers::wasm_split(core, fallible)]
fn load_core() -> Result<&'static dyn Core, wasm_split_helpers::SplitLoaderError> {
    Ok(&CoreImpl)
}

/// Fetches the evaluator's chunk, then calls `then` with it, or with why it could not be
/// loaded (at once when it is already there). Callers that arrive while it is on its way are
/// queued and called in order. After a failure, the next call fetches it again.
pub fn load(then: impl FnOnce(Result<&'static dyn Core, String>) + 'static) {
    match core() {
        Some(core) => then(Ok(core)),
        #[cfg(feature = "split")]
        None => fetch_then(Box::new(then)),
        #[cfg(not(feature = "split"))]
        None => then(Err(String::new())),
    }
}

#[cfg(feature = "split")]
fn fetch_then(then: Box<dyn FnOnce(Result<&'static dyn Core, String>)>) {
    let first = WAITING.with(|w| {
        let mut w = w.borrow_mut();
        let first = w.is_none();
        w.get_or_insert_with(Vec::new).push(then);
        first
    });
    if !first {
        return;
    }
    leptos::task::spawn_local(async move {
        let loaded = load_core().await;
        let waiting = WAITING.with(|w| w.borrow_mut().take()).unwrap_or_default();
        let loaded = loaded.map_err(|e| e.to_string());
        match loaded {
            Ok(core) => LOADED.with(|l| l.set(Some(core))),
            Err(ref e) => web_sys::console::error_1(
                &format!("Stridescope: loading the evaluator failed: {e}").into(),
            ),
        }
        for then in waiting {
            then(loaded.clone());
        }
    });
}
