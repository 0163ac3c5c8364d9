//! The bytes of the tensor torchvision's `decode_png` returns in each `ImageReadMode`: the
//! libpng transformations it asks for (palette expansion with `tRNS`, alpha stripped or
//! added, gray to RGB, RGB to gray with libpng's fixed-point weights and, for a file with a
//! significant gamma, its gamma tables), applied in libpng's order.
//!
//! torchvision sizes its tensor from the mode, not from what libpng delivers: for a palette
//! image without `tRNS` read as RGB_ALPHA or GRAY_ALPHA, and for a palette image of fewer
//! than 8 bits read UNCHANGED, libpng's rows are narrower than the tensor's rows and land at
//! the tensor's row pitch. The rest of each row is memory torchvision never wrote; here it
//! is zero, as PyTorch's uninitialized memory reads in the oracle's recordings. And the
//! alpha it adds is `(1 << bit_depth) - 1`: not opaque for gray of 1, 2 or 4 bits.

use crate::core::image::{ColorType, DecodedImage, Samples};

/// torchvision's `ImageReadMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// `UNCHANGED` (0): as the file has it.
    Unchanged,
    /// `GRAY` (1).
    Gray,
    /// `GRAY_ALPHA` (2).
    GrayAlpha,
    /// `RGB` (3).
    Rgb,
    /// `RGB_ALPHA` (4), also `RGBA`.
    RgbAlpha,
}

impl ReadMode {
    /// Every mode, in the order of their values.
    pub const ALL: [ReadMode; 5] = [
        ReadMode::Unchanged,
        ReadMode::Gray,
        ReadMode::GrayAlpha,
        ReadMode::Rgb,
        ReadMode::RgbAlpha,
    ];

    /// The enum member's name (`RGB_ALPHA`).
    pub fn name(self) -> &'static str {
        match self {
            ReadMode::Unchanged => "UNCHANGED",
            ReadMode::Gray => "GRAY",
            ReadMode::GrayAlpha => "GRAY_ALPHA",
            ReadMode::Rgb => "RGB",
            ReadMode::RgbAlpha => "RGB_ALPHA",
        }
    }

    /// The enum member's value.
    pub fn value(self) -> i64 {
        match self {
            ReadMode::Unchanged => 0,
            ReadMode::Gray => 1,
            ReadMode::GrayAlpha => 2,
            ReadMode::Rgb => 3,
            ReadMode::RgbAlpha => 4,
        }
    }

    /// The member named `name` (`ImageReadMode[name]`: `RGBA` is an alias of `RGB_ALPHA`).
    pub fn from_name(name: &str) -> Option<ReadMode> {
        match name {
            "RGBA" => Some(ReadMode::RgbAlpha),
            _ => ReadMode::ALL.into_iter().find(|m| m.name() == name),
        }
    }
}

/// The tensor torchvision makes of an 8-bit image: `channels` and its storage in HWC order
/// (the tensor is its `[C, H, W]` view with strides `(1, W·C, C)`). `None` for a 16-bit
/// image (torchvision gives `torch.uint16` there).
pub fn torchvision_pixels(image: &DecodedImage, mode: ReadMode) -> Option<(usize, Vec<u8>)> {
    let Samples::Eight(samples) = &image.samples else {
        return None;
    };
    let width = image.width as usize;
    let pixels = width * image.height as usize;
    let color = image.color;
    if mode == ReadMode::Unchanged {
        if color == ColorType::Palette && image.bit_depth < 8 {
            return Some((1, packed_indices(image, samples)));
        }
        return Some((color.channels(), samples.clone()));
    }
    let target = match mode {
        ReadMode::Gray => ColorType::Gray,
        ReadMode::GrayAlpha => ColorType::GrayAlpha,
        ReadMode::Rgb => ColorType::Rgb,
        _ => ColorType::Rgba,
    };
    if color == target {
        return Some((target.channels(), samples.clone()));
    }
    // torchvision's `has_alpha`: true for a palette image whether or not it has tRNS.
    let palette = color == ColorType::Palette;
    let has_color = matches!(color, ColorType::Rgb | ColorType::Rgba) || palette;
    let has_alpha = matches!(color, ColorType::GrayAlpha | ColorType::Rgba) || palette;
    let (mut data, mut ch) = if palette {
        expand_palette(image, samples)
    } else {
        (samples.clone(), color.channels())
    };
    let strip = matches!(mode, ReadMode::Gray | ReadMode::Rgb) && has_alpha;
    let to_gray = matches!(mode, ReadMode::Gray | ReadMode::GrayAlpha) && has_color;
    let to_rgb = matches!(mode, ReadMode::Rgb | ReadMode::RgbAlpha) && !has_color;
    let filler = matches!(mode, ReadMode::GrayAlpha | ReadMode::RgbAlpha) && !has_alpha;
    if strip && ch % 2 == 0 {
        data = map_pixels(&data, ch, ch - 1, |p, out| {
            out.copy_from_slice(&p[..p.len() - 1])
        });
        ch -= 1;
    }
    if to_gray && ch >= 3 {
        let gray = GrayWeights::new(image.gamma);
        data = map_pixels(&data, ch, ch - 2, |p, out| {
            out[0] = gray.gray(p[0], p[1], p[2]);
            if p.len() == 4 {
                out[1] = p[3];
            }
        });
        ch -= 2;
    }
    if to_rgb && ch <= 2 {
        data = map_pixels(&data, ch, ch + 2, |p, out| {
            out[..3].fill(p[0]);
            if p.len() == 2 {
                out[3] = p[1];
            }
        });
        ch += 2;
    }
    if filler && ch % 2 == 1 {
        // torchvision's filler is `(1 << bit_depth) - 1` of the file's depth: 1, 3 or 15 for
        // gray of 1, 2 or 4 bits (whose gray libpng scaled to 0-255).
        let fill = ((1u16 << image.bit_depth.min(8)) - 1) as u8;
        data = map_pixels(&data, ch, ch + 1, |p, out| {
            out[..p.len()].copy_from_slice(p);
            out[p.len()] = fill;
        });
        ch += 1;
    }
    let channels = target.channels();
    if ch == channels {
        return Some((channels, data));
    }
    // Rows of `ch` samples a pixel at the pitch of `channels` (see the module's note).
    let mut out = vec![0u8; pixels * channels];
    for (dst, src) in out
        .chunks_exact_mut(width * channels)
        .zip(data.chunks_exact(width * ch))
    {
        dst[..src.len()].copy_from_slice(src);
    }
    Some((channels, out))
}

/// Applies `f` to every pixel of `from` samples, giving pixels of `to` samples.
fn map_pixels(data: &[u8], from: usize, to: usize, f: impl Fn(&[u8], &mut [u8])) -> Vec<u8> {
    let mut out = vec![0u8; data.len() / from * to];
    for (src, dst) in data.chunks_exact(from).zip(out.chunks_exact_mut(to)) {
        f(src, dst);
    }
    out
}

/// libpng's `png_set_palette_to_rgb`: RGB, or RGBA when the file has `tRNS`. An index past
/// the palette reads as black (libpng's palette is 256 zeroed entries), opaque.
fn expand_palette(image: &DecodedImage, indices: &[u8]) -> (Vec<u8>, usize) {
    let alpha = !image.palette_alpha.is_empty();
    let ch = if alpha { 4 } else { 3 };
    let data = map_pixels(indices, 1, ch, |p, out| {
        let i = usize::from(p[0]);
        let rgb = image.palette.get(i).copied().unwrap_or([0, 0, 0]);
        out[..3].copy_from_slice(&rgb);
        if alpha {
            out[3] = image.palette_alpha.get(i).copied().unwrap_or(255);
        }
    });
    (data, ch)
}

/// The indices of a palette image of 1, 2 or 4 bits as libpng leaves them without
/// `png_set_packing`: packed, most significant bits first, at the start of each row of
/// `width` bytes.
fn packed_indices(image: &DecodedImage, indices: &[u8]) -> Vec<u8> {
    let width = image.width as usize;
    let bits = usize::from(image.bit_depth);
    let mut out = vec![0u8; indices.len()];
    for (dst, row) in out.chunks_exact_mut(width).zip(indices.chunks_exact(width)) {
        for (x, &v) in row.iter().enumerate() {
            let shift = 8 - bits - (x * bits) % 8;
            dst[x * bits / 8] |= (v & ((1u8 << bits) - 1)) << shift;
        }
    }
    out
}

/// libpng's `png_do_rgb_to_gray` for 8-bit samples with torchvision's weights
/// `png_set_rgb_to_gray(png_ptr, 1, 0.2989, 0.587)`.
struct GrayWeights {
    red: u32,
    green: u32,
    blue: u32,
    /// `gamma_to_1` and `gamma_from_1` when the file's gamma is significant.
    tables: Option<([u8; 256], [u8; 256])>,
}

impl GrayWeights {
    fn new(gamma: Option<u32>) -> GrayWeights {
        // png_set_rgb_to_gray_fixed: (fixed · 32768) / 100000, truncated.
        let red = 29_890 * 32_768 / 100_000;
        let green = 58_700 * 32_768 / 100_000;
        // Without gAMA/sRGB libpng takes a gamma of 1 and builds no tables.
        let tables = gamma
            .filter(|&g| !(95_000..=105_000).contains(&g))
            .map(|g| {
                let screen = reciprocal(g);
                (table(reciprocal(g)), table(reciprocal(screen)))
            });
        GrayWeights {
            red,
            green,
            blue: 32_768 - red - green,
            tables,
        }
    }

    fn gray(&self, r: u8, g: u8, b: u8) -> u8 {
        if r == g && g == b {
            return r;
        }
        let (r, g, b) = (u32::from(r), u32::from(g), u32::from(b));
        match &self.tables {
            None => ((self.red * r + self.green * g + self.blue * b) >> 15) as u8,
            Some((to_1, from_1)) => {
                let (r, g, b) = (
                    u32::from(to_1[r as usize]),
                    u32::from(to_1[g as usize]),
                    u32::from(to_1[b as usize]),
                );
                from_1[((self.red * r + self.green * g + self.blue * b + 16_384) >> 15) as usize]
            }
        }
    }
}

/// libpng's `png_reciprocal`: 1/x in its fixed point (× 100,000), rounded.
fn reciprocal(fixed: u32) -> u32 {
    (1e10 / f64::from(fixed) + 0.5).floor() as u32
}

/// libpng's `png_build_8bit_table` with `png_gamma_8bit_correct`.
fn table(gamma: u32) -> [u8; 256] {
    let mut t = [0u8; 256];
    let significant = !(95_000..=105_000).contains(&gamma);
    for (i, v) in t.iter_mut().enumerate() {
        *v = if significant && i > 0 && i < 255 {
            (255.0 * (i as f64 / 255.0).powf(f64::from(gamma) * 1e-5) + 0.5).floor() as u8
        } else {
            i as u8
        };
    }
    t
}
