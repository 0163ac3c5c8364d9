//! Colours: the colormap, the value range, RGB image pixels and the channel tint.
//!
//! Every colour is computed with operations that give the same bits on the GPU as on the
//! CPU: values classified by their bits (NaN, ±inf), f32 subtraction and multiplication
//! (correctly rounded in WGSL, and never fused: every product is by a power of two or is
//! not followed by an addition), `floor`, and integer arithmetic. The shader's colormap is
//! [`colormap_words`], uploaded from the same table.

use std::sync::OnceLock;

/// An RGBA colour, 8 bits per channel.
pub type Rgba = [u8; 4];

/// Outside the grid: transparent.
pub const BACKGROUND: Rgba = [0, 0, 0, 0];
/// NaN cells.
pub const NAN_COLOUR: Rgba = [255, 0, 255, 255];
/// +inf cells.
pub const POS_INF_COLOUR: Rgba = [255, 255, 255, 255];
/// -inf cells.
pub const NEG_INF_COLOUR: Rgba = [0, 0, 0, 255];
/// Grid lines (first device pixel row and column of each cell).
pub const GRID_LINE_COLOUR: Rgba = [128, 128, 128, 255];
/// The line where a new slice of dim `n - 2` starts.
pub const SEPARATOR_COLOUR: Rgba = [255, 255, 255, 255];
/// Cells that read the highlighted storage element, and the ring around them.
pub const HIGHLIGHT_COLOUR: Rgba = [255, 64, 0, 255];

/// Viridis (matplotlib's), sampled at 9 evenly spaced points from 0 to 1.
pub const VIRIDIS: [[u8; 3]; 9] = [
    [68, 1, 84],
    [71, 45, 123],
    [59, 82, 139],
    [44, 114, 142],
    [33, 145, 140],
    [40, 174, 128],
    [94, 201, 98],
    [173, 220, 48],
    [253, 231, 37],
];

/// Entries of the colormap's lookup table.
pub const LUT_SIZE: usize = 256;
/// The entry used when every finite value is the same.
pub const FLAT_INDEX: u32 = 128;

/// The colormap as a lookup table of [`LUT_SIZE`] entries: [`VIRIDIS`] interpolated
/// linearly, in integers (entry `k` is at `t = k / 255`).
pub fn colormap_lut() -> &'static [Rgba; LUT_SIZE] {
    static LUT: OnceLock<[Rgba; LUT_SIZE]> = OnceLock::new();
    LUT.get_or_init(|| {
        let segments = (VIRIDIS.len() - 1) as u32;
        let mut lut = [[0u8; 4]; LUT_SIZE];
        for (k, entry) in lut.iter_mut().enumerate() {
            let pos = k as u32 * segments;
            let seg = (pos / 255).min(segments - 1);
            let rem = pos - seg * 255;
            let (a, b) = (VIRIDIS[seg as usize], VIRIDIS[seg as usize + 1]);
            for c in 0..3 {
                let (a, b) = (i32::from(a[c]), i32::from(b[c]));
                entry[c] = ((a * 255 + (b - a) * rem as i32 + 127) / 255) as u8;
            }
            entry[3] = 255;
        }
        lut
    })
}

/// A colour packed as the shader stores it: `r | g << 8 | b << 16 | a << 24`.
pub fn pack(c: Rgba) -> u32 {
    u32::from_le_bytes(c)
}

/// The colormap as the shader reads it: [`LUT_SIZE`] packed colours ([`pack`]), uploaded
/// once per device as render.wgsl's `colormap` uniform, so that the GPU draws with this very
/// table.
pub fn colormap_words() -> [u32; LUT_SIZE] {
    colormap_lut().map(pack)
}

/// What kind of number an f32 is, by its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A finite value.
    Finite,
    /// Not a number.
    Nan,
    /// +inf.
    PosInf,
    /// -inf.
    NegInf,
}

/// Classifies `v` by its bits (as the shader does: WGSL may assume floats are finite).
pub fn classify(v: f32) -> Class {
    let bits = v.to_bits();
    let mag = bits & 0x7fff_ffff;
    if mag < 0x7f80_0000 {
        Class::Finite
    } else if mag > 0x7f80_0000 {
        Class::Nan
    } else if bits >> 31 == 0 {
        Class::PosInf
    } else {
        Class::NegInf
    }
}

/// The range a heatmap maps onto the colormap: the least and greatest finite value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueRange {
    /// The least finite value (0 when there is none).
    pub lo: f32,
    /// The greatest finite value (0 when there is none).
    pub hi: f32,
}

impl ValueRange {
    /// The range of the finite values among `values`.
    pub fn of(values: impl IntoIterator<Item = f32>) -> ValueRange {
        let mut range: Option<(f32, f32)> = None;
        for v in values {
            if classify(v) == Class::Finite {
                range = Some(match range {
                    None => (v, v),
                    Some((lo, hi)) => (lo.min(v), hi.max(v)),
                });
            }
        }
        let (lo, hi) = range.unwrap_or((0.0, 0.0));
        ValueRange { lo, hi }
    }

    /// `256 / (hi/2 - lo/2)` (halves, so that the span cannot overflow), or 0 when the
    /// span is below [`MIN_SPAN`] (every finite value then gets [`FLAT_INDEX`]). Both are
    /// normal floats, so a GPU that flushes subnormals computes the same.
    pub fn inv_span(&self) -> f32 {
        let span = self.hi * 0.5 - self.lo * 0.5;
        if span >= MIN_SPAN {
            256.0 / span
        } else {
            0.0
        }
    }
}

/// Spans of values below this (2^-100) draw as flat.
pub const MIN_SPAN: f32 = f32::from_bits(0x0d80_0000);

/// The colormap entry of a finite `v`: `floor((v/2 - lo/2) * inv)`, clamped to `0..=255`
/// ([`FLAT_INDEX`] when `inv` is 0).
pub fn lut_index(v: f32, lo: f32, inv: f32) -> u32 {
    if inv == 0.0 {
        return FLAT_INDEX;
    }
    let d = v * 0.5 - lo * 0.5;
    let t = (d * inv).floor();
    t.clamp(0.0, (LUT_SIZE - 1) as f32) as u32
}

/// The heatmap colour of a value under a range with inverse span `inv`.
pub fn heat_colour(v: f32, lo: f32, inv: f32) -> Rgba {
    match classify(v) {
        Class::Nan => NAN_COLOUR,
        Class::PosInf => POS_INF_COLOUR,
        Class::NegInf => NEG_INF_COLOUR,
        Class::Finite => colormap_lut()[lut_index(v, lo, inv) as usize],
    }
}

/// How an image's channel values map to 0..=255.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageScale {
    /// uint8: the value is the byte.
    Byte,
    /// floats: 0..1, clamped, times 255 rounded to nearest even (NaN is 0).
    Unit,
}

impl ImageScale {
    /// The shader's code for the scale.
    pub fn code(self) -> u32 {
        match self {
            ImageScale::Byte => 0,
            ImageScale::Unit => 1,
        }
    }
}

/// One channel's byte: `v` as the scale reads it.
pub fn channel_byte(v: f32, scale: ImageScale) -> u8 {
    match classify(v) {
        Class::Nan => 0,
        Class::PosInf => 255,
        Class::NegInf => 0,
        Class::Finite => match scale {
            ImageScale::Byte => v.clamp(0.0, 255.0) as u8,
            ImageScale::Unit => (v.clamp(0.0, 1.0) * 255.0).round_ties_even() as u8,
        },
    }
}

/// The colour of a storage cell of an image's channel `channel` (0 R, 1 G, 2 B; None: not
/// an image element, drawn grey) whose byte is `byte`: brighter for larger values.
pub fn tint_colour(channel: Option<u32>, byte: u8) -> Rgba {
    let tv = 48 + u32::from(byte) * 207 / 255;
    let (r, g, b) = match channel {
        Some(0) => (tv, tv / 6, tv / 6),
        Some(1) => (tv / 6, tv, tv / 6),
        Some(2) => (tv / 5, tv / 3, tv),
        _ => (tv, tv, tv),
    };
    [r as u8, g as u8, b as u8, 255]
}
