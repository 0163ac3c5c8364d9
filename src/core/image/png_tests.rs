//! The decoder on files made here (every filter, Adam7, sub-byte depths) and on hostile
//! input: truncated, garbled and oversized files give an error, never a panic.
//! `tests/png_torchvision.rs` compares it with torchvision on recorded files.

use crate::core::image::png::*;
use crate::core::image::{ColorType, ImageError, Samples};

/// A chunk with its length and CRC.
fn chunk(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    let mut typed = kind.to_vec();
    typed.extend_from_slice(body);
    out.extend_from_slice(&typed);
    out.extend_from_slice(&crc32(&typed).to_be_bytes());
    out
}

fn ihdr(width: u32, height: u32, depth: u8, color: u8, interlace: u8) -> Vec<u8> {
    let mut body = width.to_be_bytes().to_vec();
    body.extend_from_slice(&height.to_be_bytes());
    body.extend_from_slice(&[depth, color, 0, 0, interlace]);
    chunk(b"IHDR", &body)
}

/// A PNG whose filtered scanlines (filter bytes included) are `raw`.
fn png(header: Vec<u8>, extra: &[Vec<u8>], raw: &[u8]) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    out.extend(header);
    for c in extra {
        out.extend_from_slice(c);
    }
    out.extend(chunk(
        b"IDAT",
        &miniz_oxide::deflate::compress_to_vec_zlib(raw, 6),
    ));
    out.extend(chunk(b"IEND", &[]));
    out
}

fn eight(image: &crate::core::image::DecodedImage) -> &[u8] {
    match &image.samples {
        Samples::Eight(s) => s,
        Samples::Sixteen(_) => panic!("expected 8-bit samples"),
    }
}

#[test]
fn every_filter_type_is_undone() {
    // A 3x2 RGB image: row 0 with filter f, row 1 with filter f, raw values known.
    let rows: [[u8; 9]; 2] = [
        [10, 20, 30, 200, 100, 50, 0, 255, 7],
        [1, 2, 3, 250, 90, 60, 9, 8, 7],
    ];
    for f in 0..5u8 {
        let mut raw = Vec::new();
        let mut prev = [0u8; 9];
        for row in rows {
            raw.push(f);
            for i in 0..9 {
                let a = if i >= 3 { row[i - 3] } else { 0 };
                let b = prev[i];
                let c = if i >= 3 { prev[i - 3] } else { 0 };
                let pred = match f {
                    0 => 0,
                    1 => a,
                    2 => b,
                    3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                    _ => paeth(a, b, c),
                };
                raw.push(row[i].wrapping_sub(pred));
            }
            prev = row;
        }
        let image = decode_png(&png(ihdr(3, 2, 8, 2, 0), &[], &raw)).expect("decodes");
        assert_eq!(
            (image.width, image.height, image.color),
            (3, 2, ColorType::Rgb)
        );
        assert_eq!(eight(&image), rows.concat(), "filter {f}");
    }
    let bad = png(ihdr(1, 1, 8, 0, 0), &[], &[5, 0]);
    assert_eq!(
        decode_png(&bad),
        Err(ImageError::Corrupt(
            "IDAT: bad adaptive filter value".into()
        ))
    );
}

#[test]
fn adam7_passes_land_where_they_belong() {
    // A 3x3 gray image: pass 1 has (0,0); pass 4 (2,0)... each pixel's value is its index.
    let width = 3;
    let mut raw = Vec::new();
    for (x0, y0, dx, dy) in ADAM7 {
        let xs: Vec<usize> = (x0..width).step_by(dx).collect();
        let ys: Vec<usize> = (y0..3).step_by(dy).collect();
        if xs.is_empty() || ys.is_empty() {
            continue;
        }
        for y in ys {
            raw.push(0);
            raw.extend(xs.iter().map(|x| (y * width + x) as u8));
        }
    }
    let image = decode_png(&png(ihdr(3, 3, 8, 0, 1), &[], &raw)).expect("decodes");
    assert_eq!(eight(&image), (0..9).collect::<Vec<u8>>());
}

#[test]
fn sub_byte_gray_is_scaled_and_palette_indices_are_kept() {
    // 1-bit gray, 10 pixels: 0b1011_0000 0b01_000000.
    let image = decode_png(&png(
        ihdr(10, 1, 1, 0, 0),
        &[],
        &[0, 0b1011_0000, 0b0100_0000],
    ))
    .expect("decodes");
    assert_eq!(eight(&image), [255, 0, 255, 255, 0, 0, 0, 0, 0, 255]);
    // 2-bit palette with tRNS.
    let plte = chunk(b"PLTE", &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let trns = chunk(b"tRNS", &[0, 128]);
    let image =
        decode_png(&png(ihdr(3, 1, 2, 3, 0), &[plte, trns], &[0, 0b1110_0100])).expect("decodes");
    assert_eq!(image.color, ColorType::Palette);
    assert_eq!(eight(&image), [3, 2, 1]);
    assert_eq!(image.palette.len(), 4);
    assert_eq!(image.palette_alpha, [0, 128]);
}

#[test]
fn sixteen_bit_samples_are_big_endian_in_the_file() {
    let image = decode_png(&png(
        ihdr(2, 1, 16, 0, 0),
        &[],
        &[0, 0x12, 0x34, 0xff, 0x01],
    ))
    .expect("decodes");
    assert_eq!(image.samples, Samples::Sixteen(vec![0x1234, 0xff01]));
}

#[test]
fn damaged_files_say_why() {
    let good = png(ihdr(2, 2, 8, 0, 0), &[], &[0, 1, 2, 0, 3, 4]);
    assert!(decode_png(&good).is_ok());
    assert_eq!(decode_png(b"GIF89a"), Err(ImageError::Unsupported));
    assert_eq!(decode_png(&good[..40]), Err(ImageError::Truncated));
    let mut crc = good.clone();
    crc[29] ^= 1;
    assert_eq!(
        decode_png(&crc),
        Err(ImageError::Corrupt("IHDR: CRC error".into()))
    );
    let no_plte = png(ihdr(1, 1, 8, 3, 0), &[], &[0, 0]);
    assert_eq!(
        decode_png(&no_plte),
        Err(ImageError::Corrupt("IDAT: Missing PLTE before IDAT".into()))
    );
    let short = png(ihdr(2, 2, 8, 0, 0), &[], &[0, 1, 2]);
    assert_eq!(
        decode_png(&short),
        Err(ImageError::Corrupt("IDAT: Not enough image data".into()))
    );
    // Without IEND after short data, the read runs past the end (torchvision's "Out of
    // bound read").
    let cut = &short[..short.len() - 12];
    assert_eq!(decode_png(cut), Err(ImageError::Truncated));
    // Complete data without IEND decode, as torchvision never reads IEND.
    assert!(decode_png(&good[..good.len() - 12]).is_ok());
    for (depth, color) in [(3, 0), (16, 3), (4, 2), (8, 5)] {
        assert!(matches!(
            decode_png(&png(ihdr(1, 1, depth, color, 0), &[], &[0, 0])),
            Err(ImageError::Corrupt(_))
        ));
    }
}

#[test]
fn huge_headers_are_refused_before_allocating() {
    let image = png(ihdr(2_000_000_000, 2_000_000_000, 16, 6, 0), &[], &[0]);
    assert_eq!(
        decode_png(&image),
        Err(ImageError::TooLarge {
            width: 2_000_000_000,
            height: 2_000_000_000
        })
    );
}

#[test]
fn crc_matches_the_png_specification() {
    // The CRC of an empty IEND chunk, as every PNG file ends.
    assert_eq!(crc32(b"IEND"), 0xAE42_6082);
}

#[cfg(not(target_arch = "wasm32"))]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        let plte = chunk(b"PLTE", &[9, 8, 7, 6, 5, 4]);
        let mut raw = Vec::new();
        for (i, f) in [0u8, 1, 2, 3, 4, 1, 2, 3].iter().enumerate() {
            raw.push(*f);
            raw.extend([i as u8, 0x5a, 0xa5]);
        }
        // 10x8 1-bit palette, interlaced: raw scanlines as they come.
        let mut p = png(ihdr(10, 8, 1, 3, 1), &[plte], &raw);
        p.truncate(p.len());
        p
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn truncated_files_never_panic(cut in 0usize..200) {
            let bytes = sample();
            let cut = cut.min(bytes.len());
            let _ = decode_png(&bytes[..cut]);
            let _ = crate::core::image::decode(&bytes[..cut]);
        }

        #[test]
        fn garbled_files_never_panic(
            flips in proptest::collection::vec((0usize..200, any::<u8>()), 1..8),
            width in 1u32..40,
            height in 1u32..40,
            depth in prop::sample::select(vec![1u8, 2, 4, 8, 16]),
            color in prop::sample::select(vec![0u8, 2, 3, 4, 6]),
            interlace in 0u8..2,
            body in proptest::collection::vec(any::<u8>(), 0..300),
        ) {
            let plte = chunk(b"PLTE", &[1, 2, 3]);
            let mut bytes = png(ihdr(width, height, depth, color, interlace), &[plte], &body);
            let _ = decode_png(&bytes);
            for (at, value) in flips {
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= value;
                }
            }
            if let Ok(image) = decode_png(&bytes) {
                for mode in crate::core::image::modes::ReadMode::ALL {
                    let _ = crate::core::image::modes::torchvision_pixels(&image, mode);
                }
            }
        }
    }
}
