//! `stridescope render-bench`: GPU frames of large views, offscreen at 1920×1080, timed and
//! verified against the CPU reference colouring ([`crate::present::render::Scene::pixel`]).
//!
//! Views of 150,544 (388²), 1,048,576 (1024²) and 16,777,216 (4096²) f32 cells, contiguous
//! and transposed, at the zoom that fits them. `frame_ms` is the median GPU time of one
//! frame's render pass (timestamp queries where the adapter has `TIMESTAMP_QUERY`, else
//! submit to done); `frame_wall_ms` the median wall time of a frame from submit to done, as
//! the page presents it (no read-back); `readback_ms` the median wall time of a frame drawn
//! and read back to the CPU (the render pass, the copy into a buffer, `map_async` and the
//! copy out), as the page did before it presented on the canvas; `verified` is true when
//! every sampled pixel of the read-back frame equals the CPU reference and the GPU's value
//! range equals the CPU's.

use std::time::Instant;

use serde::Serialize;

use crate::core::tensor::{DType, StorageId};
use crate::engines::gpu::{GpuEngine, GpuError};
use crate::engines::Engine;
use crate::painters::render::{FrameReadback, FrameTarget, GpuView, RenderIssue, READBACK_FORMAT};
use crate::painters::GpuPainter;
use crate::present::render::{storage_values, Frame, Grid, Mode, Scene, ViewSpec, Viewport};

/// The benchmark's canvas, in device pixels.
pub const WIDTH: u32 = 1920;
/// The benchmark's canvas, in device pixels.
pub const HEIGHT: u32 = 1080;
/// Frames timed per case.
const FRAMES: usize = 15;
/// Pixels compared per frame (besides every pixel of a coarse lattice).
const SAMPLES: usize = 20_000;

/// An offscreen RGBA8 target, its readback buffer and (where the adapter has them)
/// timestamp queries.
pub struct Offscreen {
    target: FrameReadback,
    timer: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
}

impl Offscreen {
    /// A `width` × `height` target (width a multiple of 64 reads back without padding).
    pub fn new(gpu: &GpuEngine, width: u32, height: u32) -> Offscreen {
        let device = gpu.device();
        let target = FrameReadback::new(gpu, width, height);
        let timer = device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| {
                let set = device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("stridescope frame timer"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                });
                let resolve = device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: 16,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let read = device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: 16,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                (set, resolve, read)
            });
        Offscreen { target, timer }
    }

    /// True when frames are timed with timestamp queries.
    pub fn has_timestamps(&self) -> bool {
        self.timer.is_some()
    }

    /// Draws one frame, waits for it, and returns its GPU time in milliseconds (timestamp
    /// queries; else submit to done).
    pub fn draw(
        &self,
        gpu: &GpuEngine,
        painter: &mut GpuPainter,
        view: &mut GpuView,
        frame: &Frame,
    ) -> f64 {
        self.draw_timed(gpu, painter, view, frame).0
    }

    /// Draws one frame and reads its pixels back (the render pass, the copy, `map_async`
    /// and the copy out of the mapped buffer); returns the wall time in milliseconds and the
    /// bytes read.
    pub fn draw_and_read(
        &self,
        gpu: &GpuEngine,
        painter: &mut GpuPainter,
        view: &mut GpuView,
        frame: &Frame,
    ) -> (f64, usize) {
        let start = Instant::now();
        let read = painter.draw_and_read(gpu, view, frame, &self.target);
        let bytes = pollster::block_on(read).map(|p| p.len()).unwrap_or(0);
        (start.elapsed().as_secs_f64() * 1000.0, bytes)
    }

    /// [`Offscreen::draw`], also returning the wall time from submit to done.
    fn draw_timed(
        &self,
        gpu: &GpuEngine,
        painter: &mut GpuPainter,
        view: &mut GpuView,
        frame: &Frame,
    ) -> (f64, f64) {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let writes = self
            .timer
            .as_ref()
            .map(|(set, _, _)| wgpu::RenderPassTimestampWrites {
                query_set: set,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
        painter.encode_frame(
            gpu,
            &mut encoder,
            view,
            frame,
            FrameTarget {
                view: &self.target.view,
                format: READBACK_FORMAT,
            },
            writes,
        );
        if let Some((set, resolve, read)) = &self.timer {
            encoder.resolve_query_set(set, 0..2, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, read, 0, 16);
        }
        let start = Instant::now();
        gpu.queue().submit([encoder.finish()]);
        gpu.wait_idle();
        let wall = start.elapsed().as_secs_f64() * 1000.0;
        let Some((_, _, read)) = &self.timer else {
            return (wall, wall);
        };
        match map_blocking(gpu, read) {
            Ok(bytes) => {
                let t: &[u64] = bytemuck::cast_slice(&bytes[..16]);
                let period = f64::from(gpu.queue().get_timestamp_period());
                (t[1].saturating_sub(t[0]) as f64 * period / 1e6, wall)
            }
            Err(_) => (wall, wall),
        }
    }

    /// The last frame's pixels, RGBA, row-major.
    pub fn read(&self, gpu: &GpuEngine) -> Result<Vec<u8>, GpuError> {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        self.target.encode_copy(&mut encoder);
        gpu.queue().submit([encoder.finish()]);
        pollster::block_on(self.target.read_pixels(gpu.device()))
    }
}

/// Maps a `MAP_READ` buffer and copies it out (blocking).
fn map_blocking(gpu: &GpuEngine, buffer: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = sender.send(r);
    });
    gpu.wait_idle();
    match receiver.try_recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(GpuError::Map(e.to_string())),
        Err(e) => return Err(GpuError::Map(e.to_string())),
    }
    let bytes = buffer
        .get_mapped_range(..)
        .map_err(|e| GpuError::Map(e.to_string()))?
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}

/// Pixels of `frame` where the GPU's `pixels` differ from the CPU reference, among a
/// lattice every 16 pixels and `samples` pseudo-random pixels; returns (compared,
/// mismatches as (x, y, gpu, cpu), at most 8 kept).
#[allow(clippy::type_complexity)]
pub fn compare(
    scene: &Scene,
    frame: &Frame,
    pixels: &[u8],
    samples: usize,
    seed: u64,
) -> (usize, usize, Vec<(u32, u32, [u8; 4], [u8; 4])>) {
    let (w, h) = frame.size;
    let mut points: Vec<(u32, u32)> = Vec::new();
    for y in (0..h).step_by(16) {
        for x in (0..w).step_by(16) {
            points.push((x, y));
        }
    }
    let mut state = seed | 1;
    for _ in 0..samples {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        points.push((
            (state % u64::from(w)) as u32,
            ((state >> 32) % u64::from(h)) as u32,
        ));
    }
    let mut bad = 0;
    let mut examples = Vec::new();
    for &(x, y) in &points {
        let at = (y as usize * w as usize + x as usize) * 4;
        let gpu: [u8; 4] = [pixels[at], pixels[at + 1], pixels[at + 2], pixels[at + 3]];
        let cpu = scene.pixel(frame, x, y);
        if gpu != cpu {
            bad += 1;
            if examples.len() < 8 {
                examples.push((x, y, gpu, cpu));
            }
        }
    }
    (points.len(), bad, examples)
}

/// One case's figures.
#[derive(Clone, Debug, Serialize)]
pub struct RenderResult {
    /// Cells in the view.
    pub cells: usize,
    /// Frame width in device pixels.
    pub width: u32,
    /// Frame height in device pixels.
    pub height: u32,
    /// `contiguous` or `transposed`.
    pub layout: String,
    /// The view's shape.
    pub shape: Vec<usize>,
    /// The cell size at fit zoom (CSS = device pixels here).
    pub cell_px: f64,
    /// The pyramid level pixels read (0: one cell or more per pixel).
    pub level: u32,
    /// Median GPU time of one frame, in milliseconds.
    pub frame_ms: f64,
    /// Median wall time of one frame from submit to done, without a read-back (as the page
    /// presents frames), in milliseconds.
    pub frame_wall_ms: f64,
    /// Median wall time of one frame drawn and read back to the CPU, in milliseconds.
    pub readback_ms: f64,
    /// Bytes one read-back moves (the frame's RGBA rows, padded to 256 bytes).
    pub readback_bytes: usize,
    /// `timestamp` or `submit` (how frames were timed).
    pub timing: String,
    /// Building the pyramid and range (once per data change), in milliseconds.
    pub prepare_ms: f64,
    /// Every sampled pixel equals the CPU reference, and so does the range.
    pub verified: bool,
    /// Pixels compared.
    pub compared: usize,
}

/// The report of `stridescope render-bench`.
#[derive(Clone, Debug, Serialize)]
pub struct RenderBenchReport {
    /// The adapter's name.
    pub adapter: String,
    /// Its backend.
    pub backend: String,
    /// One result per case.
    pub results: Vec<RenderResult>,
}

impl RenderBenchReport {
    /// The 16.7M-cell frame's cost over the 150k-cell frame's, per layout.
    pub fn ratios(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        for layout in ["contiguous", "transposed"] {
            let of = |cells: usize| {
                self.results
                    .iter()
                    .find(|r| r.layout == layout && r.cells == cells)
                    .map(|r| r.frame_ms)
            };
            if let (Some(small), Some(big)) = (of(388 * 388), of(4096 * 4096)) {
                out.push((layout.to_string(), big / small.max(1e-9)));
            }
        }
        out
    }

    /// A plain-text table.
    pub fn table(&self) -> String {
        let mut s = format!("render-bench on {} ({})\n", self.adapter, self.backend);
        s += "cells       layout      frame      wall     +readback  cell px  level  timing     prepare   verified\n";
        for r in &self.results {
            s += &format!(
                "{:<11} {:<11} {:>7.2} ms {:>7.2} ms {:>7.2} ms {:>7.3} {:>6}  {:<9} {:>7.1} ms {}\n",
                r.cells,
                r.layout,
                r.frame_ms,
                r.frame_wall_ms,
                r.readback_ms,
                r.cell_px,
                r.level,
                r.timing,
                r.prepare_ms,
                r.verified
            );
        }
        for (layout, ratio) in self.ratios() {
            s += &format!("16.7M / 150k frame ({layout}): {ratio:.2}x\n");
        }
        s
    }
}

/// Deterministic f32 values in [-1, 1) with a few outliers, as storage bytes.
pub fn sample_values(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = Vec::with_capacity(n * 4);
    for i in 0..n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = if i % 100_003 == 7 {
            40.0
        } else {
            ((state >> 40) as f32 / (1u64 << 23) as f32) - 1.0
        };
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// One prepared case.
struct Case {
    side: usize,
    transposed: bool,
    grid: Grid,
    view: GpuView,
    viewport: Viewport,
    frame: Frame,
    prepare_ms: f64,
    times: Vec<f64>,
    walls: Vec<f64>,
    reads: Vec<f64>,
    read_bytes: usize,
}

/// Prepares the contiguous and transposed views of an `side` × `side` f32 storage.
fn prepare(
    gpu: &mut GpuEngine,
    storage: StorageId,
    side: usize,
    painter: &mut GpuPainter,
    target: &Offscreen,
) -> Result<Vec<Case>, RenderIssue> {
    let s = side as i64;
    let mut cases = Vec::new();
    for transposed in [false, true] {
        let stride = if transposed { [1, s] } else { [s, 1] };
        let spec = ViewSpec::new(&[s, s], &stride, 0, DType::Float32);
        let grid = Grid::for_view(&spec).map_err(|_| RenderIssue::TooLarge("dims"))?;
        let start = Instant::now();
        let view = painter.prepare_view(gpu, storage, grid.clone(), Mode::Heat)?;
        gpu.wait_idle();
        let prepare_ms = start.elapsed().as_secs_f64() * 1000.0;
        let (width, height) = target.target.size();
        let viewport = Viewport::fit(f64::from(width), f64::from(height), 1.0, side, side);
        let frame = Frame::new(&viewport, &grid, None);
        cases.push(Case {
            side,
            transposed,
            grid,
            view,
            viewport,
            frame,
            prepare_ms,
            times: Vec::new(),
            walls: Vec::new(),
            reads: Vec::new(),
            read_bytes: 0,
        });
    }
    Ok(cases)
}

/// Verifies a case's last frame against the CPU reference and makes its result.
fn finish(
    gpu: &mut GpuEngine,
    painter: &mut GpuPainter,
    target: &Offscreen,
    mut case: Case,
    bytes: &[u8],
) -> RenderResult {
    target.draw(gpu, painter, &mut case.view, &case.frame);
    let pixels = target.read(gpu).unwrap_or_default();
    let n = case.side * case.side;
    let scene = Scene::new(case.grid, storage_values(bytes, DType::Float32), Mode::Heat);
    let gpu_range = pollster::block_on(case.view.read_range(gpu)).ok();
    let range_ok = gpu_range == Some([scene.range.lo, scene.range.hi, scene.range.inv_span()]);
    let (width, height) = target.target.size();
    let (compared, bad, _) = if pixels.len() == (width * height * 4) as usize {
        compare(&scene, &case.frame, &pixels, SAMPLES, n as u64)
    } else {
        (0, 1, Vec::new())
    };
    let median = |xs: &mut Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let round = |ms: f64| (ms * 1000.0).round() / 1000.0;
    let frame_ms = median(&mut case.times);
    let frame_wall_ms = median(&mut case.walls);
    let readback_ms = median(&mut case.reads);
    RenderResult {
        cells: n,
        width,
        height,
        layout: if case.transposed {
            "transposed"
        } else {
            "contiguous"
        }
        .to_string(),
        shape: vec![case.side, case.side],
        cell_px: case.viewport.cell_px,
        level: case.frame.map.level,
        frame_ms: round(frame_ms),
        frame_wall_ms: round(frame_wall_ms),
        readback_ms: round(readback_ms),
        readback_bytes: case.read_bytes,
        timing: if target.has_timestamps() {
            "timestamp"
        } else {
            "submit"
        }
        .to_string(),
        prepare_ms: (case.prepare_ms * 10.0).round() / 10.0,
        verified: bad == 0 && range_ok && compared > 0,
        compared,
    }
}

/// Runs every case; `progress` gets one line per finished case. All views are prepared
/// first and their frames are timed in turns (round robin), so that a change of load on
/// the machine weighs on every case alike.
pub fn run(gpu: &mut GpuEngine, progress: &mut dyn FnMut(&str)) -> RenderBenchReport {
    let info = gpu.adapter_info().clone();
    let target = Offscreen::new(gpu, WIDTH, HEIGHT);
    let mut painter = GpuPainter::new();
    let mut storages = Vec::new();
    let mut cases = Vec::new();
    for side in [388usize, 1024, 4096] {
        let bytes = sample_values(side * side, side as u64);
        let storage = gpu.allocate_with(bytes.clone());
        match prepare(gpu, storage, side, &mut painter, &target) {
            Ok(c) => cases.extend(c),
            Err(e) => progress(&format!("{side}x{side}: not drawn: {e}")),
        }
        storages.push((side, storage, bytes));
    }
    for case in &mut cases {
        target.draw(gpu, &mut painter, &mut case.view, &case.frame);
    }
    for _ in 0..FRAMES {
        for case in &mut cases {
            let (ms, wall) = target.draw_timed(gpu, &mut painter, &mut case.view, &case.frame);
            case.times.push(ms);
            case.walls.push(wall);
            let (read, bytes) =
                target.draw_and_read(gpu, &mut painter, &mut case.view, &case.frame);
            case.reads.push(read);
            case.read_bytes = bytes;
        }
    }
    let mut results = Vec::new();
    for case in cases {
        let Some((_, _, bytes)) = storages.iter().find(|(side, _, _)| *side == case.side) else {
            continue;
        };
        let r = finish(gpu, &mut painter, &target, case, bytes);
        progress(&format!(
            "{} cells {}: {:.2} ms/frame (level {}; {:.2} ms submit to done, {:.2} ms with a read-back), verified {}",
            r.cells, r.layout, r.frame_ms, r.level, r.frame_wall_ms, r.readback_ms, r.verified
        ));
        results.push(r);
    }
    for (_, storage, _) in storages {
        gpu.free(storage);
    }
    RenderBenchReport {
        adapter: info.name,
        backend: format!("{:?}", info.backend),
        results,
    }
}
