//! The PNG decoder and torchvision's read modes against torchvision 0.29 itself: every file of
//! `tests/fixtures/png/` (made and recorded by `tools/images/record_png.py`: each colour type
//! and bit depth, the five filters, Adam7, palettes with and without `tRNS`, gamma, split
//! IDATs) in every `ImageReadMode` gives the shape, strides and values torchvision gave.

use stridescope::core::image::modes::{torchvision_pixels, ReadMode};
use stridescope::core::image::{decode, Samples};

#[test]
fn decoded_pngs_match_torchvision_in_every_mode() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let text = std::fs::read_to_string(format!("{dir}/png.torchvision.jsonl")).expect("records");
    let mut checked = 0;
    let mut problems = Vec::new();
    for line in text.lines() {
        let record: serde_json::Value = serde_json::from_str(line).expect("json");
        let file = record["file"].as_str().expect("file");
        let mode_name = record["mode"].as_str().expect("mode");
        let mode = ReadMode::from_name(mode_name).expect("mode");
        let bytes = std::fs::read(format!("{dir}/png/{file}")).expect("png");
        let image = decode(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let want: Vec<i64> = record["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v.as_i64().expect("int"))
            .collect();
        let shape: Vec<usize> = record["shape"]
            .as_array()
            .expect("shape")
            .iter()
            .map(|v| v.as_u64().expect("dim") as usize)
            .collect();
        let (w, h) = (image.width as usize, image.height as usize);
        // The values in CHW order from an HWC buffer of `c` channels.
        let chw = |c: usize, at: &dyn Fn(usize) -> i64| -> Vec<i64> {
            let mut out = Vec::with_capacity(c * w * h);
            for ch in 0..c {
                for p in 0..w * h {
                    out.push(at(p * c + ch));
                }
            }
            out
        };
        let (got_shape, got) = match (&image.samples, record["dtype"].as_str()) {
            (Samples::Sixteen(s), Some("uint16")) => {
                if mode != ReadMode::Unchanged {
                    // Stridescope refuses torch.uint16; the decoder's samples are checked
                    // in UNCHANGED mode.
                    continue;
                }
                let c = image.color.channels();
                (vec![c, h, w], chw(c, &|i| i64::from(s[i])))
            }
            _ => match torchvision_pixels(&image, mode) {
                Some((c, hwc)) => {
                    let stride: Vec<i64> = record["stride"]
                        .as_array()
                        .expect("stride")
                        .iter()
                        .map(|v| v.as_i64().expect("stride"))
                        .collect();
                    assert_eq!(stride, [1, (w * c) as i64, c as i64], "{file} {mode_name}");
                    (vec![c, h, w], chw(c, &|i| i64::from(hwc[i])))
                }
                None => {
                    problems.push(format!("{file} {mode_name}: no 8-bit pixels"));
                    continue;
                }
            },
        };
        if got_shape != shape {
            problems.push(format!(
                "{file} {mode_name}: shape {got_shape:?}, torchvision {shape:?}"
            ));
        } else if got != want {
            let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
            problems.push(format!(
                "{file} {mode_name}: value {first} is {}, torchvision {}",
                got[first], want[first]
            ));
        }
        checked += 1;
    }
    assert!(checked > 200, "only {checked} records checked");
    assert!(
        problems.is_empty(),
        "{} differences:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
