//! Lesson links: a whole lesson file carried in a link's hash, so that an instructor can
//! hand out a lesson with no server: `index.html#lesson-data=v1.<data>`, where `<data>` is
//! the lesson's Markdown, deflated and written in base64url exactly as share links pack
//! their state ([`crate::core::packing::pack`]). Decoding trusts nothing: length, version, encoding,
//! inflated size, UTF-8, and then the lesson itself ([`crate::lessons::parse::parse_lesson`]).

use crate::core::packing::{pack, unpack, UnpackError};
use crate::lessons::model::Lesson;
use crate::lessons::parse::{parse_lesson, ParseError, MAX_LESSON_BYTES};

/// The hash key of a lesson link.
pub const LESSON_DATA_KEY: &str = "lesson-data";
/// The lesson link format this build writes.
pub const LESSON_LINK_VERSION: u32 = 1;
/// Hashes longer than this (characters) are refused before any decoding.
pub const MAX_LESSON_HASH_CHARS: usize = 512 * 1024;

/// Why a lesson link could not be opened. Shown to the user as plain text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LessonLinkError {
    /// The hash is not `lesson-data=v1.…`.
    #[error("This link does not carry a lesson (its address should hold #lesson-data=v1.).")]
    NotALessonLink,
    /// Too long to be a lesson link.
    #[error("This link is too long to carry a lesson ({chars} characters; at most {max}).", max = MAX_LESSON_HASH_CHARS)]
    TooLong {
        /// The hash's length.
        chars: usize,
    },
    /// A version this build does not read.
    #[error("This lesson link has format {version}; this page reads format {LESSON_LINK_VERSION}. Open it with a newer Stridescope.")]
    UnknownVersion {
        /// The version in the link.
        version: u32,
    },
    /// The data is damaged (base64, deflate, size).
    #[error("{0}")]
    Damaged(UnpackError),
    /// The data is not UTF-8 text.
    #[error("This lesson link is damaged: its lesson is not text.")]
    NotText,
    /// The lesson in the link does not parse.
    #[error("The lesson in this link has a mistake at line {line}: {0}", line = .0.line)]
    Lesson(ParseError),
}

/// The hash (without `#`) that carries `source`, a lesson file's text:
/// `lesson-data=v1.<base64url(deflate(source))>`.
pub fn encode(source: &str) -> String {
    format!(
        "{LESSON_DATA_KEY}=v{LESSON_LINK_VERSION}.{}",
        pack(source.as_bytes())
    )
}

/// The whole link: `base` (e.g. `index.html` or `https://host/app/index.html`) with the
/// lesson's hash.
pub fn link(base: &str, source: &str) -> String {
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}#{}", encode(source))
}

/// Whether a location hash (with or without `#`) is a lesson link.
pub fn is_lesson_hash(hash: &str) -> bool {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    hash.starts_with(LESSON_DATA_KEY) && hash[LESSON_DATA_KEY.len()..].starts_with('=')
}

/// The lesson file's text carried by `hash` (with or without `#`).
pub fn decode_source(hash: &str) -> Result<String, LessonLinkError> {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    if hash.len() > MAX_LESSON_HASH_CHARS {
        return Err(LessonLinkError::TooLong { chars: hash.len() });
    }
    let rest = hash
        .strip_prefix(LESSON_DATA_KEY)
        .and_then(|r| r.strip_prefix("=v"))
        .ok_or(LessonLinkError::NotALessonLink)?;
    let (version, data) = rest
        .split_once('.')
        .ok_or(LessonLinkError::NotALessonLink)?;
    if version.is_empty() || version.len() > 6 || !version.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LessonLinkError::NotALessonLink);
    }
    let version: u32 = version
        .parse()
        .map_err(|_| LessonLinkError::NotALessonLink)?;
    if version != LESSON_LINK_VERSION {
        return Err(LessonLinkError::UnknownVersion { version });
    }
    let bytes = unpack(data, MAX_LESSON_BYTES).map_err(LessonLinkError::Damaged)?;
    String::from_utf8(bytes).map_err(|_| LessonLinkError::NotText)
}

/// The lesson carried by `hash`, parsed.
pub fn decode(hash: &str) -> Result<Lesson, LessonLinkError> {
    parse_lesson(&decode_source(hash)?).map_err(LessonLinkError::Lesson)
}
