//! Tests of the render plans: layout, picking, colours, pyramid, images, highlight.

use proptest::prelude::*;

use crate::core::tensor::{DType, Layout};
use crate::present::render::colour::{
    classify, colormap_lut, heat_colour, lut_index, Class, HIGHLIGHT_COLOUR, NAN_COLOUR, VIRIDIS,
};
use crate::present::render::scene::MARK_MIN_DEVICE_PX;
use crate::present::render::*;

fn spec(shape: &[i64], stride: &[i64], offset: i64) -> ViewSpec {
    ViewSpec::new(shape, stride, offset, DType::Float32)
}

/// Every cell of the grid, with its view index.
fn all_cells(grid: &Grid) -> Vec<((usize, usize), Vec<usize>)> {
    let mut out = Vec::new();
    for r in 0..grid.rows {
        for c in 0..grid.cols {
            if let Some(index) = grid.cell_index(r, c) {
                out.push(((r, c), index));
            }
        }
    }
    out
}

fn layout_strategy() -> impl Strategy<Value = (Vec<i64>, Vec<i64>, i64)> {
    prop::collection::vec((1i64..5, -6i64..7), 1..5).prop_flat_map(|dims| {
        let shape: Vec<i64> = dims.iter().map(|d| d.0).collect();
        let stride: Vec<i64> = dims.iter().map(|d| d.1).collect();
        let low: i64 = dims.iter().map(|&(n, s)| ((n - 1) * s).min(0)).sum();
        (Just(shape), Just(stride), (-low)..(-low + 5))
    })
}

proptest! {
    #[test]
    fn cells_address_the_view_and_invert(
        (shape, stride, offset) in layout_strategy()
    ) {
        let grid = Grid::for_view(&spec(&shape, &stride, offset)).unwrap();
        let layout = Layout { shape: shape.clone(), strides: stride.clone(), offset };
        let cells = all_cells(&grid);
        prop_assert_eq!(cells.len() as i64, layout.numel());
        for ((r, c), index) in cells {
            let idx: Vec<i64> = index.iter().map(|&i| i as i64).collect();
            prop_assert_eq!(grid.cell_offset(r, c), Some(layout.element_offset(&idx)));
            prop_assert_eq!(grid.cell_of_index(&index), Some((r, c)));
        }
    }

    #[test]
    fn aliases_are_found_exactly(
        (shape, stride, offset) in layout_strategy(),
        target in 0i64..40,
    ) {
        let grid = Grid::for_view(&spec(&shape, &stride, offset)).unwrap();
        let mut brute: Vec<(usize, usize)> = all_cells(&grid)
            .into_iter()
            .map(|(cell, _)| cell)
            .filter(|&(r, c)| grid.cell_offset(r, c) == Some(target))
            .collect();
        brute.sort_unstable();
        brute.truncate(1000);
        prop_assert_eq!(grid.cells_at_offset(target, 1000), brute);
    }

    #[test]
    fn picking_inverts_the_layout(
        rows in 1usize..300,
        cols in 1usize..300,
        dpr in prop::sample::select(vec![1.0, 1.5, 2.0]),
        zoom in 0.6f64..12.0,
        px in 0.0f64..700.0,
        py in 0.0f64..500.0,
    ) {
        let mut vp = Viewport::fit(700.0, 500.0, dpr, rows, cols);
        vp.zoom_at(zoom, px, py, rows, cols);
        let map = vp.pixel_map();
        if vp.cell_device_px() >= 3.0 {
            // One device pixel inside each visible cell's top-left corner picks that cell.
            let (rr, cc) = vp.visible_cells(rows, cols);
            for r in rr.clone().step_by(7) {
                for c in cc.clone().step_by(5) {
                    let [x, y, _, _] = vp.cell_rect(r, c);
                    let (x, y) = (x + 1.0 / dpr, y + 1.0 / dpr);
                    if x >= 0.0 && y >= 0.0 && x < vp.width && y < vp.height {
                        prop_assert_eq!(vp.pick(x, y, rows, cols), Some((r, c)));
                    }
                }
            }
        }
        // Picking returns what the pixel shows.
        let (w, h) = vp.device_size();
        for (x, y) in [(0u32, 0u32), (w / 3, h / 2), (w - 1, h - 1)] {
            let shown = map.row(i64::from(y), rows).zip(map.col(i64::from(x), cols));
            let css = ((f64::from(x) + 0.5) / dpr, (f64::from(y) + 0.5) / dpr);
            prop_assert_eq!(vp.pick(css.0, css.1, rows, cols), shown);
        }
    }
}

#[test]
fn default_pan_puts_cell_i_j_at_j_cell_i_cell() {
    let (rows, cols) = (768, 768);
    let vp = Viewport::fit(768.0, 768.0, 1.0, rows, cols);
    assert_eq!(vp.cell_px, 1.0);
    assert_eq!((vp.pan_x, vp.pan_y), (0.0, 0.0));
    for (i, j) in [(0, 0), (5, 700), (767, 767), (300, 1)] {
        let [x, y, _, _] = vp.cell_rect(i, j);
        assert_eq!((x, y), (j as f64, i as f64));
        assert_eq!(vp.pick(x + 0.5, y + 0.5, rows, cols), Some((i, j)));
    }
    let vp = Viewport::fit(600.0, 400.0, 2.0, 10, 20);
    assert_eq!(vp.cell_px, 30.0);
    assert_eq!(vp.pick(30.0 * 7.0, 30.0 * 3.0, 10, 20), Some((3, 7)));
    assert_eq!(
        vp.pick(30.0 * 7.0 - 0.5, 30.0 * 3.0 - 0.5, 10, 20),
        Some((2, 6))
    );
    assert_eq!(vp.pick(30.0 * 20.0 + 1.0, 5.0, 10, 20), None);
}

#[test]
fn zoom_keeps_the_point_under_the_pointer() {
    let mut vp = Viewport::fit(512.0, 512.0, 1.0, 1024, 1024);
    assert_eq!(vp.cell_px, 0.5);
    vp.zoom_at(8.0, 100.0, 60.0, 1024, 1024);
    assert_eq!(vp.cell_px, 4.0);
    // Grid point (60/0.5, 100/0.5) = row 120, col 200 is still at (100, 60).
    assert_eq!(vp.pick(100.0, 60.0, 1024, 1024), Some((120, 200)));
    vp.zoom_at(1e9, 0.0, 0.0, 1024, 1024);
    assert_eq!(vp.cell_px, viewport::MAX_CELL_PX);
    vp.zoom_at(1e-9, 0.0, 0.0, 1024, 1024);
    assert_eq!(vp.cell_px, 0.25);
    vp.pan_by(1e6, -1e6, 1024, 1024);
    assert!(vp.pan_x <= vp.width && vp.pan_y + 1024.0 * vp.cell_px >= 0.0);
    vp.reset(1024, 1024);
    assert_eq!((vp.cell_px, vp.pan_x, vp.pan_y), (0.5, 0.0, 0.0));
}

#[test]
fn grids_of_every_rank() {
    let g = Grid::for_view(&spec(&[2, 3, 4], &[12, 4, 1], 0)).unwrap();
    assert_eq!((g.rows, g.cols, g.slice_rows), (6, 4, 3));
    assert_eq!(g.cell_index(4, 2), Some(vec![1, 1, 2]));
    let g = Grid::for_view(&spec(&[1000], &[3], 5)).unwrap();
    assert_eq!((g.kind, g.cols, g.rows), (GridKind::Wrapped, 32, 32));
    assert_eq!(g.cell_offset(1, 2), Some(5 + 34 * 3));
    assert!(!g.has_cell(31, 10));
    let g = Grid::for_view(&spec(&[], &[], 7)).unwrap();
    assert_eq!((g.rows, g.cols, g.cell_offset(0, 0)), (1, 1, Some(7)));
    assert_eq!(g.cell_index(0, 0), Some(vec![]));
    let g = Grid::for_storage(100, DType::UInt8, Some(30));
    assert_eq!((g.rows, g.cols, g.cell_offset(3, 9)), (4, 30, Some(99)));
    assert_eq!(default_strip_width(1 << 20), 1024);
    assert_eq!(default_strip_width(10), 10);
    // Complex views draw their real halves.
    let g = Grid::for_view(&ViewSpec::new(&[4, 4], &[1, 4], 1, DType::Complex64)).unwrap();
    assert_eq!(
        (g.dtype, g.cell_offset(1, 2)),
        (DType::Float32, Some(2 + 2 + 16))
    );
    assert!(Grid::for_view(&spec(&[2], &[1, 1], 0)).is_err());
}

#[test]
fn colormap_endpoints_and_specials() {
    let lut = colormap_lut();
    assert_eq!(lut[0][..3], VIRIDIS[0]);
    assert_eq!(lut[255][..3], VIRIDIS[8]);
    assert_eq!(lut[128][..3], [33, 145, 140].map(|v: u8| v).as_slice()[..3]);
    let range = ValueRange { lo: -2.0, hi: 6.0 };
    let inv = range.inv_span();
    assert_eq!(lut_index(-2.0, -2.0, inv), 0);
    assert_eq!(lut_index(6.0, -2.0, inv), 255);
    assert_eq!(lut_index(2.0, -2.0, inv), 128);
    assert_eq!(ValueRange { lo: 3.0, hi: 3.0 }.inv_span(), 0.0);
    assert_eq!(lut_index(3.0, 3.0, 0.0), 128);
    let huge = ValueRange {
        lo: -f32::MAX,
        hi: f32::MAX,
    };
    assert_eq!(lut_index(f32::MAX, -f32::MAX, huge.inv_span()), 255);
    assert_eq!(heat_colour(f32::NAN, 0.0, 1.0), NAN_COLOUR);
    assert_eq!(classify(f32::NEG_INFINITY), Class::NegInf);
    assert_eq!(
        ValueRange::of([f32::NAN, 1.0, f32::INFINITY, -4.0]),
        ValueRange { lo: -4.0, hi: 1.0 }
    );
}

#[test]
fn the_shader_colormap_is_the_table() {
    let words = colormap_words();
    let unpacked: Vec<[u8; 4]> = words.iter().map(|w| w.to_le_bytes()).collect();
    assert_eq!(unpacked.as_slice(), colormap_lut().as_slice());
    // render.wgsl unpacks r, g, b, a from the low byte up.
    assert_eq!(words[255] & 0xff, u32::from(VIRIDIS[8][0]));
    assert_eq!((words[0] >> 16) & 0xff, u32::from(VIRIDIS[0][2]));
}

#[test]
fn a_lone_outlier_survives_the_pyramid() {
    for outlier in [100.0f32, -100.0] {
        let (rows, cols) = (1024, 1000);
        let mut values = vec![0.0f32; rows * cols];
        for (i, v) in values.iter_mut().enumerate() {
            *v = (i % 7) as f32 * 0.01;
        }
        values[517 * cols + 733] = outlier;
        let grid =
            Grid::for_view(&spec(&[rows as i64, cols as i64], &[cols as i64, 1], 0)).unwrap();
        let scene = Scene::new(grid, values, Mode::Heat);
        let vp = Viewport::fit(200.0, 200.0, 1.0, rows, cols);
        let frame = Frame::new(&vp, &scene.grid, None);
        assert_eq!(frame.map.level, 4);
        let target = heat_colour(outlier, scene.range.lo, scene.range.inv_span());
        let pixels = scene.draw(&frame);
        let hits = pixels.chunks(4).filter(|p| *p == target).count();
        assert!(hits >= 1, "outlier {outlier} lost");
        // Only pixels whose footprint's blocks (16 cells, 3.1 pixels wide) hold it.
        assert!(hits <= 64, "outlier {outlier} spread to {hits} pixels");
    }
    // Edge blocks: an outlier in the last, partial row and column still shows.
    let (rows, cols) = (1001, 1001);
    let mut values = vec![1.0f32; rows * cols];
    values[rows * cols - 1] = 50.0;
    let grid = Grid::for_view(&spec(&[rows as i64, cols as i64], &[cols as i64, 1], 0)).unwrap();
    let scene = Scene::new(grid, values, Mode::Heat);
    let frame = Frame::new(
        &Viewport::fit(300.0, 300.0, 1.0, rows, cols),
        &scene.grid,
        None,
    );
    let target = heat_colour(50.0, 1.0, scene.range.inv_span());
    assert!(scene.draw(&frame).chunks(4).any(|p| p == target));
}

#[test]
fn image_layouts() {
    let img = image_layout(&[3, 4, 5], &[20, 5, 1], DType::UInt8).unwrap();
    assert_eq!(
        (img.n, img.h, img.w, img.stride_c, img.channel_dim),
        (1, 4, 5, 20, 0)
    );
    assert_eq!(img.scale, ImageScale::Byte);
    let img = image_layout(&[2, 3, 4, 5], &[60, 20, 5, 1], DType::Float32).unwrap();
    assert_eq!(
        (img.n, img.stride_n, img.batched, img.scale),
        (2, 60, true, ImageScale::Unit)
    );
    let img = image_layout(&[4, 5, 3], &[15, 3, 1], DType::Float64).unwrap();
    assert_eq!(
        (img.h, img.w, img.stride_c, img.stride_h, img.stride_w),
        (4, 5, 1, 15, 3)
    );
    // channels_last [1, 3, H, W]: strides (3HW, 1, 3W, 3).
    let (h, w) = (6i64, 7i64);
    let img = image_layout(&[1, 3, h, w], &[3 * h * w, 1, 3 * w, 3], DType::UInt8).unwrap();
    assert_eq!(
        (
            img.n,
            img.h,
            img.w,
            img.stride_c,
            img.stride_h,
            img.stride_w
        ),
        (1, 6, 7, 1, 21, 3)
    );
    let grid = Grid::for_image(&img, 0, DType::UInt8);
    assert_eq!((grid.rows, grid.cols), (6, 7));
    assert_eq!(
        grid.cell_offsets(2, 3),
        vec![2 * 21 + 9, 2 * 21 + 10, 2 * 21 + 11]
    );
    assert_eq!(grid.cell_index(2, 3), Some(vec![0, 0, 2, 3]));
    assert_eq!(grid.cell_of_index(&[0, 2, 2, 3]), Some((2, 3)));
    assert!(image_layout(&[3, 4, 5], &[20, 5, 1], DType::Int32).is_none());
    assert!(image_layout(&[4, 5, 6], &[30, 6, 1], DType::UInt8).is_none());
    assert!(image_layout(&[3, 0, 5], &[0, 5, 1], DType::UInt8).is_none());
}

#[test]
fn rgb_pixels_and_channel_tints() {
    // A 2×2 uint8 image, planar: R plane, G plane, B plane.
    let bytes: Vec<f32> = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]
        .map(|v| v as f32)
        .to_vec();
    let img = image_layout(&[3, 2, 2], &[4, 2, 1], DType::UInt8).unwrap();
    let grid = Grid::for_image(&img, 0, DType::UInt8);
    let scene = Scene::new(grid, bytes.clone(), Mode::Rgb(ImageScale::Byte));
    let vp = Viewport::fit(20.0, 20.0, 1.0, 2, 2);
    let frame = Frame::new(&vp, &scene.grid, None);
    assert_eq!(scene.pixel(&frame, 15, 5), [20, 60, 100, 255]);
    // Float images: 0..1 clamped, times 255 rounded.
    let img = image_layout(&[2, 2, 3], &[6, 3, 1], DType::Float32).unwrap();
    let vals = vec![
        0.0,
        0.5,
        1.0,
        -1.0,
        2.0,
        f32::NAN,
        0.2,
        0.4,
        0.6,
        0.1,
        0.3,
        0.9,
    ];
    let scene = Scene::new(
        Grid::for_image(&img, 0, DType::Float32),
        vals,
        Mode::Rgb(img.scale),
    );
    assert_eq!(scene.pixel(&frame, 5, 5), [0, 128, 255, 255]);
    assert_eq!(scene.pixel(&frame, 15, 5), [0, 255, 0, 255]);
    // Tints: planar storage reads as planes, channels_last as interleaved pixels.
    let planar = image_layout(&[3, 2, 2], &[4, 2, 1], DType::UInt8).unwrap();
    let tint = TintSpec::for_image(&planar, 0).unwrap();
    let channels: Vec<Option<u32>> = (0..13).map(|e| tint.channel(e)).collect();
    let mut expect: Vec<Option<u32>> = (0..12).map(|e| Some(e / 4)).collect();
    expect.push(None);
    assert_eq!(channels, expect);
    let cl = image_layout(&[1, 3, 2, 2], &[12, 1, 6, 3], DType::UInt8).unwrap();
    let tint = TintSpec::for_image(&cl, 0).unwrap();
    let channels: Vec<Option<u32>> = (0..12).map(|e| tint.channel(e)).collect();
    assert_eq!(channels, (0..12).map(|e| Some(e % 3)).collect::<Vec<_>>());
    let strip = Grid::for_storage(12, DType::UInt8, Some(6));
    let scene = Scene::new(strip, bytes, Mode::Tint(tint));
    let vp = Viewport::fit(60.0, 20.0, 1.0, 2, 6);
    let frame = Frame::new(&vp, &scene.grid, None);
    let (r, g, b) = (
        scene.pixel(&frame, 5, 5),
        scene.pixel(&frame, 15, 5),
        scene.pixel(&frame, 25, 5),
    );
    assert!(r[0] > r[1] && g[1] > g[0] && b[2] > b[0]);
}

#[test]
fn every_alias_of_the_highlighted_element_is_drawn() {
    // x = arange(64).view(8, 8); y = x.t(); e = x[0].expand(8, 8): element 10 is y[2, 1]
    // and, in e (stride 0 rows), column 10 of no row; element 3 is e[i, 3] for every i.
    let values: Vec<f32> = (0..64).map(|v| v as f32).collect();
    let x = Grid::for_view(&spec(&[8, 8], &[1, 8], 0)).unwrap();
    let scene = Scene::new(x, values.clone(), Mode::Heat);
    let vp = Viewport::fit(80.0, 80.0, 1.0, 8, 8);
    let frame = Frame::new(&vp, &scene.grid, Some(10));
    assert_eq!(scene.pixel(&frame, 15 + 2, 25 + 2), HIGHLIGHT_COLOUR);
    assert_ne!(scene.pixel(&frame, 25 + 2, 15 + 2), HIGHLIGHT_COLOUR);
    let e = Grid::for_view(&spec(&[8, 8], &[0, 1], 0)).unwrap();
    assert_eq!(e.cells_at_offset(3, 100).len(), 8);
    let scene = Scene::new(e, values.clone(), Mode::Heat);
    let frame = Frame::new(&vp, &scene.grid, Some(3));
    for i in 0..8 {
        assert_eq!(scene.pixel(&frame, 35 + 4, i * 10 + 4), HIGHLIGHT_COLOUR);
    }
    // Far below one pixel per cell the ring still marks the alias.
    let big = Grid::for_view(&spec(&[4096, 4096], &[4096, 1], 0)).unwrap();
    let scene = Scene::new(big, vec![0.0; 4096 * 4096], Mode::Heat);
    let vp = Viewport::fit(256.0, 256.0, 1.0, 4096, 4096);
    let frame = Frame::new(&vp, &scene.grid, Some(2000 * 4096 + 3000));
    let [x0, y0, x1, y1] = frame.marks[0];
    assert_eq!((x1 - x0, y1 - y0), (MARK_MIN_DEVICE_PX, MARK_MIN_DEVICE_PX));
    assert!((x0..x1).contains(&(3000 / 16)) && (y0..y1).contains(&(2000 / 16)));
    assert_eq!(
        scene.pixel(&frame, (x0 - 1) as u32, (y0 + 2) as u32),
        HIGHLIGHT_COLOUR
    );
}

#[test]
fn grid_lines_and_separators_follow_the_thresholds() {
    let g = Grid::for_view(&spec(&[2, 3, 4], &[12, 4, 1], 0)).unwrap();
    let scene = Scene::new(g, (0..24).map(|v| v as f32).collect(), Mode::Heat);
    let vp = Viewport::fit(40.0, 60.0, 1.0, 6, 4);
    assert_eq!(vp.cell_px, 10.0);
    let frame = Frame::new(&vp, &scene.grid, None);
    assert!(frame.grid_lines && frame.separators);
    assert_eq!(scene.pixel(&frame, 5, 30), colour::SEPARATOR_COLOUR);
    assert_eq!(scene.pixel(&frame, 5, 20), colour::GRID_LINE_COLOUR);
    assert_eq!(scene.pixel(&frame, 10, 25), colour::GRID_LINE_COLOUR);
    let inside = scene.pixel(&frame, 15, 25);
    assert_eq!(inside, heat_colour(9.0, 0.0, scene.range.inv_span()));
    let small = Viewport::fit(4.0, 6.0, 1.0, 6, 4);
    let frame = Frame::new(&small, &scene.grid, None);
    assert!(!frame.grid_lines && !frame.separators);
}

#[test]
fn degenerate_viewports_stay_usable() {
    let mut vp = Viewport::fit(f64::NAN, f64::INFINITY, 0.0, 0, 0);
    assert!(vp.width >= 1.0 && vp.dpr == 1.0 && vp.cell_px.is_finite());
    vp.zoom_at(f64::NAN, 1.0, 1.0, 10, 10);
    vp.pan_by(f64::NAN, f64::INFINITY, 10, 10);
    assert!(vp.cell_px.is_finite() && vp.pan_x.is_finite() && vp.pan_y.is_finite());
    assert_eq!(vp.pick(f64::NAN, 0.0, 10, 10), None);
    assert_eq!(vp.pick(-1.0, 0.0, 10, 10), None);
    // A very long single row still maps pixels to cells and builds its pyramid's levels.
    let cols = 1 << 24;
    let vp = Viewport::fit(1920.0, 1080.0, 1.0, 1, cols);
    let map = vp.pixel_map();
    assert!(map.level > 10);
    assert!(map.col(0, cols).is_some_and(|c| c < 8739));
    assert!(map.col(1919, cols).is_some_and(|c| c > cols - 20_000));
    let empty = Scene::new(
        Grid::for_storage(0, DType::Float32, None),
        Vec::new(),
        Mode::Heat,
    );
    let frame = Frame::new(&Viewport::fit(8.0, 8.0, 1.0, 0, 0), &empty.grid, Some(0));
    assert!(empty.draw(&frame).iter().all(|&b| b == 0));
}
