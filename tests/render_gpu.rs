//! Differential tests of the GPU renderer: frames drawn offscreen by `shaders/render.wgsl`
//! (from the engine's storage buffers, pyramids built by `shaders/minmax.wgsl`) against the
//! CPU reference `render::Scene::pixel`, every pixel, over random shapes, strides (0 and
//! negative included), offsets, dtypes, zooms, pans and highlights; images, tints and
//! bound windows of storages larger than a binding.
//!
//! These tests need a GPU adapter (natively Mesa's lavapipe); without one they FAIL.

#[path = "common/gpu.rs"]
mod shared_gpu;
use shared_gpu::gpu;

use proptest::prelude::*;
use stridescope::core::tensor::DType;
use stridescope::engines::gpu::GpuEngine;
use stridescope::engines::Engine;
use stridescope::painters::render::RenderIssue;
use stridescope::painters::GpuPainter;
use stridescope::present::render::{
    image_layout, storage_values, Frame, Grid, Mode, Scene, TintSpec, ViewSpec, Viewport,
};
use stridescope::shells::bench::gpu::pseudo_random_bytes;
use stridescope::shells::bench::render::{compare, sample_values, Offscreen};

/// Draws `grid` of a storage holding `bytes` (of `dtype`) on the GPU under `viewport`, and
/// returns (pixels compared, mismatches, examples) against the CPU reference.
fn differ(
    gpu: &mut GpuEngine,
    bytes: Vec<u8>,
    dtype: DType,
    grid: Grid,
    mode: Mode,
    viewport: &Viewport,
    highlight: Option<i64>,
) -> (usize, Vec<String>) {
    let storage = gpu.allocate_with(bytes.clone());
    let mut painter = GpuPainter::new();
    let mut view = painter
        .prepare_view(gpu, storage, grid.clone(), mode)
        .unwrap();
    let frame = Frame::new(viewport, &grid, highlight);
    let (w, h) = frame.size;
    let target = Offscreen::new(gpu, w, h);
    target.draw(gpu, &mut painter, &mut view, &frame);
    let pixels = target.read(gpu).unwrap();
    let scene = Scene::new(grid, storage_values(&bytes, dtype), mode);
    let mut bad = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let at = (y as usize * w as usize + x as usize) * 4;
            let got = &pixels[at..at + 4];
            let want = scene.pixel(&frame, x, y);
            if got != want && bad.len() < 6 {
                bad.push(format!("({x}, {y}): gpu {got:?}, cpu {want:?}"));
            }
        }
    }
    if mode == Mode::Heat {
        let range = pollster::block_on(view.read_range(gpu)).unwrap();
        let want = [scene.range.lo, scene.range.hi, scene.range.inv_span()];
        if range != want {
            bad.push(format!("range: gpu {range:?}, cpu {want:?}"));
        }
    }
    gpu.free(storage);
    ((w * h) as usize, bad)
}

fn view_strategy() -> impl Strategy<Value = (Vec<i64>, Vec<i64>, i64, usize)> {
    prop::collection::vec((1i64..24, -30i64..31), 1..5).prop_flat_map(|dims| {
        let shape: Vec<i64> = dims.iter().map(|d| d.0).collect();
        let stride: Vec<i64> = dims
            .iter()
            .map(|&(n, s)| if n > 12 { s.clamp(-3, 3) } else { s })
            .collect();
        let low: i64 = shape
            .iter()
            .zip(&stride)
            .map(|(&n, &s)| ((n - 1) * s).min(0))
            .sum();
        let high: i64 = shape
            .iter()
            .zip(&stride)
            .map(|(&n, &s)| ((n - 1) * s).max(0))
            .sum();
        (
            Just(shape),
            Just(stride),
            (-low)..(-low + 9),
            Just((high - low + 10) as usize),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn gpu_frames_equal_the_cpu_reference(
        (shape, stride, offset, extent) in view_strategy(),
        dtype in prop::sample::select([DType::ALL.as_slice(), &[DType::Complex64]].concat()),
        zoom in prop::sample::select(vec![0.02, 0.1, 0.3, 0.5, 1.0, 2.0, 7.0]),
        pan in (-40.0f64..40.0, -40.0f64..40.0),
        dpr in prop::sample::select(vec![1.0, 1.5, 2.0]),
        highlight in prop::option::of(0i64..60),
        seed in 0u64..1000,
        finite in any::<bool>(),
    ) {
        let mut gpu = gpu();
        let elements = extent + offset as usize;
        let bytes = if finite && dtype.is_floating() {
            // Mostly ordinary values (random bytes are mostly NaN-free only for some dtypes).
            let v = sample_values(elements * dtype.item_size().div_ceil(4) + 1, seed);
            let vals = storage_values(&v, DType::Float32);
            let mut out = vec![0u8; elements * dtype.item_size()];
            for (i, &x) in vals.iter().take(elements).enumerate() {
                dtype.real_part().write(&mut out, i, stridescope::core::tensor::Scalar::Float(f64::from(x)));
            }
            out
        } else {
            pseudo_random_bytes(elements * dtype.item_size(), seed + 1)
        };
        let spec = ViewSpec::new(&shape, &stride, offset, dtype);
        let grid = Grid::for_view(&spec).unwrap();
        let mut vp = Viewport::fit(96.0, 64.0, dpr, grid.rows, grid.cols);
        vp.zoom_at(zoom, 30.0, 20.0, grid.rows, grid.cols);
        vp.pan_by(pan.0, pan.1, grid.rows, grid.cols);
        let (n, bad) = differ(&mut gpu, bytes, dtype, grid, Mode::Heat, &vp, highlight);
        prop_assert!(bad.is_empty(), "{n} pixels, mismatches: {bad:?}");
    }
}

#[test]
fn sub_pixel_heatmaps_and_storage_strips() {
    let mut gpu = gpu();
    // A 600 × 700 view and its transpose in a small canvas (pyramid levels 3 and 4), with
    // outliers; and the strip of a storage.
    let bytes = sample_values(600 * 700, 5);
    for stride in [[700, 1], [1, 600]] {
        let spec = ViewSpec::new(&[600, 700], &stride, 0, DType::Float32);
        let grid = Grid::for_view(&spec).unwrap();
        for (w, h) in [(64.0, 64.0), (40.0, 100.0), (200.0, 150.0)] {
            let vp = Viewport::fit(w, h, 1.0, grid.rows, grid.cols);
            let (n, bad) = differ(
                &mut gpu,
                bytes.clone(),
                DType::Float32,
                grid.clone(),
                Mode::Heat,
                &vp,
                Some(1234),
            );
            assert!(bad.is_empty(), "{n} pixels: {bad:?}");
        }
    }
    let strip = Grid::for_storage(600 * 700, DType::Float32, None);
    let vp = Viewport::fit(128.0, 128.0, 2.0, strip.rows, strip.cols);
    let (_, bad) = differ(
        &mut gpu,
        bytes,
        DType::Float32,
        strip,
        Mode::Heat,
        &vp,
        Some(7),
    );
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn images_in_rgb_and_their_storage_tinted() {
    let mut gpu = gpu();
    let (h, w) = (37i64, 53i64);
    let n = (3 * h * w) as usize;
    let bytes = pseudo_random_bytes(n, 9);
    // [3, H, W] contiguous, [1, 3, H, W] channels_last, [H, W, 3]; uint8 and float.
    let cases: Vec<(Vec<i64>, Vec<i64>)> = vec![
        (vec![3, h, w], vec![h * w, w, 1]),
        (vec![1, 3, h, w], vec![3 * h * w, 1, 3 * w, 3]),
        (vec![h, w, 3], vec![3 * w, 3, 1]),
    ];
    for (shape, stride) in &cases {
        let img = image_layout(shape, stride, DType::UInt8).unwrap();
        let grid = Grid::for_image(&img, 0, DType::UInt8);
        for zoom in [1.0, 0.4, 3.0] {
            let mut vp = Viewport::fit(80.0, 60.0, 1.5, grid.rows, grid.cols);
            vp.zoom_at(zoom, 10.0, 10.0, grid.rows, grid.cols);
            let mode = Mode::Rgb(img.scale);
            let (_, bad) = differ(
                &mut gpu,
                bytes.clone(),
                DType::UInt8,
                grid.clone(),
                mode,
                &vp,
                Some(100),
            );
            assert!(bad.is_empty(), "{shape:?}: {bad:?}");
        }
        let tint = TintSpec::for_image(&img, 0).unwrap();
        let strip = Grid::for_storage(n, DType::UInt8, Some(w as usize));
        let vp = Viewport::fit(64.0, 128.0, 1.0, strip.rows, strip.cols);
        let (_, bad) = differ(
            &mut gpu,
            bytes.clone(),
            DType::UInt8,
            strip,
            Mode::Tint(tint),
            &vp,
            Some(3),
        );
        assert!(bad.is_empty(), "tint {shape:?}: {bad:?}");
    }
    // Float images: 0..1 (with values outside, NaN and infinities from random bits).
    let fbytes = sample_values(n, 3);
    let img = image_layout(&[3, h, w], &[h * w, w, 1], DType::Float32).unwrap();
    let grid = Grid::for_image(&img, 0, DType::Float32);
    let vp = Viewport::fit(106.0, 74.0, 1.0, grid.rows, grid.cols);
    let (_, bad) = differ(
        &mut gpu,
        fbytes,
        DType::Float32,
        grid,
        Mode::Rgb(img.scale),
        &vp,
        None,
    );
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn storages_larger_than_a_binding_bind_a_window_or_say_why() {
    let mut gpu = gpu();
    gpu.restrict_limits_for_testing(Some(4096), None);
    let bytes = sample_values(10_000, 11);
    // A 20 × 20 view at element 6000 reaches 1.6 KB: a window of the 40 KB storage.
    let spec = ViewSpec::new(&[20, 20], &[1, 20], 6000, DType::Float32);
    let grid = Grid::for_view(&spec).unwrap();
    let vp = Viewport::fit(64.0, 64.0, 1.0, 20, 20);
    let (_, bad) = differ(
        &mut gpu,
        bytes.clone(),
        DType::Float32,
        grid,
        Mode::Heat,
        &vp,
        Some(6100),
    );
    // The whole storage does not fit.
    let storage = gpu.allocate_with(bytes);
    let whole = Grid::for_storage(10_000, DType::Float32, None);
    let refused = GpuPainter::new()
        .prepare_view(&gpu, storage, whole, Mode::Heat)
        .err();
    gpu.free(storage);
    gpu.restrict_limits_for_testing(None, None);
    assert!(bad.is_empty(), "{bad:?}");
    assert!(
        matches!(
            refused,
            Some(RenderIssue::WindowTooLarge {
                bytes: 40_000,
                limit: 4096
            })
        ),
        "{refused:?}"
    );
}

#[test]
fn the_bench_comparison_sees_a_wrong_pixel() {
    let mut gpu = gpu();
    let bytes = sample_values(64 * 64, 2);
    let storage = gpu.allocate_with(bytes.clone());
    let grid = Grid::for_view(&ViewSpec::new(&[64, 64], &[64, 1], 0, DType::Float32)).unwrap();
    let mut painter = GpuPainter::new();
    let mut view = painter
        .prepare_view(&gpu, storage, grid.clone(), Mode::Heat)
        .unwrap();
    let vp = Viewport::fit(128.0, 128.0, 1.0, 64, 64);
    let frame = Frame::new(&vp, &grid, None);
    let target = Offscreen::new(&gpu, 128, 128);
    target.draw(&gpu, &mut painter, &mut view, &frame);
    let mut pixels = target.read(&gpu).unwrap();
    gpu.free(storage);
    let scene = Scene::new(grid, storage_values(&bytes, DType::Float32), Mode::Heat);
    assert_eq!(compare(&scene, &frame, &pixels, 500, 1).1, 0);
    pixels[(16 * 128 + 16) * 4] ^= 1;
    assert_eq!(compare(&scene, &frame, &pixels, 0, 1).1, 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn gpu_images_and_tints_equal_the_cpu_reference(
        n in 1i64..3,
        h in 1i64..24,
        w in 1i64..24,
        layout in 0usize..5,
        dtype in prop::sample::select(vec![DType::UInt8, DType::Float32, DType::Float16]),
        zoom in prop::sample::select(vec![0.05, 0.5, 1.0, 4.0]),
        seed in 0u64..1000,
    ) {
        let mut gpu = gpu();
        // [3, H, W], [N, 3, H, W] contiguous and channels_last, [H, W, 3], and a vertically
        // flipped [3, H, W] (negative row stride).
        let (shape, stride, offset): (Vec<i64>, Vec<i64>, i64) = match layout {
            0 => (vec![3, h, w], vec![h * w, w, 1], 0),
            1 => (vec![n, 3, h, w], vec![3 * h * w, h * w, w, 1], 0),
            2 => (vec![n, 3, h, w], vec![3 * h * w, 1, 3 * w, 3], 0),
            3 => (vec![h, w, 3], vec![3 * w, 3, 1], 0),
            _ => (vec![3, h, w], vec![h * w, -w, 1], (h - 1) * w),
        };
        let elements = (3 * n * h * w) as usize;
        let bytes = pseudo_random_bytes(elements * dtype.item_size(), seed);
        let img = image_layout(&shape, &stride, dtype).unwrap();
        let grid = Grid::for_image(&img, offset, dtype);
        let mut vp = Viewport::fit(64.0, 48.0, 1.0, grid.rows, grid.cols);
        vp.zoom_at(zoom, 20.0, 20.0, grid.rows, grid.cols);
        let highlight = Some((seed % elements as u64) as i64);
        let (_, bad) = differ(&mut gpu, bytes.clone(), dtype, grid, Mode::Rgb(img.scale), &vp, highlight);
        prop_assert!(bad.is_empty(), "rgb {shape:?} {stride:?}: {bad:?}");
        if let Some(tint) = TintSpec::for_image(&img, offset) {
            let strip = Grid::for_storage(elements, dtype, Some(w as usize));
            let vp = Viewport::fit(48.0, 64.0, 1.0, strip.rows, strip.cols);
            let (_, bad) = differ(&mut gpu, bytes, dtype, strip, Mode::Tint(tint), &vp, highlight);
            prop_assert!(bad.is_empty(), "tint {shape:?} {stride:?}: {bad:?}");
        }
    }
}

#[test]
fn flat_empty_and_non_finite_heatmaps() {
    let mut gpu = gpu();
    let grid =
        |n: i64| Grid::for_view(&ViewSpec::new(&[n, n], &[n, 1], 0, DType::Float32)).unwrap();
    let vp = Viewport::fit(64.0, 64.0, 1.0, 40, 40);
    // Every value equal: the middle colour; every value NaN or ±inf: their colours, range 0.
    for fill in [3.5f32, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let bytes: Vec<u8> = std::iter::repeat_n(fill.to_le_bytes(), 1600)
            .flatten()
            .collect();
        let (_, bad) = differ(
            &mut gpu,
            bytes,
            DType::Float32,
            grid(40),
            Mode::Heat,
            &vp,
            Some(5),
        );
        assert!(bad.is_empty(), "{fill}: {bad:?}");
    }
    // An empty view draws nothing.
    let empty = Grid::for_view(&ViewSpec::new(&[0, 5], &[5, 1], 0, DType::Float32)).unwrap();
    let vp = Viewport::fit(32.0, 32.0, 1.0, 0, 5);
    let (_, bad) = differ(
        &mut gpu,
        vec![0; 16],
        DType::Float32,
        empty,
        Mode::Heat,
        &vp,
        None,
    );
    assert!(bad.is_empty(), "{bad:?}");
}
