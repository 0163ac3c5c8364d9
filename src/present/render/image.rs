//! Image-shaped views (drawn as RGB pixels) and the channel tint of their storage strip.

use crate::core::tensor::DType;
use crate::present::render::colour::ImageScale;

/// Where the pixels and channels of an image-shaped view are (element strides).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageLayout {
    /// Images (1 unless batched).
    pub n: usize,
    /// Height in pixels.
    pub h: usize,
    /// Width in pixels.
    pub w: usize,
    /// Stride between images (0 unless batched).
    pub stride_n: i64,
    /// Stride between the R, G and B elements of a pixel.
    pub stride_c: i64,
    /// Stride between pixel rows.
    pub stride_h: i64,
    /// Stride between pixel columns.
    pub stride_w: i64,
    /// True for `[N, 3, H, W]` (images stacked vertically, a separator between them).
    pub batched: bool,
    /// The view's rank (3 or 4).
    pub rank: usize,
    /// The position of the channel dim: 0 (`[3, H, W]`), 1 (`[N, 3, H, W]`) or 2
    /// (`[H, W, 3]`).
    pub channel_dim: usize,
    /// How channel values read as bytes.
    pub scale: ImageScale,
}

/// The image layout of a view of shape `shape` and strides `stride`, when it is
/// image-shaped: `[3, H, W]`, `[N, 3, H, W]` or `[H, W, 3]` (any strides, channels_last
/// included), of dtype uint8 (0..255) or a float dtype (0..1, clamped). A rank-3 view with
/// 3 both first and last is read as `[3, H, W]`.
pub fn image_layout(shape: &[i64], stride: &[i64], dtype: DType) -> Option<ImageLayout> {
    let scale = match dtype {
        DType::UInt8 => ImageScale::Byte,
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => ImageScale::Unit,
        _ => return None,
    };
    if shape.len() != stride.len() || shape.iter().any(|&n| n < 1) {
        return None;
    }
    let u = |n: i64| n as usize;
    let (n, c_dim, h_dim, w_dim) = match shape {
        [3, _, _] => (None, 0, 1, 2),
        [_, _, 3] => (None, 2, 0, 1),
        [_, 3, _, _] => (Some(0), 1, 2, 3),
        _ => return None,
    };
    Some(ImageLayout {
        n: n.map_or(1, |d| u(shape[d])),
        h: u(shape[h_dim]),
        w: u(shape[w_dim]),
        stride_n: n.map_or(0, |d| stride[d]),
        stride_c: stride[c_dim],
        stride_h: stride[h_dim],
        stride_w: stride[w_dim],
        batched: n.is_some(),
        rank: shape.len(),
        channel_dim: c_dim,
        scale,
    })
}

/// Which channel each element of an image's storage belongs to: element `e` in
/// `[lo, hi)` is channel `((e - base) div stride_c) mod 3`. NCHW storage thus reads as
/// three planes per image, channels_last storage as interleaved R, G, B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TintSpec {
    /// The image view's storage offset.
    pub base: i64,
    /// The channel stride (positive).
    pub channel_stride: i64,
    /// The first storage element of the image.
    pub lo: i64,
    /// One past the last storage element of the image.
    pub hi: i64,
    /// How values read as bytes.
    pub scale: ImageScale,
}

impl TintSpec {
    /// The tint of the storage under an image view at storage offset `offset`, or None when
    /// the channel stride is not positive (a tint would not read as planes or pixels).
    pub fn for_image(image: &ImageLayout, offset: i64) -> Option<TintSpec> {
        if image.stride_c <= 0 {
            return None;
        }
        let dims = [
            (image.n, image.stride_n),
            (3, image.stride_c),
            (image.h, image.stride_h),
            (image.w, image.stride_w),
        ];
        let (mut lo, mut hi) = (offset, offset);
        for (n, s) in dims {
            let reach = (n as i64 - 1).saturating_mul(s);
            lo = lo.saturating_add(reach.min(0));
            hi = hi.saturating_add(reach.max(0));
        }
        Some(TintSpec {
            base: offset,
            channel_stride: image.stride_c,
            lo,
            hi: hi.saturating_add(1),
            scale: image.scale,
        })
    }

    /// The channel of storage element `e` (None outside the image).
    pub fn channel(&self, e: i64) -> Option<u32> {
        if e < self.lo || e >= self.hi {
            return None;
        }
        Some(
            (e - self.base)
                .div_euclid(self.channel_stride)
                .rem_euclid(3) as u32,
        )
    }
}
