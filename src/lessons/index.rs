//! The shipped track's index (`www/lessons/index.json`): what the app's lesson list loads
//! before any lesson, written by `stridescope lesson index` and checked by the tests.

use serde::{Deserialize, Serialize};

use crate::lessons::model::Lesson;

/// One lesson in the index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// The lesson's id (the same in every language).
    pub id: String,
    /// Its title, in its language.
    pub title: String,
    /// Its language tag.
    pub lang: String,
    /// Its file, relative to the index, with `/` separators (`en/01-storage.md`).
    pub file: String,
    /// How many questions it asks.
    pub questions: usize,
}

impl IndexEntry {
    /// The entry of `lesson`, stored at `file`.
    pub fn new(lesson: &Lesson, file: &str) -> IndexEntry {
        IndexEntry {
            id: lesson.id.clone(),
            title: lesson.title.clone(),
            lang: lesson.lang.clone(),
            file: file.replace('\\', "/"),
            questions: lesson.questions().count(),
        }
    }
}

/// The index's JSON text: entries sorted by file, pretty-printed, ending with a newline.
pub fn index_json(entries: &[IndexEntry]) -> String {
    let mut sorted = entries.to_vec();
    crate::core::tensor::stable_sort::sort_by(&mut sorted, |a, b| a.file.cmp(&b.file));
    let mut text = serde_json::to_string_pretty(&sorted).unwrap_or_else(|_| "[]".to_string());
    text.push('\n');
    text
}
