//! The current step as a standalone SVG diagram, for slides and notes: every storage as a
//! strip of cells (offsets, values, a coloured mark per view that reaches the cell, the
//! cells this step wrote), every tensor variable as its grid with shape, stride and offset,
//! and the pinned cell outlined in every place it appears. Real vector drawing with text as
//! `<text>` (searchable, selectable, scalable), no fonts or images embedded. The app turns it
//! into a PNG by drawing it on a canvas. Pure: no DOM, testable natively.

use std::fmt::Write;

use crate::core::tensor::StorageId;
use crate::core::trace::{Step, StorageRecord, TensorRecord};
use crate::present::cells::{
    cell_index, dims_text, escape_html, flat_position, grid_plan, storage_offset_of, value_text,
    view_colour, Tick,
};
use crate::present::i18n::{Catalog, Lang};

/// Storages longer than twice this are drawn as their first and last this-many cells.
pub const STORAGE_EDGE: usize = 128;

const MARGIN: f64 = 16.0;
const CELL_W: f64 = 48.0;
const CELL_H: f64 = 28.0;
const GAP_W: f64 = 22.0;
const STRIP_CELLS_PER_ROW: usize = 16;
const MAX_ROW_WIDTH: f64 = 1100.0;
const LABEL_W: f64 = 28.0;

/// What to draw besides the step itself.
#[derive(Clone, Debug, Default)]
pub struct DiagramOptions {
    /// The pinned or hovered storage element: (storage id, offset).
    pub highlight: Option<(StorageId, i64)>,
    /// Dark background (as the page's dark theme); light otherwise.
    pub dark: bool,
    /// The heading, e.g. `Step 3 of 9 · line 4`.
    pub heading: String,
    /// The language of the diagram's words (its catalog, `www/locales/<lang>/main.ftl`).
    pub lang: Lang,
}

struct Colours {
    background: &'static str,
    text: &'static str,
    muted: &'static str,
    cell: &'static str,
    unreached: &'static str,
    stroke: &'static str,
    written: &'static str,
    highlight: &'static str,
}

const LIGHT: Colours = Colours {
    background: "#ffffff",
    text: "#1d232b",
    muted: "#5c6672",
    cell: "#f4f6f9",
    unreached: "#e3e6ea",
    stroke: "#9aa3ad",
    written: "#ffe6a8",
    highlight: "#d55e00",
};

const DARK: Colours = Colours {
    background: "#14181d",
    text: "#e8ecf1",
    muted: "#a3adb8",
    cell: "#222931",
    unreached: "#181c21",
    stroke: "#5b6570",
    written: "#6b5313",
    highlight: "#ff9a4d",
};

/// Accumulates the drawing and its extent.
struct Canvas<'w> {
    body: String,
    width: f64,
    y: f64,
    colours: &'static Colours,
    /// The diagram's words, in the chosen language.
    words: &'w Catalog,
}

impl Canvas<'_> {
    fn text(&mut self, x: f64, y: f64, class: &str, anchor: &str, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" class="{class}" text-anchor="{anchor}">{}</text>"#,
            escape_html(text)
        );
        self.width = self.width.max(x + 8.0 * text.chars().count() as f64);
    }

    fn extend(&mut self, right: f64) {
        self.width = self.width.max(right);
    }
}

/// Which drawing a [`Raster`] is the picture of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RasterOf {
    /// A view, by its variable's name.
    View(String),
    /// A storage, by its id.
    Storage(StorageId),
}

/// The picture of a large view or storage as the page drew it on its canvas (more than
/// `render::GPU_MIN_CELLS` cells): a PNG data URL and its size in pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Raster {
    /// What it shows.
    pub of: RasterOf,
    /// `data:image/png;base64,...` (anything else is not drawn).
    pub href: String,
    /// Width in pixels.
    pub width: f64,
    /// Height in pixels.
    pub height: f64,
}

/// The SVG document of `step`. A large view or storage (drawn on a canvas in the page) is
/// said to be a raster, and drawn by its edges as cells.
pub fn diagram_svg(step: &Step, options: &DiagramOptions) -> String {
    diagram_svg_with(step, options, &[])
}

/// [`diagram_svg`], with the pictures of large views and storages drawn as images where
/// `rasters` has them (the PNG export: what the canvases show).
pub fn diagram_svg_with(step: &Step, options: &DiagramOptions, rasters: &[Raster]) -> String {
    let colours = if options.dark { &DARK } else { &LIGHT };
    let words = Catalog::new(options.lang);
    let mut c = Canvas {
        body: String::new(),
        width: 480.0,
        y: MARGIN,
        colours,
        words: &words,
    };
    let highlight = options.highlight.as_ref();
    c.y += 18.0;
    c.text(MARGIN, c.y, "title", "start", &options.heading);
    c.y += 22.0;
    c.text(MARGIN, c.y, "code", "start", step.source.trim());
    if let Some(error) = &step.error {
        c.y += 20.0;
        c.text(MARGIN, c.y, "error", "start", error);
    }
    c.y += 30.0;
    let title = c.words.text("diagram-storages");
    c.text(MARGIN, c.y, "h2", "start", &title);
    c.y += 8.0;
    if step.storages.is_empty() {
        c.y += 20.0;
        let none = c.words.text("diagram-no-tensors");
        c.text(MARGIN, c.y, "muted", "start", &none);
    }
    for storage in &step.storages {
        storage_strip(&mut c, step, storage, highlight, rasters);
    }
    if !step.tensors.is_empty() {
        c.y += 26.0;
        let title = c.words.text("diagram-views");
        c.text(MARGIN, c.y, "h2", "start", &title);
        c.y += 8.0;
    }
    for (i, t) in step.tensors.iter().enumerate() {
        view_grid(&mut c, step, i, t, highlight, rasters);
    }
    let width = (c.width + MARGIN).ceil();
    let height = (c.y + MARGIN * 1.5).ceil();
    let mut svg = String::with_capacity(c.body.len() + 1024);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{label}">"#,
        label = escape_html(&words.format(
            "diagram-label",
            &[("heading", options.heading.as_str().into())]
        )),
    );
    let _ = write!(
        svg,
        "<title>{}</title><style>text{{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;fill:{text};font-size:12px}}.title{{font-size:17px;font-weight:700}}.h2{{font-size:14px;font-weight:700}}.code,.val{{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace}}.code{{font-size:13px}}.val{{font-size:12px}}.off,.idx,.muted{{fill:{muted};font-size:10px}}.error{{fill:{highlight};font-weight:600}}.name{{font-weight:700;font-size:13px}}</style>",
        escape_html(&options.heading),
        text = colours.text,
        muted = colours.muted,
        highlight = colours.highlight,
    );
    let _ = write!(
        svg,
        r#"<rect width="100%" height="100%" fill="{}"/>"#,
        colours.background
    );
    svg.push_str(&c.body);
    svg.push_str("</svg>");
    svg
}

/// Where a large drawing goes: says that the page draws it as a raster of `cells` cells, and
/// draws its picture when `raster` has one (true: nothing more to draw).
fn raster_note(c: &mut Canvas, cells: usize, raster: Option<&Raster>) -> bool {
    if cells <= crate::present::render::GPU_MIN_CELLS {
        return false;
    }
    let picture = raster.filter(|r| {
        r.href.starts_with("data:image/png;base64,") && r.width >= 1.0 && r.height >= 1.0
    });
    c.y += 18.0;
    let id = match picture {
        Some(_) => "diagram-raster-picture",
        None => "diagram-raster-edges",
    };
    let note = c.words.format(id, &[("cells", cells.to_string().into())]);
    c.text(MARGIN, c.y, "muted", "start", &note);
    let Some(r) = picture else { return false };
    let scale = ((MAX_ROW_WIDTH - MARGIN) / r.width).min(1.0);
    let (w, h) = (r.width * scale, r.height * scale);
    let _ = write!(
        c.body,
        r#"<image x="{MARGIN}" y="{:.1}" width="{w:.1}" height="{h:.1}" preserveAspectRatio="none" href="{}"/>"#,
        c.y + 8.0,
        escape_html(&r.href)
    );
    c.extend(MARGIN + w);
    c.y += 8.0 + h;
    true
}

fn storage_strip(
    c: &mut Canvas,
    step: &Step,
    storage: &StorageRecord,
    highlight: Option<&(StorageId, i64)>,
    rasters: &[Raster],
) {
    let written = crate::present::cells::storage_written(step, storage.id);
    let owner = match &storage.owner {
        Some(o) => format!(
            " · {}",
            c.words.format("diagram-made-by", &[("owner", o.into())])
        ),
        None => String::new(),
    };
    let count = storage.nbytes / storage.dtype.item_size().max(1);
    c.y += 22.0;
    let label = format!(
        "{} · {} · {} · {}{}",
        storage.id,
        storage.dtype,
        c.words
            .format("diagram-elements", &[("count", count.to_string().into())]),
        crate::present::cells::bytes_text(storage.nbytes),
        owner
    );
    c.text(MARGIN, c.y, "name", "start", &label);
    let of = RasterOf::Storage(storage.id);
    if raster_note(c, count, rasters.iter().find(|r| r.of == of)) {
        return;
    }
    let reach = crate::present::cells::storage_reach(step, storage.id);
    c.y += 8.0;
    let Some(values) = &storage.values else {
        c.y += 16.0;
        let note = c.words.text("diagram-too-large");
        c.text(MARGIN, c.y, "muted", "start", &note);
        return;
    };
    let n = values.len();
    let slots: Vec<Option<usize>> = if n > 2 * STORAGE_EDGE {
        (0..STORAGE_EDGE)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((n - STORAGE_EDGE..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    };
    let row_h = CELL_H + 22.0;
    let top = c.y;
    let colours = c.colours;
    for (k, slot) in slots.iter().enumerate() {
        let x = MARGIN + (k % STRIP_CELLS_PER_ROW) as f64 * (CELL_W + 2.0);
        let y = top + (k / STRIP_CELLS_PER_ROW) as f64 * row_h;
        let Some(i) = *slot else {
            c.text(x + CELL_W / 2.0, y + 19.0, "val", "middle", "…");
            continue;
        };
        let at = i as i64;
        let marks = reach.get(&at).map(Vec::as_slice).unwrap_or(&[]);
        let fill = if written.contains(&at) {
            colours.written
        } else if marks.is_empty() {
            colours.unreached
        } else {
            colours.cell
        };
        let lit = highlight.is_some_and(|(s, o)| *s == storage.id && *o == at);
        let _ = write!(
            c.body,
            r#"<g class="storage-cell" data-storage="{}" data-offset="{at}"><rect x="{x:.1}" y="{y:.1}" width="{CELL_W}" height="{CELL_H}" rx="3" fill="{fill}" stroke="{}" stroke-width="{}"/>"#,
            storage.id,
            if lit {
                colours.highlight
            } else {
                colours.stroke
            },
            if lit { 3 } else { 1 },
        );
        let value = clip(&value_text(&values[i]), 7);
        c.text(x + CELL_W / 2.0, y + 18.0, "val", "middle", &value);
        c.text(
            x + CELL_W / 2.0,
            y + CELL_H + 11.0,
            "off",
            "middle",
            &at.to_string(),
        );
        if !marks.is_empty() {
            let w = CELL_W / marks.len() as f64;
            for (m, &v) in marks.iter().enumerate() {
                let _ = write!(
                    c.body,
                    r#"<rect x="{:.1}" y="{:.1}" width="{w:.1}" height="4" fill="{}"/>"#,
                    x + m as f64 * w,
                    y + CELL_H + 14.0,
                    view_colour(v)
                );
            }
        }
        c.body.push_str("</g>");
        c.extend(x + CELL_W);
    }
    let rows = slots.len().div_ceil(STRIP_CELLS_PER_ROW).max(1);
    c.y = top + rows as f64 * row_h;
}

fn view_grid(
    c: &mut Canvas,
    step: &Step,
    vi: usize,
    t: &TensorRecord,
    highlight: Option<&(StorageId, i64)>,
    rasters: &[Raster],
) {
    let owns = step
        .storages
        .iter()
        .find(|s| s.id == t.storage)
        .and_then(|s| s.owner.as_deref())
        == Some(t.name.as_str());
    let relation = c.words.format(
        if owns {
            "diagram-owns"
        } else {
            "diagram-view-of"
        },
        &[("storage", t.storage.to_string().into())],
    );
    let mut badges = Vec::new();
    if t.contiguous {
        badges.push("contiguous");
    }
    if t.channels_last {
        badges.push("channels_last");
    }
    c.y += 26.0;
    let _ = write!(
        c.body,
        r#"<rect x="{MARGIN}" y="{:.1}" width="12" height="12" rx="2" fill="{}"/>"#,
        c.y - 10.0,
        view_colour(vi)
    );
    let header = format!(
        "{}  ·  {}  ·  {}  ·  {}  ·  {}  ·  {}{}",
        t.name,
        relation,
        c.words
            .format("diagram-shape", &[("shape", dims_text(&t.shape).into())]),
        c.words
            .format("diagram-stride", &[("stride", dims_text(&t.stride).into())]),
        c.words.format(
            "diagram-offset",
            &[("offset", t.storage_offset.to_string().into())]
        ),
        t.dtype,
        if badges.is_empty() {
            String::new()
        } else {
            format!("  ·  {}", badges.join(", "))
        }
    );
    c.text(MARGIN + 18.0, c.y, "name", "start", &header);
    let cells = crate::core::tensor::layout::numel_of(&t.shape).max(0) as usize;
    let of = RasterOf::View(t.name.clone());
    if raster_note(c, cells, rasters.iter().find(|r| r.of == of)) {
        return;
    }
    let Some(values) = &t.values else {
        c.y += 18.0;
        let note = c.words.text("diagram-values-not-recorded");
        c.text(MARGIN, c.y, "muted", "start", &note);
        return;
    };
    let plan = grid_plan(&t.shape);
    let rank = t.shape.len();
    let tick_w = |t: &Tick| match t {
        Tick::At(_) => CELL_W + 2.0,
        Tick::Gap => GAP_W,
    };
    let grid_w: f64 = LABEL_W + plan.cols.iter().map(tick_w).sum::<f64>();
    let grid_h: f64 = 30.0
        + plan
            .rows
            .iter()
            .map(|t| match t {
                Tick::At(_) => CELL_H + 2.0,
                Tick::Gap => 16.0,
            })
            .sum::<f64>();
    let colours = c.colours;
    let (mut x0, mut y0) = (MARGIN, c.y + 10.0);
    for panel in &plan.panels {
        if x0 > MARGIN && x0 + grid_w > MAX_ROW_WIDTH {
            x0 = MARGIN;
            y0 += grid_h + 8.0;
        }
        let Some(lead) = &panel.lead else {
            c.text(x0 + 10.0, y0 + grid_h / 2.0, "val", "start", "…");
            x0 += 40.0;
            continue;
        };
        if !panel.title.is_empty() {
            c.text(x0 + LABEL_W, y0 + 10.0, "muted", "start", &panel.title);
        }
        // Column indices.
        let mut x = x0 + LABEL_W;
        for col in &plan.cols {
            if let Tick::At(j) = col {
                c.text(x + CELL_W / 2.0, y0 + 24.0, "idx", "middle", &j.to_string());
            }
            x += tick_w(col);
        }
        let mut y = y0 + 30.0;
        for row in &plan.rows {
            let Tick::At(r) = *row else {
                c.text(x0 + LABEL_W + 8.0, y + 11.0, "val", "start", "⋮");
                y += 16.0;
                continue;
            };
            if rank >= 2 {
                c.text(x0 + LABEL_W - 6.0, y + 18.0, "idx", "end", &r.to_string());
            }
            let mut x = x0 + LABEL_W;
            for col in &plan.cols {
                let Tick::At(j) = *col else {
                    c.text(x + GAP_W / 2.0, y + 18.0, "val", "middle", "…");
                    x += GAP_W;
                    continue;
                };
                let index = cell_index(rank, lead, r, j);
                let at = storage_offset_of(t, &index);
                let value = values
                    .get(flat_position(&t.shape, &index))
                    .map(value_text)
                    .unwrap_or_default();
                let lit = highlight.is_some_and(|(s, o)| *s == t.storage && *o == at);
                let _ = write!(
                    c.body,
                    r#"<g class="view-cell" data-view="{}" data-offset="{at}"><rect x="{x:.1}" y="{y:.1}" width="{CELL_W}" height="{CELL_H}" rx="3" fill="{}" stroke="{}" stroke-width="{}"/>"#,
                    escape_html(&t.name),
                    colours.cell,
                    if lit {
                        colours.highlight
                    } else {
                        view_colour(vi)
                    },
                    if lit { 3 } else { 1 },
                );
                c.text(
                    x + CELL_W / 2.0,
                    y + 18.0,
                    "val",
                    "middle",
                    &clip(&value, 7),
                );
                c.body.push_str("</g>");
                x += CELL_W + 2.0;
            }
            c.extend(x);
            y += CELL_H + 2.0;
        }
        x0 += grid_w + 16.0;
    }
    c.y = y0 + grid_h;
}

/// At most `n` characters, with `…` when cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}
