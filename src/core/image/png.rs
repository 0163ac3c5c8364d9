//! A PNG decoder on top of `miniz_oxide`'s inflate: every colour type and bit depth of the
//! PNG specification, the five filter types and Adam7 interlacing. It keeps what
//! torchvision's `read_image` needs to reproduce libpng's transformations (the palette and
//! its `tRNS` alphas, the file's gamma); it never panics on a corrupt file (fuzzed in the
//! tests below) and refuses images beyond [`MAX_DECODED_BYTES`] before allocating them.

use crate::core::image::{ColorType, DecodedImage, ImageError, Samples};

/// The 8-byte signature every PNG file starts with.
pub const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// The most bytes a decoded image (and its filtered data) may take.
pub const MAX_DECODED_BYTES: usize = 256 << 20;

/// The seven passes of Adam7: (x start, y start, x step, y step).
const ADAM7: [(usize, usize, usize, usize); 7] = [
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
];

/// The fields of an `IHDR` chunk.
struct Header {
    width: usize,
    height: usize,
    bit_depth: u8,
    color: ColorType,
    interlaced: bool,
}

fn corrupt(reason: impl Into<String>) -> ImageError {
    ImageError::Corrupt(reason.into())
}

/// Decodes a PNG file. Chunks after the image data are not read (as torchvision, which never
/// reads `IEND`); ancillary chunks with a bad CRC are skipped, as libpng does.
pub fn decode_png(bytes: &[u8]) -> Result<DecodedImage, ImageError> {
    if bytes.len() < 8 || bytes[..8] != SIGNATURE {
        return Err(ImageError::Unsupported);
    }
    let mut pos = 8;
    let mut header: Option<Header> = None;
    let mut palette: Vec<[u8; 3]> = Vec::new();
    let mut palette_alpha: Vec<u8> = Vec::new();
    let mut gamma: Option<u32> = None;
    let mut srgb = false;
    let mut has_exif = false;
    let mut data: Vec<u8> = Vec::new();
    let mut in_idat = false;
    // The file ended right after image data (no IEND): short data then reads past its end.
    let mut ended = false;
    loop {
        let Some(head) = bytes.get(pos..pos + 8) else {
            if in_idat {
                ended = true;
                break;
            }
            return Err(ImageError::Truncated);
        };
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let kind = [head[4], head[5], head[6], head[7]];
        let name = String::from_utf8_lossy(&kind).into_owned();
        if len > i32::MAX as usize {
            return Err(corrupt(format!(
                "{name}: PNG unsigned integer out of range"
            )));
        }
        let body_end = pos + 8 + len;
        let Some(body) = bytes.get(pos + 8..body_end) else {
            return Err(ImageError::Truncated);
        };
        let Some(crc) = bytes.get(body_end..body_end + 4) else {
            return Err(ImageError::Truncated);
        };
        pos = body_end + 4;
        let stored = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
        let crc_ok = crc32(&bytes[pos - len - 8..pos - 4]) == stored;
        let critical = kind[0].is_ascii_uppercase();
        if !crc_ok {
            if critical {
                return Err(corrupt(format!("{name}: CRC error")));
            }
            continue;
        }
        if in_idat && &kind != b"IDAT" {
            // The image data are complete: torchvision reads no further.
            break;
        }
        if header.is_none() && &kind != b"IHDR" {
            return Err(corrupt(format!("{name}: Missing IHDR before {name}")));
        }
        match &kind {
            b"IHDR" => {
                if header.is_some() {
                    return Err(corrupt("IHDR: out of place"));
                }
                header = Some(parse_header(body)?);
            }
            b"PLTE" => {
                if !len.is_multiple_of(3) || len == 0 || len > 256 * 3 {
                    return Err(corrupt("PLTE: invalid"));
                }
                palette = body.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
            }
            // tRNS of gray and RGB images: torchvision never asks libpng to use it. A palette's
            // tRNS that does not fit is ignored, as libpng does (a benign error).
            b"tRNS"
                if header
                    .as_ref()
                    .is_some_and(|h| h.color == ColorType::Palette)
                    && !palette.is_empty()
                    && len <= palette.len() =>
            {
                palette_alpha = body.to_vec();
            }
            b"gAMA" if len == 4 => {
                let g = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                if (16..=625_000_000).contains(&g) {
                    gamma = Some(g);
                }
            }
            b"sRGB" => srgb = len == 1,
            b"eXIf" => has_exif = true,
            b"IDAT" => {
                let h = header
                    .as_ref()
                    .ok_or_else(|| corrupt("IDAT: Missing IHDR before IDAT"))?;
                if h.color == ColorType::Palette && palette.is_empty() {
                    return Err(corrupt("IDAT: Missing PLTE before IDAT"));
                }
                in_idat = true;
                data.extend_from_slice(body);
            }
            b"IEND" => return Err(corrupt("IEND: out of place")),
            _ if critical => return Err(corrupt(format!("{name}: unknown critical chunk"))),
            _ => {}
        }
    }
    let header = header.ok_or_else(|| corrupt("Missing IHDR"))?;
    let samples_per_pixel = header.color.channels();
    let bits_per_pixel = samples_per_pixel * usize::from(header.bit_depth);
    // Reject what could not fit before allocating anything.
    let fits = header
        .width
        .checked_mul(header.height)
        .and_then(|n| n.checked_mul(samples_per_pixel * 2))
        .is_some_and(|n| n <= MAX_DECODED_BYTES);
    if !fits {
        return Err(ImageError::TooLarge {
            width: header.width as u32,
            height: header.height as u32,
        });
    }
    let passes: Vec<(usize, usize, usize, usize)> = if header.interlaced {
        ADAM7.to_vec()
    } else {
        vec![(0, 0, 1, 1)]
    };
    let pass_sizes: Vec<(usize, usize)> = passes
        .iter()
        .map(|&(x0, y0, dx, dy)| {
            (
                header.width.saturating_sub(x0).div_ceil(dx),
                header.height.saturating_sub(y0).div_ceil(dy),
            )
        })
        .collect();
    let row_bytes = |w: usize| (w * bits_per_pixel).div_ceil(8);
    let expected: usize = pass_sizes
        .iter()
        .filter(|(w, h)| *w > 0 && *h > 0)
        .map(|&(w, h)| (1 + row_bytes(w)) * h)
        .sum();
    let raw = match inflate(&data, expected) {
        Err(ImageError::Corrupt(reason)) if ended && reason.contains("Not enough") => {
            return Err(ImageError::Truncated)
        }
        other => other?,
    };
    let bpp = bits_per_pixel.div_ceil(8).max(1);
    let wide = header.bit_depth == 16;
    let count = header.width * header.height * samples_per_pixel;
    let mut out8 = if wide { Vec::new() } else { vec![0u8; count] };
    let mut out16 = if wide { vec![0u16; count] } else { Vec::new() };
    let mut at = 0;
    for (&(x0, y0, dx, dy), &(w, h)) in passes.iter().zip(&pass_sizes) {
        if w == 0 || h == 0 {
            continue;
        }
        let stride = row_bytes(w);
        let mut prev = vec![0u8; stride];
        let mut row = vec![0u8; stride];
        for j in 0..h {
            let filter = raw[at];
            row.copy_from_slice(&raw[at + 1..at + 1 + stride]);
            at += 1 + stride;
            unfilter(filter, &mut row, &prev, bpp)?;
            let y = y0 + j * dy;
            for i in 0..w {
                let x = x0 + i * dx;
                let dst = (y * header.width + x) * samples_per_pixel;
                for s in 0..samples_per_pixel {
                    let k = i * samples_per_pixel + s;
                    match header.bit_depth {
                        16 => out16[dst + s] = u16::from_be_bytes([row[2 * k], row[2 * k + 1]]),
                        8 => out8[dst + s] = row[k],
                        bits => {
                            let bits = usize::from(bits);
                            let shift = 8 - bits - (k * bits) % 8;
                            let v = (row[k * bits / 8] >> shift) & ((1u8 << bits) - 1);
                            out8[dst + s] = if header.color == ColorType::Gray {
                                // libpng's png_set_expand_gray_1_2_4_to_8: scaled to 0-255.
                                v * (255 / ((1u8 << bits) - 1))
                            } else {
                                v
                            };
                        }
                    }
                }
            }
            std::mem::swap(&mut prev, &mut row);
        }
    }
    Ok(DecodedImage {
        width: header.width as u32,
        height: header.height as u32,
        color: header.color,
        bit_depth: header.bit_depth,
        samples: if wide {
            Samples::Sixteen(out16)
        } else {
            Samples::Eight(out8)
        },
        palette,
        palette_alpha,
        gamma: if srgb { Some(45_455) } else { gamma },
        has_exif,
    })
}

fn parse_header(body: &[u8]) -> Result<Header, ImageError> {
    if body.len() != 13 {
        return Err(corrupt("IHDR: invalid"));
    }
    let be = |i: usize| u32::from_be_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
    let (width, height) = (be(0), be(4));
    if width == 0 || height == 0 {
        return Err(corrupt("IHDR: Image width or height is zero in IHDR"));
    }
    if width > i32::MAX as u32 || height > i32::MAX as u32 {
        return Err(corrupt("IHDR: Invalid image size in IHDR"));
    }
    let bit_depth = body[8];
    let color = match body[9] {
        0 => ColorType::Gray,
        2 => ColorType::Rgb,
        3 => ColorType::Palette,
        4 => ColorType::GrayAlpha,
        6 => ColorType::Rgba,
        _ => return Err(corrupt("IHDR: Invalid color type in IHDR")),
    };
    let depth_ok = match color {
        ColorType::Gray => matches!(bit_depth, 1 | 2 | 4 | 8 | 16),
        ColorType::Palette => matches!(bit_depth, 1 | 2 | 4 | 8),
        _ => matches!(bit_depth, 8 | 16),
    };
    if !depth_ok {
        return Err(corrupt("IHDR: Invalid bit depth in IHDR"));
    }
    if body[10] != 0 {
        return Err(corrupt("IHDR: Unknown compression method in IHDR"));
    }
    if body[11] != 0 {
        return Err(corrupt("IHDR: Unknown filter method in IHDR"));
    }
    if body[12] > 1 {
        return Err(corrupt("IHDR: Unknown interlace method in IHDR"));
    }
    Ok(Header {
        width: width as usize,
        height: height as usize,
        bit_depth,
        color,
        interlaced: body[12] == 1,
    })
}

/// Inflates the zlib stream of the IDAT chunks into exactly `expected` bytes (extra data is
/// ignored, as libpng warns and goes on).
fn inflate(data: &[u8], expected: usize) -> Result<Vec<u8>, ImageError> {
    use miniz_oxide::inflate::{decompress_to_vec_zlib_with_limit, TINFLStatus};
    let out = match decompress_to_vec_zlib_with_limit(data, expected) {
        Ok(out) => out,
        Err(e) => match e.status {
            TINFLStatus::HasMoreOutput => e.output,
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                return Err(corrupt("IDAT: Not enough image data"))
            }
            TINFLStatus::Adler32Mismatch => return Err(corrupt("IDAT: incorrect data check")),
            _ => return Err(corrupt("IDAT: invalid compressed data")),
        },
    };
    if out.len() < expected {
        return Err(corrupt("IDAT: Not enough image data"));
    }
    Ok(out)
}

/// Undoes one row's filter in place (`prev` is the previous row of the same pass, unfiltered,
/// zeros for the first).
fn unfilter(filter: u8, row: &mut [u8], prev: &[u8], bpp: usize) -> Result<(), ImageError> {
    match filter {
        0 => {}
        1 => {
            for i in bpp..row.len() {
                row[i] = row[i].wrapping_add(row[i - bpp]);
            }
        }
        2 => {
            for (x, &b) in row.iter_mut().zip(prev) {
                *x = x.wrapping_add(b);
            }
        }
        3 => {
            for i in 0..row.len() {
                let a = if i >= bpp { u16::from(row[i - bpp]) } else { 0 };
                row[i] = row[i].wrapping_add(((a + u16::from(prev[i])) / 2) as u8);
            }
        }
        4 => {
            for i in 0..row.len() {
                let a = if i >= bpp { row[i - bpp] } else { 0 };
                let c = if i >= bpp { prev[i - bpp] } else { 0 };
                row[i] = row[i].wrapping_add(paeth(a, prev[i], c));
            }
        }
        _ => return Err(corrupt("IDAT: bad adaptive filter value")),
    }
    Ok(())
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// The byte table of the CRC-32 of PNG chunks (ISO 3309, the zlib polynomial).
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
};

/// The CRC-32 of a chunk's type and data.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc = CRC_TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
#[path = "png_tests.rs"]
mod tests;
