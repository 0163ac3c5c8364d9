//! Drawing large views and storages with the GPU, straight from the engine's storage
//! buffers (`render.wgsl`, `minmax.wgsl`, `cells.wgsl` beside this file).
//!
//! [`GpuPainter::prepare_view`] binds a storage (a window of it where the storage is larger
//! than `max_storage_buffer_binding_size`) and, for heatmaps, builds the min/max/mean
//! pyramid and the value range with compute kernels: once, and again after the data change
//! ([`GpuPainter::refresh_view`]). A frame ([`GpuPainter::encode_frame`]) is one render pass
//! drawing one triangle over the target: its fragment shader maps the pixel to a cell and
//! reads the value from the storage buffer. No readback, no data copy; the frame's small
//! uniform block is written only when the pan, zoom or highlight changed. Pipelines and bind
//! groups are cached. The picture is [`crate::present::render::Scene::pixel`]'s, pixel for pixel.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::core::tensor::StorageId;
use crate::engines::gpu::GpuEngine;
use crate::painters::GpuPainter;
use crate::present::render::{Frame, Grid, GridKind, Mode};

/// `NO_WRAP` of cells.wgsl.
const NO_WRAP: u32 = u32::MAX;
/// Levels the frame uniform can describe.
const MAX_LEVELS: usize = 32;

/// Why a view is not drawn by the GPU (the page then draws it with the canvas-2D fallback
/// and says why).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderIssue {
    /// The storage is not (or no longer) the engine's.
    #[error("storage {0} is unknown to the GPU engine")]
    UnknownStorage(StorageId),
    /// The storage lives on the host only (larger than the device's buffers).
    #[error("storage {0} has no GPU buffer (it is larger than this adapter's max_buffer_size): it is not drawn by the GPU")]
    NoBuffer(StorageId),
    /// The elements the view reaches do not fit one binding.
    #[error("the view reaches {bytes} bytes of its storage, more than this adapter's max_storage_buffer_binding_size ({limit} bytes): it is not drawn by the GPU")]
    WindowTooLarge {
        /// Bytes the view spans.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
    },
    /// Offsets or cell counts beyond the shader's 32-bit arithmetic.
    #[error(
        "the view's {0} exceed the 2^31 the GPU renderer addresses: it is not drawn by the GPU"
    )]
    TooLarge(&'static str),
    /// The pyramid does not fit one buffer.
    #[error("the view's min/max pyramid needs {bytes} bytes, more than this adapter binds ({limit} bytes): it is not drawn by the GPU")]
    PyramidTooLarge {
        /// Bytes needed.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
    },
}

/// The uniform block `GridParams` of cells.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct GridParams {
    rows: u32,
    cols: u32,
    wrap_len: u32,
    row_dims: u32,
    offset: i32,
    col_stride: i32,
    channel_stride: i32,
    dtype: u32,
    window_first: i32,
    window_len: u32,
    mode: u32,
    scale: u32,
    tint_base: i32,
    tint_stride: i32,
    tint_lo: i32,
    tint_hi: i32,
    row_shape: [u32; 8],
    row_stride: [i32; 8],
}

/// The uniform block `LevelParams` of minmax.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, PartialEq)]
struct LevelParams {
    src_base: u32,
    src_rows: u32,
    src_cols: u32,
    dst_base: u32,
    dst_rows: u32,
    dst_cols: u32,
    pad: [u32; 2],
}

/// The uniform block `FrameParams` of render.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, PartialEq)]
struct FrameParams {
    step: [u32; 2],
    origin_x: [u32; 2],
    origin_y: [u32; 2],
    level: u32,
    flags: u32,
    highlight: i32,
    slice_rows: u32,
    n_marks: u32,
    lv_shift: u32,
    marks: [[i32; 4]; 16],
    lv_base: u32,
    lv_rows: u32,
    lv_cols: u32,
    pad: u32,
}

/// One level-building dispatch of a view's pyramid.
struct LevelPass {
    bind_group: wgpu::BindGroup,
    invocations: u64,
    first: bool,
}

/// A view or storage prepared for drawing (see the module documentation). It holds the
/// storage's buffer: prepare it again when the storage is freed or replaced.
pub struct GpuView {
    grid: Grid,
    mode: Mode,
    storage: StorageId,
    /// Pyramid levels: (first node, rows, cols).
    levels: Vec<(u32, u32, u32)>,
    level_passes: Vec<LevelPass>,
    finalize: Option<wgpu::BindGroup>,
    frame_uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    range: wgpu::Buffer,
    last_frame: Option<FrameParams>,
}

impl GpuView {
    /// Starts reading a heatmap's range `[lo, hi, inv_span]` as the GPU computed it (one
    /// small asynchronous read).
    pub fn read_range(
        &self,
        gpu: &GpuEngine,
    ) -> impl std::future::Future<Output = Result<[f32; 3], crate::engines::gpu::GpuError>> + 'static
    {
        let staging = gpu.staged_copy(&self.range);
        let (future, resolve) = crate::engines::gpu::kernels::oneshot();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            resolve(r.map_err(|e| e.to_string()));
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = gpu.device().poll(wgpu::PollType::wait_indefinitely());
        async move {
            future.await.map_err(crate::engines::gpu::GpuError::Map)?;
            let out = {
                let bytes = staging
                    .get_mapped_range(..)
                    .map_err(|e| crate::engines::gpu::GpuError::Map(e.to_string()))?;
                let f: &[f32] = bytemuck::cast_slice(&bytes[..12]);
                [f[0], f[1], f[2]]
            };
            staging.unmap();
            Ok(out)
        }
    }
    /// The grid drawn.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// How its cells are coloured.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The storage drawn.
    pub fn storage(&self) -> StorageId {
        self.storage
    }
}

/// The format of frames read back.
pub(crate) const READBACK_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// An offscreen frame target and the buffer its pixels are read back through: for what
/// needs the pixels on the CPU (the native render-bench and tests). The page presents its
/// frames on the canvas instead (`present.rs`).
pub struct FrameReadback {
    texture: wgpu::Texture,
    /// The texture frames are drawn into (of [`READBACK_FORMAT`]).
    pub(crate) view: wgpu::TextureView,
    buffer: wgpu::Buffer,
    size: (u32, u32),
    row: u64,
}

/// Where a frame is drawn: a texture view and its format.
#[derive(Clone, Copy, Debug)]
pub struct FrameTarget<'a> {
    /// The texture view drawn into (the size of the frame).
    pub view: &'a wgpu::TextureView,
    /// Its format (the frame pipelines are specialized on it).
    pub format: wgpu::TextureFormat,
}

impl FrameReadback {
    /// An offscreen target of `width` × `height` device pixels whose frames are read back
    /// ([`GpuPainter::draw_and_read`]).
    pub fn new(gpu: &GpuEngine, width: u32, height: u32) -> FrameReadback {
        let (width, height) = (width.max(1), height.max(1));
        let texture = gpu.device().create_texture(&wgpu::TextureDescriptor {
            label: Some("stridescope page frame"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: READBACK_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let row = (u64::from(width) * 4).div_ceil(256) * 256;
        let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope page frame read"),
            size: row * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        FrameReadback {
            texture,
            view,
            buffer,
            size: (width, height),
            row,
        }
    }

    /// Its size in device pixels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Encodes the copy of the drawn texture into the read-back buffer.
    pub(crate) fn encode_copy(&self, encoder: &mut wgpu::CommandEncoder) {
        let (width, height) = self.size;
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.row as u32),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Starts reading the pixels the submitted [`FrameReadback::encode_copy`] copied (RGBA,
    /// row-major, without the rows' padding). Natively it waits for the GPU.
    pub(crate) fn read_pixels(
        &self,
        device: &wgpu::Device,
    ) -> impl std::future::Future<Output = Result<Vec<u8>, crate::engines::gpu::GpuError>> + 'static
    {
        let buffer = self.buffer.clone();
        let (future, resolve) = crate::engines::gpu::kernels::oneshot();
        buffer.map_async(wgpu::MapMode::Read, .., move |r| {
            resolve(r.map_err(|e| e.to_string()));
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        #[cfg(target_arch = "wasm32")]
        let _ = device;
        let (row, tight, height) = (self.row as usize, self.size.0 as usize * 4, self.size.1);
        async move {
            future.await.map_err(crate::engines::gpu::GpuError::Map)?;
            let out = {
                let bytes = buffer
                    .get_mapped_range(..)
                    .map_err(|e| crate::engines::gpu::GpuError::Map(e.to_string()))?;
                let mut out = Vec::with_capacity(tight * height as usize);
                for r in bytes.chunks(row) {
                    out.extend_from_slice(&r[..tight.min(r.len())]);
                }
                out
            };
            buffer.unmap();
            Ok(out)
        }
    }
}

/// The i64 as the shader's (lo, hi) pair.
fn pair(v: i64) -> [u32; 2] {
    let u = v as u64;
    [u as u32, (u >> 32) as u32]
}

fn i32_of(v: i64, what: &'static str) -> Result<i32, RenderIssue> {
    i32::try_from(v).map_err(|_| RenderIssue::TooLarge(what))
}

/// The lowest and highest storage element the grid's cells (and channels) read.
fn grid_extent(grid: &Grid) -> Option<(i64, i64)> {
    if grid.rows == 0 || grid.cols == 0 {
        return None;
    }
    let mut dims: Vec<(i64, i64)> = match grid.wrap_len {
        Some(len) => vec![(len as i64, grid.col_stride)],
        None => grid
            .row_shape
            .iter()
            .zip(&grid.row_stride)
            .map(|(&n, &s)| (n as i64, s))
            .chain([(grid.cols as i64, grid.col_stride)])
            .collect(),
    };
    if grid.kind == GridKind::Image {
        dims.push((3, grid.channel_stride));
    }
    let (mut lo, mut hi) = (grid.offset, grid.offset);
    for (n, s) in dims {
        let reach = (n - 1).saturating_mul(s);
        lo = lo.saturating_add(reach.min(0));
        hi = hi.saturating_add(reach.max(0));
    }
    Some((lo, hi))
}

impl GpuPainter {
    /// Binds `grid` of storage `storage` for drawing in `mode`, and (heatmaps) builds its
    /// pyramid and range on the GPU. `grid` must describe a view of that storage.
    pub fn prepare_view(
        &mut self,
        gpu: &GpuEngine,
        storage: StorageId,
        grid: Grid,
        mode: Mode,
    ) -> Result<GpuView, RenderIssue> {
        let entry = gpu
            .storage_buffer(storage)
            .ok_or(RenderIssue::UnknownStorage(storage))?;
        let buffer = entry.buffer.ok_or(RenderIssue::NoBuffer(storage))?;
        let item = grid.dtype.item_size() as u64;
        let elements = entry.nbytes as u64 / item;
        if elements >= 1 << 31 {
            return Err(RenderIssue::TooLarge("storage elements"));
        }
        if (grid.rows as u64).saturating_mul(grid.cols as u64) >= 1 << 31 {
            return Err(RenderIssue::TooLarge("cells"));
        }
        let limit = gpu.limits().max_storage_buffer_binding_size;
        let (window_first, window_bytes, binding) = if buffer.size() <= limit {
            (0u64, buffer.size(), None)
        } else {
            let (lo, hi) = grid_extent(&grid).unwrap_or((0, 0));
            let align = u64::from(gpu.limits().min_storage_buffer_offset_alignment.max(4));
            let start = (lo.max(0) as u64 * item) / align * align;
            let end = ((hi.max(0) as u64 + 1) * item).div_ceil(4) * 4;
            let end = end.min(buffer.size()).max(start + 4);
            if end - start > limit {
                return Err(RenderIssue::WindowTooLarge {
                    bytes: end - start,
                    limit,
                });
            }
            (start, end - start, Some((start, end - start)))
        };
        let (lo, hi) = grid_extent(&grid).unwrap_or((0, 0));
        i32_of(lo, "storage offsets")?;
        i32_of(hi, "storage offsets")?;
        let params = self.grid_params(&grid, mode, window_first / item, window_bytes / item)?;
        let levels = if mode == Mode::Heat {
            self.plan_levels(gpu, &grid)?
        } else {
            Vec::new()
        };
        let nodes: u64 = levels
            .last()
            .map_or(1, |&(b, r, c)| u64::from(b) + u64::from(r) * u64::from(c));
        let device = gpu.device().clone();
        let grid_uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("stridescope grid"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let pyramid = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope pyramid"),
            size: nodes * 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let range = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope range"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let frame_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope frame"),
            size: std::mem::size_of::<FrameParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let data = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &buffer,
            offset: binding.map_or(0, |b| b.0),
            size: binding.and_then(|b| wgpu::BufferSize::new(b.1)),
        });
        let layouts = self.render_layouts(gpu);
        let bind = |layout: &wgpu::BindGroupLayout,
                    level: &wgpu::Buffer,
                    colormap: Option<&wgpu::Buffer>| {
            let mut entries = vec![
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: grid_uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: data.clone(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: level.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: pyramid.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: range.as_entire_binding(),
                },
            ];
            if let Some(colormap) = colormap {
                entries.push(wgpu::BindGroupEntry {
                    binding: 5,
                    resource: colormap.as_entire_binding(),
                });
            }
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout,
                entries: &entries,
            })
        };
        let frame_bind_group = bind(&layouts.render_bgl, &frame_uniform, Some(&layouts.colormap));
        let mut level_passes = Vec::new();
        let mut previous: Option<(u32, u32, u32)> = None;
        for &(base, rows, cols) in &levels {
            let (src_base, src_rows, src_cols) = previous.unwrap_or((0, 0, 0));
            let p = LevelParams {
                src_base,
                src_rows,
                src_cols,
                dst_base: base,
                dst_rows: rows,
                dst_cols: cols,
                pad: [0; 2],
            };
            let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("stridescope level"),
                contents: bytemuck::bytes_of(&p),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            level_passes.push(LevelPass {
                bind_group: bind(&layouts.minmax_bgl, &uniform, None),
                invocations: u64::from(rows) * u64::from(cols),
                first: previous.is_none(),
            });
            previous = Some((base, rows, cols));
        }
        let finalize = previous.map(|(base, _, _)| {
            let p = LevelParams {
                src_base: base,
                src_rows: 1,
                src_cols: 1,
                dst_base: 0,
                dst_rows: 0,
                dst_cols: 0,
                pad: [0; 2],
            };
            let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("stridescope range params"),
                contents: bytemuck::bytes_of(&p),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            bind(&layouts.minmax_bgl, &uniform, None)
        });
        let view = GpuView {
            grid,
            mode,
            storage,
            levels,
            level_passes,
            finalize,
            frame_uniform,
            frame_bind_group,
            range,
            last_frame: None,
        };
        self.refresh_view(gpu, &view);
        Ok(view)
    }

    /// Rebuilds a heatmap's pyramid and range from its storage (after the data changed).
    pub fn refresh_view(&mut self, gpu: &GpuEngine, view: &GpuView) {
        let Some(finalize) = &view.finalize else {
            return;
        };
        let grids: Vec<(u32, u32)> = view
            .level_passes
            .iter()
            .map(|p| gpu.grid(p.invocations))
            .collect();
        let layouts = self.render_layouts(gpu);
        let build_cells = self.cell_pipeline(gpu, &view.grid);
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            for (p, g) in view.level_passes.iter().zip(grids) {
                pass.set_pipeline(if p.first {
                    &build_cells
                } else {
                    &layouts.build_level
                });
                pass.set_bind_group(0, &p.bind_group, &[]);
                pass.dispatch_workgroups(g.0, g.1, 1);
            }
            pass.set_pipeline(&layouts.finalize);
            pass.set_bind_group(0, finalize, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        gpu.queue().submit([encoder.finish()]);
    }

    /// The uniform block describing `grid` and its storage window.
    fn grid_params(
        &self,
        grid: &Grid,
        mode: Mode,
        window_first: u64,
        window_len: u64,
    ) -> Result<GridParams, RenderIssue> {
        let mut row_shape = [1u32; 8];
        let mut row_stride = [0i32; 8];
        for (k, (&n, &s)) in grid.row_shape.iter().zip(&grid.row_stride).enumerate() {
            row_shape[k] = u32::try_from(n).map_err(|_| RenderIssue::TooLarge("cells"))?;
            row_stride[k] = i32_of(s, "strides")?;
        }
        let (mode_code, scale, tint) = match mode {
            Mode::Heat => (0, 0, None),
            Mode::Rgb(scale) => (1, scale.code(), None),
            Mode::Tint(t) => (2, t.scale.code(), Some(t)),
        };
        let clamp32 = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        Ok(GridParams {
            rows: grid.rows as u32,
            cols: grid.cols as u32,
            wrap_len: grid.wrap_len.map_or(NO_WRAP, |l| l as u32),
            row_dims: grid.row_shape.len() as u32,
            offset: i32_of(grid.offset, "storage offsets")?,
            col_stride: i32_of(grid.col_stride, "strides")?,
            channel_stride: i32_of(grid.channel_stride, "strides")?,
            dtype: crate::engines::gpu::kernels::dtype_code(grid.dtype),
            window_first: window_first as i32,
            window_len: window_len as u32,
            mode: mode_code,
            scale,
            tint_base: tint.map_or(0, |t| clamp32(t.base)),
            tint_stride: tint.map_or(1, |t| clamp32(t.channel_stride).max(1)),
            tint_lo: tint.map_or(0, |t| clamp32(t.lo)),
            tint_hi: tint.map_or(0, |t| clamp32(t.hi)),
            row_shape,
            row_stride,
        })
    }

    /// The pyramid's levels (first node, rows, cols), checked against the binding limit.
    fn plan_levels(
        &self,
        gpu: &GpuEngine,
        grid: &Grid,
    ) -> Result<Vec<(u32, u32, u32)>, RenderIssue> {
        let mut levels = Vec::new();
        if grid.rows == 0 || grid.cols == 0 {
            return Ok(levels);
        }
        let (mut rows, mut cols, mut base) = (grid.rows as u64, grid.cols as u64, 0u64);
        loop {
            rows = rows.div_ceil(2);
            cols = cols.div_ceil(2);
            levels.push((base as u32, rows as u32, cols as u32));
            base += rows * cols;
            if rows == 1 && cols == 1 {
                break;
            }
        }
        let bytes = base * 16;
        let limit = gpu
            .limits()
            .max_storage_buffer_binding_size
            .min(gpu.limits().max_buffer_size);
        if bytes > limit || levels.len() > MAX_LEVELS {
            return Err(RenderIssue::PyramidTooLarge { bytes, limit });
        }
        Ok(levels)
    }

    /// The frame's uniform block.
    fn frame_params(view: &GpuView, frame: &Frame) -> FrameParams {
        let mut p = FrameParams::zeroed();
        p.step = pair(frame.map.step);
        p.origin_x = pair(frame.map.origin_x);
        p.origin_y = pair(frame.map.origin_y);
        p.level = frame.map.level;
        let highlight = frame.highlight.and_then(|h| i32::try_from(h).ok());
        p.flags = u32::from(frame.grid_lines)
            | (u32::from(frame.separators && view.grid.slice_rows > 0) << 1)
            | (u32::from(highlight.is_some()) << 2);
        p.highlight = highlight.unwrap_or(0);
        p.slice_rows = view.grid.slice_rows as u32;
        let clamp32 = |v: i64| v.clamp(-(1 << 24), 1 << 24) as i32;
        for (slot, m) in p.marks.iter_mut().zip(&frame.marks) {
            *slot = m.map(clamp32);
            p.n_marks += 1;
        }
        // The level pixels read, clamped to the top (`Pyramid::footprint_value`).
        let l = (frame.map.level.max(1) as usize).min(view.levels.len());
        if let Some(&(base, rows, cols)) = l.checked_sub(1).and_then(|i| view.levels.get(i)) {
            p.lv_shift = l as u32;
            p.lv_base = base;
            p.lv_rows = rows;
            p.lv_cols = cols;
        }
        p
    }

    /// Encodes one frame of `view` into `target` (a texture view of `format`, the size of
    /// `frame.size`), with optional timestamp writes around the pass.
    pub fn encode_frame(
        &mut self,
        gpu: &GpuEngine,
        encoder: &mut wgpu::CommandEncoder,
        view: &mut GpuView,
        frame: &Frame,
        target: FrameTarget<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) {
        let params = Self::frame_params(view, frame);
        if view.last_frame != Some(params) {
            gpu.queue()
                .write_buffer(&view.frame_uniform, 0, bytemuck::bytes_of(&params));
            view.last_frame = Some(params);
        }
        let pipeline = self.frame_pipeline(gpu, target.format, view, frame);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("stridescope frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &view.frame_bind_group, &[]);
        pass.draw(0..3, 0..1);
    }

    /// Draws one frame of `view` into `target` and submits it.
    pub fn draw_frame(
        &mut self,
        gpu: &GpuEngine,
        view: &mut GpuView,
        frame: &Frame,
        target: FrameTarget<'_>,
    ) {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        self.encode_frame(gpu, &mut encoder, view, frame, target, None);
        gpu.queue().submit([encoder.finish()]);
    }

    /// Draws one frame of `view` into `target` (of `frame.size`) and starts reading its
    /// pixels back (RGBA, row-major): one render pass and one copy of the frame's pixels,
    /// never of the data. Read one frame at a time per target.
    pub fn draw_and_read(
        &mut self,
        gpu: &GpuEngine,
        view: &mut GpuView,
        frame: &Frame,
        target: &FrameReadback,
    ) -> impl std::future::Future<Output = Result<Vec<u8>, crate::engines::gpu::GpuError>> + 'static
    {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        self.encode_frame(
            gpu,
            &mut encoder,
            view,
            frame,
            FrameTarget {
                view: &target.view,
                format: READBACK_FORMAT,
            },
            None,
        );
        target.encode_copy(&mut encoder);
        gpu.queue().submit([encoder.finish()]);
        target.read_pixels(gpu.device())
    }
}
