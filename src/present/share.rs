//! Share links and embed options: the whole state of the page in a URL hash, with no server.
//!
//! A link's hash is `#v1.<data>`: the format version, then the state as JSON, deflated and
//! written in base64url. Decoding trusts nothing: the length, the version, the base64, the
//! inflated size (a zip bomb stops at [`MAX_STATE_BYTES`]), the JSON and every field are
//! checked, and each failure is a [`LinkError`] whose message the page shows as text (never as
//! HTML) above the default scenario. Old versions keep decoding: a new field gets a serde
//! default, so `v1` links stay valid when fields are added; a breaking change gets `v2` and a
//! `v1` decoder stays here.
//!
//! Instructors can also write options by hand in the query string (`embed.html?readonly&
//! panels=storage,views&step=3#v1...`): [`apply_query`] lays them over the hash's state.
//! Pure and native-testable: `app/` calls these with `location.hash` and `location.search`.

use crate::core::packing::UnpackError;
use serde::{Deserialize, Serialize};

/// The format version this build writes.
pub const LINK_VERSION: u32 = 1;
/// Hashes longer than this (in characters) are refused before any decoding.
pub const MAX_HASH_CHARS: usize = 256 * 1024;
/// The most bytes the inflated state may have.
pub const MAX_STATE_BYTES: usize = 512 * 1024;
/// The longest script a link may carry (the browser runs scripts up to this size).
pub const MAX_SCRIPT_BYTES: usize = 100_000;
/// The longest accessible title a link may carry.
pub const MAX_TITLE_CHARS: usize = 200;
/// Embed heights (px) are clamped to this range.
pub const HEIGHT_RANGE: (u32, u32) = (120, 4000);

/// The colour theme: follow the system, or fixed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    /// `auto`, `light` or `dark`.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The theme called `name`, if any.
    pub fn from_name(name: &str) -> Option<Theme> {
        match name {
            "auto" => Some(Theme::Auto),
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }
}

/// The page's panels, each of which can be hidden (embeds show fewer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PanelKind {
    Editor,
    Steps,
    Output,
    Memory,
    Storage,
    Views,
}

impl PanelKind {
    /// Every panel, in page order.
    pub const ALL: [PanelKind; 6] = [
        PanelKind::Editor,
        PanelKind::Steps,
        PanelKind::Output,
        PanelKind::Memory,
        PanelKind::Storage,
        PanelKind::Views,
    ];

    /// The panel's name in links and query strings.
    pub fn name(self) -> &'static str {
        match self {
            PanelKind::Editor => "editor",
            PanelKind::Steps => "steps",
            PanelKind::Output => "output",
            PanelKind::Memory => "memory",
            PanelKind::Storage => "storage",
            PanelKind::Views => "views",
        }
    }

    /// How the Embed dialog labels it.
    pub fn label(self) -> &'static str {
        match self {
            PanelKind::Editor => "Script editor",
            PanelKind::Steps => "Step controls",
            PanelKind::Output => "Output",
            PanelKind::Memory => "Memory",
            PanelKind::Storage => "Storage",
            PanelKind::Views => "Views",
        }
    }

    /// The panel called `name`, if any.
    pub fn from_name(name: &str) -> Option<PanelKind> {
        PanelKind::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// A pinned storage cell: its storage and offset, and the view cell it was picked in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedCell {
    #[serde(rename = "s")]
    pub storage: String,
    #[serde(rename = "o")]
    pub offset: i64,
    /// View name and logical index, when picked in a view.
    #[serde(rename = "v", default, skip_serializing_if = "Option::is_none")]
    pub view: Option<(String, Vec<i64>)>,
}

/// Everything a link restores. Short field names keep links short.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedState {
    /// The script, as typed.
    #[serde(rename = "s")]
    pub script: String,
    /// The current step (0-based; clamped to the run's steps when opened).
    #[serde(rename = "t", default)]
    pub step: usize,
    /// The pinned (highlighted) cell.
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<PinnedCell>,
    /// The view and dimension whose stride jumps are drawn.
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub picked: Option<(String, usize)>,
    #[serde(rename = "th", default, skip_serializing_if = "is_auto")]
    pub theme: Theme,
    /// Panels not shown.
    #[serde(rename = "x", default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<PanelKind>,
    /// The editor cannot be typed in (embeds for reading).
    #[serde(rename = "ro", default, skip_serializing_if = "is_false")]
    pub read_only: bool,
    /// The embed's height in px (its initial height; it grows with its content).
    #[serde(rename = "h", default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The accessible title of the embed.
    #[serde(rename = "ti", default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The script runs as on a CUDA device (the memory panel's switch; `cuda=1` in a query
    /// string).
    #[serde(rename = "cu", default, skip_serializing_if = "is_false")]
    pub cuda: bool,
}

fn is_auto(t: &Theme) -> bool {
    *t == Theme::Auto
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SharedState {
    /// A state showing `script` from its first step, everything else default.
    pub fn new(script: impl Into<String>) -> SharedState {
        SharedState {
            script: script.into(),
            step: 0,
            pinned: None,
            picked: None,
            theme: Theme::Auto,
            hidden: Vec::new(),
            read_only: false,
            height: None,
            title: None,
            cuda: false,
        }
    }

    /// Whether `panel` is shown.
    pub fn shows(&self, panel: PanelKind) -> bool {
        !self.hidden.contains(&panel)
    }

    /// The title an embed of this state gets: the chosen one, else the script's first
    /// comment, else a generic one.
    pub fn accessible_title(&self) -> String {
        if let Some(t) = self.title.as_deref().filter(|t| !t.trim().is_empty()) {
            return format!("Stridescope: {}", t.trim());
        }
        let comment = self
            .script
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix('#'))
            .map(|c| c.trim().trim_end_matches('.'))
            .filter(|c| !c.is_empty());
        match comment {
            Some(c) => format!("Stridescope: {}", truncate_chars(c, 80)),
            None => "Stridescope: how a PyTorch tensor lives in memory".to_string(),
        }
    }

    /// A page with every panel hidden would be blank: then every panel shows.
    fn keep_a_panel(&mut self) -> bool {
        let blank = PanelKind::ALL.iter().all(|p| self.hidden.contains(p));
        if blank {
            self.hidden.clear();
        }
        blank
    }

    /// Checks every field of a decoded state and clamps what can be clamped.
    fn validated(mut self) -> Result<SharedState, LinkError> {
        if self.script.len() > MAX_SCRIPT_BYTES {
            return Err(LinkError::ScriptTooLong {
                bytes: self.script.len(),
            });
        }
        if let Some(h) = self.height {
            self.height = Some(h.clamp(HEIGHT_RANGE.0, HEIGHT_RANGE.1));
        }
        if let Some(t) = &self.title {
            self.title = Some(truncate_chars(t, MAX_TITLE_CHARS));
        }
        crate::core::tensor::stable_sort::sort_by_key(&mut self.hidden, |p| *p as u8);
        self.hidden.dedup();
        self.keep_a_panel();
        Ok(self)
    }
}

fn truncate_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Why a link could not be opened. The messages are shown to the user as plain text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("This link is too long to be a Stridescope link ({chars} characters; links hold at most {max}).", max = MAX_HASH_CHARS)]
    TooLong { chars: usize },
    #[error("This link's address does not hold a Stridescope state (it should start with #v1.).")]
    NotALink,
    #[error("This link was made by a newer Stridescope (link format {version}; this page reads formats up to {LINK_VERSION}). Open it with the newer version.")]
    FutureVersion { version: u32 },
    #[error("This link's format (version {version}) is not one Stridescope ever wrote.")]
    UnknownVersion { version: u32 },
    #[error("This link is damaged: its data is not valid base64url. Was it cut or changed when it was copied?")]
    BadEncoding,
    #[error("This link is incomplete or damaged: its data does not unpack ({reason}). Was it cut when it was copied?")]
    Truncated { reason: String },
    #[error("This link unpacks to more than {max} bytes, more than any Stridescope state.", max = MAX_STATE_BYTES)]
    Oversized,
    #[error("This link's data is not a Stridescope state ({reason}).")]
    BadState { reason: String },
    #[error("This link's script is {bytes} bytes; Stridescope runs scripts up to {max} bytes.", max = MAX_SCRIPT_BYTES)]
    ScriptTooLong { bytes: usize },
}

/// `v1.<data>` (without the `#`): the link hash of `state`.
pub fn encode(state: &SharedState) -> String {
    // Serializing plain strings, numbers and enums cannot fail.
    let json = serde_json::to_vec(state).unwrap_or_default();
    format!("v{LINK_VERSION}.{}", pack(&json))
}

pub use crate::core::packing::pack;

/// The inverse of [`pack`], stopping at `max` inflated bytes, with the share link's errors.
pub fn unpack(data: &str, max: usize) -> Result<Vec<u8>, LinkError> {
    crate::core::packing::unpack(data, max).map_err(|e| match e {
        UnpackError::BadEncoding => LinkError::BadEncoding,
        UnpackError::Truncated { reason } => LinkError::Truncated { reason },
        UnpackError::Oversized { .. } => LinkError::Oversized,
    })
}

/// Decodes a link hash (with or without its leading `#`). `Ok(None)` when there is no hash
/// at all (the page opens as usual).
pub fn decode(hash: &str) -> Result<Option<SharedState>, LinkError> {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    if hash.is_empty() {
        return Ok(None);
    }
    if hash.len() > MAX_HASH_CHARS {
        return Err(LinkError::TooLong { chars: hash.len() });
    }
    let rest = hash.strip_prefix('v').ok_or(LinkError::NotALink)?;
    let (version, data) = rest.split_once('.').ok_or(LinkError::NotALink)?;
    if version.is_empty() || version.len() > 6 || !version.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LinkError::NotALink);
    }
    let version: u32 = version.parse().map_err(|_| LinkError::NotALink)?;
    match version {
        1 => decode_v1(data).map(Some),
        v if v > LINK_VERSION => Err(LinkError::FutureVersion { version: v }),
        v => Err(LinkError::UnknownVersion { version: v }),
    }
}

fn decode_v1(data: &str) -> Result<SharedState, LinkError> {
    // Some mailers and chat apps append `=` padding or wrap long links: tolerate both.
    let json = unpack(data, MAX_STATE_BYTES)?;
    let state: SharedState = serde_json::from_slice(&json).map_err(|e| LinkError::BadState {
        reason: e.to_string(),
    })?;
    state.validated()
}

/// Options an embedding page may write by hand in the query string, laid over the state.
/// Returns what was not understood, for a console note (unknown keys are ignored, never
/// fatal). Recognized: `readonly`, `panels=a,b`, `hide=a,b`, `step=N` (1-based, as the step
/// label counts), `theme=auto|light|dark`, `height=PX`, `title=TEXT`, `cuda=1` (run as on a
/// CUDA device); `embed` is the page's.
pub fn apply_query(state: &mut SharedState, query: &str) -> Vec<String> {
    let mut ignored = Vec::new();
    let query = query.strip_prefix('?').unwrap_or(query);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = match pair.split_once('=') {
            Some((k, v)) => (percent_decode(k), percent_decode(v)),
            None => (percent_decode(pair), String::new()),
        };
        let flag = matches!(value.as_str(), "" | "1" | "true" | "yes");
        match key.as_str() {
            "embed" => {}
            "readonly" => state.read_only = flag,
            "panels" | "hide" => {
                let mut named = Vec::new();
                for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    match PanelKind::from_name(name) {
                        Some(p) => named.push(p),
                        None => ignored.push(format!("{key}: unknown panel {name:?}")),
                    }
                }
                state.hidden = if key == "panels" {
                    PanelKind::ALL
                        .into_iter()
                        .filter(|p| !named.contains(p))
                        .collect()
                } else {
                    named
                };
                if state.keep_a_panel() {
                    ignored.push(format!("{key}: no panel would show, so all show"));
                }
            }
            "step" => match value.parse::<usize>() {
                Ok(n) if n >= 1 => state.step = n - 1,
                _ => ignored.push(format!("step: {value:?} is not a step number (1, 2, ...)")),
            },
            "theme" => match Theme::from_name(&value) {
                Some(t) => state.theme = t,
                None => ignored.push(format!("theme: {value:?} is not auto, light or dark")),
            },
            "height" => match value.trim_end_matches("px").parse::<u32>() {
                Ok(h) => state.height = Some(h.clamp(HEIGHT_RANGE.0, HEIGHT_RANGE.1)),
                Err(_) => ignored.push(format!("height: {value:?} is not a number of pixels")),
            },
            "title" => state.title = Some(truncate_chars(&value, MAX_TITLE_CHARS)),
            "cuda" => state.cuda = flag,
            _ => ignored.push(format!("unknown option {key:?}")),
        }
    }
    ignored
}

/// Whether the query string asks for embed mode (`?embed`, `?embed=1`).
pub fn query_wants_embed(query: &str) -> bool {
    let query = query.strip_prefix('?').unwrap_or(query);
    query.split('&').any(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        k == "embed" && !matches!(v, "0" | "false" | "no")
    })
}

/// Decodes `%XX` escapes and `+` (as a space); invalid escapes stay as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The options of an embed snippet (the Embed dialog's checkboxes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedOptions {
    /// Where `embed.html` is, e.g. `https://example.org/stridescope/embed.html`.
    pub embed_url: String,
    /// Add the few lines of script that let the iframe grow with its content.
    pub auto_height: bool,
}

/// The HTML an instructor pastes into a course page: an iframe with an accessible title and
/// the state in its hash, and (optionally) the listener that resizes it to its content.
pub fn embed_snippet(state: &SharedState, options: &EmbedOptions) -> String {
    let height = state.height.unwrap_or(560);
    let src = format!("{}#{}", options.embed_url, encode(state));
    let mut html = format!(
        "<iframe src=\"{}\" title=\"{}\" width=\"100%\" height=\"{height}\" style=\"border:0;max-width:100%\" loading=\"lazy\"></iframe>",
        attr_escape(&src),
        attr_escape(&state.accessible_title()),
    );
    if options.auto_height {
        html.push_str(AUTO_HEIGHT_SCRIPT);
    }
    html
}

/// The listener that resizes Stridescope iframes when they post their content height
/// (`{type: "stridescope:height", height}`); safe to paste more than once.
pub const AUTO_HEIGHT_SCRIPT: &str = "\n<script>\naddEventListener(\"message\", function (e) {\n  var d = e.data;\n  if (!d || d.type !== \"stridescope:height\" || !(d.height > 0)) return;\n  document.querySelectorAll(\"iframe\").forEach(function (f) {\n    if (f.contentWindow === e.source) f.style.height = Math.ceil(d.height) + \"px\";\n  });\n});\n</script>";

fn attr_escape(s: &str) -> String {
    crate::present::cells::escape_html(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;

    fn full_state() -> SharedState {
        SharedState {
            script: "import torch\na = torch.arange(6).reshape(2, 3)\nb = a.t()\n# ünïcode ✓\n"
                .into(),
            step: 2,
            pinned: Some(PinnedCell {
                storage: "s0".into(),
                offset: 4,
                view: Some(("b".into(), vec![1, 1])),
            }),
            picked: Some(("a".into(), 1)),
            theme: Theme::Dark,
            hidden: vec![PanelKind::Memory],
            read_only: true,
            height: Some(480),
            title: Some("Aliasing through transpose".into()),
            cuda: true,
        }
    }

    #[test]
    fn round_trips_every_field() {
        let state = full_state();
        let hash = encode(&state);
        assert!(hash.starts_with("v1."));
        assert!(hash[3..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(decode(&format!("#{hash}")), Ok(Some(state.clone())));
        assert_eq!(decode(&hash), Ok(Some(state)));
    }

    #[test]
    fn defaults_stay_out_of_the_link() {
        let hash = encode(&SharedState::new("x = 1"));
        let json =
            miniz_oxide::inflate::decompress_to_vec(&URL_SAFE_NO_PAD.decode(&hash[3..]).unwrap())
                .unwrap();
        assert_eq!(String::from_utf8(json).unwrap(), r#"{"s":"x = 1","t":0}"#);
    }

    #[test]
    fn no_hash_is_no_link() {
        assert_eq!(decode(""), Ok(None));
        assert_eq!(decode("#"), Ok(None));
    }

    #[test]
    fn hostile_and_broken_hashes_are_errors() {
        let hash = encode(&full_state());
        for bad in [
            "#<script>alert(1)</script>",
            "#<img src=x onerror=alert(1)>",
            "#v1",
            "#v.abc",
            "#vv1.abc",
            "#v1x.abc",
            "#v99999999999.abc",
            "#section-2",
        ] {
            assert!(decode(bad).is_err(), "{bad}");
        }
        assert_eq!(decode("#v1.!!!"), Err(LinkError::BadEncoding));
        assert!(matches!(
            decode(&hash[..hash.len() / 2]),
            Err(LinkError::Truncated { .. } | LinkError::BadEncoding)
        ));
        assert_eq!(
            decode("#v7.AAAA"),
            Err(LinkError::FutureVersion { version: 7 })
        );
        assert_eq!(
            decode("#v0.AAAA"),
            Err(LinkError::UnknownVersion { version: 0 })
        );
        let long = format!("#v1.{}", "A".repeat(3 << 20));
        assert!(matches!(decode(&long), Err(LinkError::TooLong { .. })));
        let not_json = format!(
            "v1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b"<b>hi</b>", 6))
        );
        assert!(matches!(decode(&not_json), Err(LinkError::BadState { .. })));
    }

    #[test]
    fn a_zip_bomb_stops_at_the_limit() {
        let zeros = vec![b' '; 8 << 20];
        let bomb = format!(
            "v1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&zeros, 10))
        );
        assert!(bomb.len() < MAX_HASH_CHARS);
        assert_eq!(decode(&bomb), Err(LinkError::Oversized));
    }

    #[test]
    fn fields_are_validated() {
        let mut state = SharedState::new("x".repeat(MAX_SCRIPT_BYTES + 1));
        assert!(matches!(
            decode(&encode(&state)),
            Err(LinkError::ScriptTooLong { .. })
        ));
        state.script = "x = 1".into();
        state.height = Some(1);
        state.title = Some("t".repeat(1000));
        let back = decode(&encode(&state)).unwrap().unwrap();
        assert_eq!(back.height, Some(HEIGHT_RANGE.0));
        assert_eq!(back.title.unwrap().chars().count(), MAX_TITLE_CHARS);
    }

    #[test]
    fn unknown_fields_of_the_same_version_are_ignored() {
        let json = br#"{"s":"a = 1","t":0,"future":{"x":1}}"#;
        let hash = format!(
            "v1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json, 6))
        );
        assert_eq!(decode(&hash).unwrap().unwrap().script, "a = 1");
    }

    #[test]
    fn query_options_lay_over_the_state() {
        let mut state = SharedState::new("x = 1");
        let ignored = apply_query(
            &mut state,
            "?embed&readonly&panels=storage,views&step=3&theme=dark&height=300px&title=Slicing%20%26+offsets&zoom=2",
        );
        assert!(state.read_only);
        assert!(state.shows(PanelKind::Storage) && state.shows(PanelKind::Views));
        assert!(!state.shows(PanelKind::Editor));
        assert_eq!(state.step, 2);
        assert_eq!(state.theme, Theme::Dark);
        assert_eq!(state.height, Some(300));
        assert_eq!(state.title.as_deref(), Some("Slicing & offsets"));
        assert_eq!(ignored, vec!["unknown option \"zoom\"".to_string()]);
        assert!(query_wants_embed("?x=1&embed"));
        assert!(!query_wants_embed("?embed=0"));
        assert!(!query_wants_embed(""));
        assert_eq!(percent_decode("100%"), "100%");
        let mut blank = SharedState::new("x = 1");
        let ignored = apply_query(&mut blank, "panels=nothing");
        assert!(
            PanelKind::ALL.iter().all(|p| blank.shows(*p)),
            "never a blank page"
        );
        assert_eq!(ignored.len(), 2, "{ignored:?}");
        blank.hidden = PanelKind::ALL.to_vec();
        assert!(decode(&encode(&blank)).unwrap().unwrap().hidden.is_empty());
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }

    #[test]
    fn snippets_escape_and_title() {
        let mut state = SharedState::new("# Views of \"a\" <b>\nb = 1");
        state.height = Some(400);
        let html = embed_snippet(
            &state,
            &EmbedOptions {
                embed_url: "https://example.org/s/embed.html".into(),
                auto_height: true,
            },
        );
        assert!(html.starts_with("<iframe src=\"https://example.org/s/embed.html#v1."));
        assert!(html.contains("title=\"Stridescope: Views of &quot;a&quot; &lt;b&gt;\""));
        assert!(html.contains("height=\"400\""));
        assert!(html.contains("stridescope:height"));
        assert_eq!(
            SharedState::new("a = 1").accessible_title(),
            "Stridescope: how a PyTorch tensor lives in memory"
        );
    }
}
