//! The memory timeline's layout: live bytes over the executed steps (the page's flattened
//! steps, see [`crate::present::cells::flatten_substeps`]), stacked by [`MemoryCategory`] in
//! its order, each step's peak above its live bytes, and the highest peak.
//!
//! The drawing is one SVG path per category and one for the peaks, in a coordinate system of
//! one unit per step across and [`HEIGHT`] units up (the page stretches it to its width), so it
//! costs the same DOM for ten steps as for ten thousand. Past [`MAX_COLUMNS`] steps the paths
//! are drawn from columns of consecutive steps (each the step with the most live bytes, and the
//! column's highest peak), so a path never has more than a few thousand points. The marks (one
//! transparent `<rect>` per step, the contract's `memory-mark`) are plain markup made once per
//! trace.

use crate::core::trace::{MemoryCategory, Step, StepMemory};
use crate::present::memory_units::cuda_block_bytes;

/// The height of the drawing's coordinate system.
pub const HEIGHT: f64 = 100.0;
/// The most columns a path is drawn from.
pub const MAX_COLUMNS: usize = 1200;
/// How many categories are stacked.
pub const CATEGORIES: usize = MemoryCategory::ALL.len();

/// One step of the timeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Point {
    /// Live bytes after the step.
    pub live: u64,
    /// The most bytes alive while it ran (at least `live`).
    pub peak: u64,
    /// Live bytes by category, in [`MemoryCategory::ALL`]'s order (they add up to `live`).
    pub bands: [u64; CATEGORIES],
    /// The step's line.
    pub line: usize,
    /// The line running at the step's peak.
    pub peak_line: usize,
    /// Whether the step has a memory record.
    pub recorded: bool,
}

impl Point {
    /// The timeline's point of a step: its memory record's figures, or as on a CUDA device
    /// (each storage rounded up to a 512-byte block; live and peak are the trace's CUDA
    /// figures).
    pub fn of(step: &Step, cuda: bool) -> Point {
        let Some(m) = &step.memory else {
            return Point {
                line: step.line,
                peak_line: step.line,
                ..Point::default()
            };
        };
        let mut bands = [0u64; CATEGORIES];
        let live = if cuda {
            for s in &m.storages {
                bands[index(s.category.unwrap_or(MemoryCategory::Other))] +=
                    cuda_block_bytes(s.bytes);
            }
            m.cuda.live_bytes
        } else {
            for (c, b) in &m.categories {
                bands[index(*c)] += b;
            }
            m.live_bytes
        };
        // The bands add up to the live bytes: what no category names is "other"; a band
        // sum above the live figure is cut from the top (the live figure is the trace's).
        let sum: u64 = bands.iter().sum();
        if sum < live {
            bands[index(MemoryCategory::Other)] += live - sum;
        } else if sum > live {
            let mut excess = sum - live;
            for b in bands.iter_mut().rev() {
                let cut = excess.min(*b);
                *b -= cut;
                excess -= cut;
            }
        }
        let peak = if cuda {
            m.cuda.peak_bytes
        } else {
            m.peak_bytes.unwrap_or(live)
        };
        Point {
            live,
            peak: peak.max(live),
            bands,
            line: step.line,
            peak_line: m.peak_line.unwrap_or(step.line),
            recorded: true,
        }
    }
}

/// A category's place in the stack.
pub fn index(c: MemoryCategory) -> usize {
    MemoryCategory::ALL
        .iter()
        .position(|&x| x == c)
        .unwrap_or(CATEGORIES - 1)
}

/// Consecutive steps drawn as one column of the paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The first step, and one past the last.
    pub from: usize,
    pub to: usize,
    /// The bands of the column's step with the most live bytes.
    pub bands: [u64; CATEGORIES],
    pub live: u64,
    /// The column's highest peak.
    pub peak: u64,
}

/// What the pointer is over in the drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// A category's band of a step.
    Band(usize, MemoryCategory),
    /// Between a step's live bytes and its peak.
    Peak(usize),
    /// Above the step's peak.
    Above(usize),
}

impl Hit {
    /// The step under the pointer.
    pub fn step(self) -> usize {
        match self {
            Hit::Band(s, _) | Hit::Peak(s) | Hit::Above(s) => s,
        }
    }
}

/// The timeline of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    pub points: Vec<Point>,
}

impl Timeline {
    /// The timeline of the page's steps (CPU figures, or as on a CUDA device).
    pub fn new(steps: &[Step], cuda: bool) -> Timeline {
        Timeline {
            points: steps.iter().map(|s| Point::of(s, cuda)).collect(),
        }
    }

    /// Whether any step has a memory record (else the panel draws no timeline).
    pub fn recorded(&self) -> bool {
        self.points.iter().any(|p| p.recorded)
    }

    /// The step with the highest peak (the first of equal ones), if any step has memory.
    pub fn peak_step(&self) -> Option<usize> {
        let mut best: Option<(usize, u64)> = None;
        for (i, p) in self.points.iter().enumerate() {
            if p.recorded && best.is_none_or(|(_, b)| p.peak > b) {
                best = Some((i, p.peak));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The highest peak of the run.
    pub fn peak_bytes(&self) -> u64 {
        self.points.iter().map(|p| p.peak).max().unwrap_or(0)
    }

    /// The steps grouped into at most [`MAX_COLUMNS`] columns.
    pub fn columns(&self) -> Vec<Column> {
        let n = self.points.len();
        let per = n.div_ceil(MAX_COLUMNS).max(1);
        (0..n)
            .step_by(per)
            .map(|from| {
                let to = (from + per).min(n);
                let group = &self.points[from..to];
                let mut widest = &group[0];
                for p in group {
                    if p.live > widest.live {
                        widest = p;
                    }
                }
                Column {
                    from,
                    to,
                    bands: widest.bands,
                    live: widest.live,
                    peak: group.iter().map(|p| p.peak).max().unwrap_or(0),
                }
            })
            .collect()
    }

    /// The y coordinate of `bytes` on an axis whose top is `top` bytes.
    pub fn y(bytes: u64, top: u64) -> f64 {
        if top == 0 {
            return HEIGHT;
        }
        HEIGHT - (bytes as f64 / top as f64).min(1.0) * HEIGHT
    }

    /// One closed path per category that has bytes at some step, bottom band first: the
    /// category's stacked band as a step function over the columns.
    pub fn band_paths(&self, top: u64) -> Vec<(MemoryCategory, String)> {
        let columns = self.columns();
        let mut out = Vec::new();
        let mut below = vec![0u64; columns.len()];
        for (k, &cat) in MemoryCategory::ALL.iter().enumerate() {
            let above: Vec<u64> = columns
                .iter()
                .zip(&below)
                .map(|(c, b)| b + c.bands[k])
                .collect();
            if columns.iter().any(|c| c.bands[k] > 0) {
                out.push((cat, area_path(&columns, &above, &below, top)));
            }
            below = above;
        }
        out
    }

    /// The closed path between each step's live bytes and its peak (empty when no step's peak
    /// is above its live bytes).
    pub fn peak_path(&self, top: u64) -> String {
        let columns = self.columns();
        if columns.iter().all(|c| c.peak <= c.live) {
            return String::new();
        }
        let peaks: Vec<u64> = columns.iter().map(|c| c.peak).collect();
        let lives: Vec<u64> = columns.iter().map(|c| c.live).collect();
        area_path(&columns, &peaks, &lives, top)
    }

    /// The open path along each step's peak (the line drawn over the peak area).
    pub fn peak_line_path(&self, top: u64) -> String {
        let columns = self.columns();
        let mut d = String::new();
        for (i, c) in columns.iter().enumerate() {
            let y = num(Self::y(c.peak, top));
            if i == 0 {
                d.push_str(&format!("M{} {y}", c.from));
            } else {
                d.push_str(&format!("V{y}"));
            }
            d.push_str(&format!("H{}", c.to));
        }
        d
    }

    /// What is at a point of the drawing, given as fractions of its width and height from
    /// its top left corner.
    pub fn hit(&self, x: f64, y: f64, top: u64) -> Option<Hit> {
        let n = self.points.len();
        if n == 0 || !x.is_finite() || !y.is_finite() {
            return None;
        }
        let step = ((x * n as f64).floor().max(0.0) as usize).min(n - 1);
        let p = &self.points[step];
        let bytes = (1.0 - y.clamp(0.0, 1.0)) * top as f64;
        let mut sum = 0u64;
        for (k, &cat) in MemoryCategory::ALL.iter().enumerate() {
            sum += p.bands[k];
            if p.bands[k] > 0 && bytes <= sum as f64 {
                return Some(Hit::Band(step, cat));
            }
        }
        Some(if bytes <= p.peak as f64 {
            Hit::Peak(step)
        } else {
            Hit::Above(step)
        })
    }

    /// The marks: one transparent full-height `<rect>` per step with the contract's attributes
    /// (`data-testid="memory-mark"`, `data-step`, `data-live-bytes`, `data-peak-bytes`). The
    /// figures are the trace's (CPU) ones whichever units are shown.
    pub fn marks_markup(steps: &[Step]) -> String {
        let mut out = String::with_capacity(steps.len() * 120);
        for (i, s) in steps.iter().enumerate() {
            let (live, peak) = s
                .memory
                .as_ref()
                .map(|m: &StepMemory| (m.live_bytes, m.peak_bytes.unwrap_or(m.live_bytes)))
                .unwrap_or((0, 0));
            out.push_str(&format!(
                "<rect class=\"mm\" data-testid=\"memory-mark\" data-step=\"{i}\" data-live-bytes=\"{live}\" data-peak-bytes=\"{}\" data-line=\"{}\" x=\"{i}\" y=\"0\" width=\"1\" height=\"{HEIGHT}\"></rect>",
                peak.max(live),
                s.line
            ));
        }
        out
    }
}

/// The closed area between `upper` and `lower` (bytes per column) as a step function.
fn area_path(columns: &[Column], upper: &[u64], lower: &[u64], top: u64) -> String {
    let mut d = String::with_capacity(columns.len() * 16);
    for (i, c) in columns.iter().enumerate() {
        let y = num(Timeline::y(upper[i], top));
        if i == 0 {
            d.push_str(&format!("M{} {y}", c.from));
        } else {
            d.push_str(&format!("V{y}"));
        }
        d.push_str(&format!("H{}", c.to));
    }
    for (i, c) in columns.iter().enumerate().rev() {
        d.push_str(&format!("V{}H{}", num(Timeline::y(lower[i], top)), c.from));
    }
    d.push('Z');
    d
}

/// A coordinate with at most three decimals and no trailing zeros.
fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::trace::{CudaBytes, StorageRole};

    fn step(line: usize, cats: &[(MemoryCategory, u64)], peak: Option<u64>) -> Step {
        let live = cats.iter().map(|c| c.1).sum();
        Step {
            line,
            memory: Some(StepMemory {
                live_bytes: live,
                peak_bytes: peak,
                categories: cats.iter().copied().collect(),
                storages: cats
                    .iter()
                    .map(|&(c, b)| StorageRole {
                        bytes: b,
                        category: Some(c),
                        ..StorageRole::default()
                    })
                    .collect(),
                cuda: CudaBytes {
                    live_bytes: cats.iter().map(|c| cuda_block_bytes(c.1)).sum(),
                    peak_bytes: peak.map(cuda_block_bytes).unwrap_or(0),
                },
                peak_line: Some(line + 100),
                ..StepMemory::default()
            }),
            ..Step::default()
        }
    }

    use MemoryCategory::*;

    /// The Linear(100, 200) → ReLU → Linear(200, 10) run, roughly.
    fn run() -> Vec<Step> {
        vec![
            step(13, &[(Parameter, 88_840)], Some(88_840)),
            step(15, &[(Parameter, 88_840), (Variable, 25_600)], None),
            step(
                17,
                &[(Parameter, 88_840), (Saved, 51_200), (Variable, 28_160)],
                Some(216_840),
            ),
            Step {
                line: 18,
                ..Step::default()
            },
        ]
    }

    #[test]
    fn points_stack_the_categories_in_order_and_keep_the_peak_above_the_live_bytes() {
        let t = Timeline::new(&run(), false);
        assert_eq!(t.points.len(), 4);
        let p = &t.points[2];
        assert_eq!(p.live, 168_200);
        assert_eq!(p.peak, 216_840);
        assert_eq!(p.bands[index(Parameter)], 88_840);
        assert_eq!(p.bands[index(Saved)], 51_200);
        assert_eq!(p.peak_line, 117);
        // No peak recorded: the live bytes.
        assert_eq!(t.points[1].peak, 114_440);
        assert!(!t.points[3].recorded);
        assert_eq!(t.peak_step(), Some(2));
        assert_eq!(t.peak_bytes(), 216_840);
        assert!(t.recorded());
        assert_eq!(Timeline::new(&[Step::default()], false).peak_step(), None);
    }

    #[test]
    fn bands_always_add_up_to_the_live_bytes() {
        let mut s = step(1, &[(Parameter, 100)], None);
        s.memory.as_mut().unwrap().live_bytes = 150;
        let p = Point::of(&s, false);
        assert_eq!(p.bands[index(Other)], 50);
        s.memory.as_mut().unwrap().live_bytes = 60;
        let p = Point::of(&s, false);
        assert_eq!(p.bands.iter().sum::<u64>(), 60);
    }

    #[test]
    fn as_on_a_cuda_device_each_storage_is_a_block_of_512_bytes() {
        let s = step(1, &[(Parameter, 4), (Variable, 513)], Some(600));
        let p = Point::of(&s, true);
        assert_eq!(p.bands[index(Parameter)], 512);
        assert_eq!(p.bands[index(Variable)], 1024);
        assert_eq!(p.live, 1536);
        assert_eq!(p.peak, 1536, "the peak is at least the live bytes");
    }

    #[test]
    fn each_category_is_one_closed_step_path() {
        let t = Timeline::new(&run(), false);
        let paths = t.band_paths(400_000);
        let cats: Vec<_> = paths.iter().map(|p| p.0).collect();
        assert_eq!(cats, vec![Parameter, Saved, Variable]);
        // Parameters: 88,840 of 400,000 is 22.21 units high from step 0 to step 3.
        assert_eq!(
            paths[0].1,
            "M0 77.79H1V77.79H2V77.79H3V100H4V100H3V100H2V100H1V100H0Z"
        );
        assert!(paths.iter().all(|p| p.1.ends_with('Z')));
        assert_eq!(Timeline::y(0, 0), HEIGHT);
        assert_eq!(Timeline::y(500, 100), 0.0, "clamped at the top");
        let peak = t.peak_path(400_000);
        assert!(
            peak.starts_with("M0 77.79H1V71.39H2V45.79H3V100H4"),
            "{peak}"
        );
        assert_eq!(
            t.peak_line_path(400_000),
            "M0 77.79H1V71.39H2V45.79H3V100H4"
        );
    }

    #[test]
    fn long_runs_are_drawn_from_bounded_columns_keeping_every_peak() {
        let steps: Vec<Step> = (0..10_000)
            .map(|i| {
                step(
                    i,
                    &[(Variable, 1000 + (i as u64 % 7) * 10)],
                    Some(if i == 7_777 { 1_000_000 } else { 2000 }),
                )
            })
            .collect();
        let t = Timeline::new(&steps, false);
        let cols = t.columns();
        assert!(cols.len() <= MAX_COLUMNS);
        assert_eq!(cols.first().unwrap().from, 0);
        assert_eq!(cols.last().unwrap().to, 10_000);
        assert!(cols.windows(2).all(|w| w[0].to == w[1].from));
        assert_eq!(cols.iter().map(|c| c.peak).max(), Some(1_000_000));
        assert_eq!(
            cols[0].live, 1060,
            "a column shows its step with the most live bytes"
        );
        let paths = t.band_paths(1_000_000);
        assert!(paths[0].1.len() < 40 * MAX_COLUMNS, "{}", paths[0].1.len());
        assert_eq!(t.peak_step(), Some(7_777));
        let marks = Timeline::marks_markup(&steps);
        assert_eq!(marks.matches("data-testid=\"memory-mark\"").count(), 10_000);
    }

    #[test]
    fn the_pointer_finds_the_step_and_the_band_under_it() {
        let t = Timeline::new(&run(), false);
        let top = 400_000;
        // Step 2 spans x in [0.5, 0.75); parameters are its lowest 22.21 %.
        assert_eq!(t.hit(0.6, 0.9, top), Some(Hit::Band(2, Parameter)));
        // 88,840 + 51,200 = 140,040 bytes: 35 % up.
        assert_eq!(t.hit(0.6, 0.66, top), Some(Hit::Band(2, Saved)));
        assert_eq!(t.hit(0.6, 0.6, top), Some(Hit::Band(2, Variable)));
        // 216,840 is 54.2 % up.
        assert_eq!(t.hit(0.6, 0.5, top), Some(Hit::Peak(2)));
        assert_eq!(t.hit(0.6, 0.1, top), Some(Hit::Above(2)));
        assert_eq!(
            t.hit(1.5, 0.9, top).map(Hit::step),
            Some(3),
            "clamped to the last step"
        );
        assert_eq!(t.hit(-1.0, 0.9, top).map(Hit::step), Some(0));
        assert_eq!(t.hit(f64::NAN, 0.9, top), None);
        assert_eq!(Timeline::default().hit(0.5, 0.5, top), None);
    }

    #[test]
    fn marks_carry_the_traces_figures_as_plain_integers() {
        let marks = Timeline::marks_markup(&run());
        assert!(marks.contains(
            "data-step=\"2\" data-live-bytes=\"168200\" data-peak-bytes=\"216840\" data-line=\"17\" x=\"2\""
        ));
        assert!(marks.contains("data-step=\"3\" data-live-bytes=\"0\" data-peak-bytes=\"0\""));
    }
}
