//! Kernel families, pipeline cache, dispatch, and the data-movement ops (copy, fill).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::core::tensor::{DType, Scalar, Tensor};
use crate::engines::gpu::plan::{is_non_overlapping, IterPlan, PlanIssue, MAX_KERNEL_RANK};
use crate::engines::gpu::GpuEngine;

/// Invocations per workgroup (the `WORKGROUP` constant of `common.wgsl`).
pub const WORKGROUP: u64 = 64;

/// Shared helpers prepended to every family's source.
const COMMON_WGSL: &str = wgsl!("common");

/// One WGSL file per kernel family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Gather,
    Fill,
    Transpose,
    Elementwise,
    Reduce,
    Matmul,
}

impl Family {
    fn source(self) -> &'static str {
        match self {
            Family::Gather => wgsl!("gather"),
            Family::Fill => wgsl!("fill"),
            Family::Transpose => wgsl!("transpose"),
            Family::Elementwise => wgsl!("elementwise"),
            Family::Reduce => wgsl!("reduce"),
            Family::Matmul => wgsl!("matmul"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Family::Gather => "gather",
            Family::Fill => "fill",
            Family::Transpose => "transpose",
            Family::Elementwise => "elementwise",
            Family::Reduce => "reduce",
            Family::Matmul => "matmul",
        }
    }
}

/// The shader source, or (natively, when `STRIDESCOPE_SHADER_DIR` is set, for shader
/// development without rebuilding) the file `NAME.wgsl` in that folder.
fn dev_source(name: &str, built_in: &'static str) -> String {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(dir) = std::env::var_os("STRIDESCOPE_SHADER_DIR") {
        let path = std::path::Path::new(&dir).join(format!("{name}.wgsl"));
        if let Ok(text) = std::fs::read_to_string(path) {
            return text;
        }
    }
    let _ = name;
    built_in.to_string()
}

/// The dtype code the shaders use (`DT_*` in `common.wgsl`).
pub fn dtype_code(dtype: DType) -> u32 {
    match dtype {
        DType::Bool => 0,
        DType::UInt8 => 1,
        DType::Int8 => 2,
        DType::Int16 => 3,
        DType::Int32 => 4,
        DType::Int64 => 5,
        DType::Float16 => 6,
        DType::BFloat16 => 7,
        DType::Float32 => 8,
        DType::Float64 => 9,
        // The evaluator hands complex tensors to the engines as their `view_as_real`
        // (float halves), so a complex code is its half's code.
        DType::Complex64 => 8,
        DType::Complex128 => 9,
    }
}

/// The raw bits of `value` stored as `dtype` (`DType::write`), as (lo, hi) words.
pub fn value_bits(dtype: DType, value: Scalar) -> [u32; 2] {
    let mut buf = [0u8; 8];
    dtype.write(&mut buf, 0, value);
    [
        u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]),
        u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]),
    ]
}

/// Uniform block of gather.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct GatherParams {
    n: u32,
    rank: u32,
    per_invocation: u32,
    mode: u32,
    lane: u32,
    dst_offset: u32,
    src_offset: u32,
    pad: u32,
    shape: [u32; 8],
    dst_stride: [u32; 8],
    src_stride: [u32; 8],
}

/// Uniform block of fill.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct FillParams {
    n: u32,
    rank: u32,
    per_invocation: u32,
    mode: u32,
    lane: u32,
    dst_offset: u32,
    value_lo: u32,
    value_hi: u32,
    shape: [u32; 8],
    dst_stride: [u32; 8],
}

/// Uniform block of transpose.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct TransposeParams {
    batch: u32,
    rows: u32,
    cols: u32,
    tiles_per_row: u32,
    dst_offset: u32,
    src_offset: u32,
    src_batch_stride: u32,
    src_col_stride: u32,
}

/// `lane` value meaning "store every element" (`ALL_LANES` in common.wgsl).
pub(crate) const ALL_LANES: u32 = u32::MAX;
/// Kernel modes (see gather.wgsl).
const MODE_DENSE: u32 = 0;
pub(crate) const MODE_ELEMENTS: u32 = 1;

/// Converts a plan's numbers to the u32s of a uniform block (None when one does not fit).
pub(crate) fn to_u32s(values: &[u64]) -> Option<[u32; 8]> {
    let mut out = [0u32; 8];
    for (o, &v) in out.iter_mut().zip(values) {
        *o = u32::try_from(v).ok()?;
    }
    Some(out)
}

/// Elements (or words) per invocation: enough invocations to fill the device, at most 64
/// items each (on CPU adapters the cost is per invocation).
pub(crate) fn items_per_invocation(items: u64) -> u64 {
    (items / 2048).clamp(1, 64)
}

impl GpuEngine {
    fn module(&mut self, family: Family) -> wgpu::ShaderModule {
        if let Some(m) = self.modules.get(&family) {
            return m.clone();
        }
        let source = format!(
            "{}\n{}",
            dev_source("common", COMMON_WGSL),
            dev_source(family.name(), family.source())
        );
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(family.name()),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        self.modules.insert(family, module.clone());
        module
    }

    /// The pipeline of `family`'s `entry` with override `constants`, cached.
    pub(crate) fn pipeline(
        &mut self,
        family: Family,
        entry: &str,
        constants: &[(&str, f64)],
    ) -> wgpu::ComputePipeline {
        let key = format!("{}:{entry}:{constants:?}", family.name());
        if let Some(p) = self.pipelines.get(&key) {
            return p.clone();
        }
        let module = self.module(family);
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&key),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            });
        self.pipelines.insert(key, pipeline.clone());
        pipeline
    }

    /// Workgroup counts for `invocations`, as a 2-D grid past the per-dimension limit.
    pub(crate) fn grid(&self, invocations: u64) -> (u32, u32) {
        let groups = invocations.div_ceil(WORKGROUP).max(1);
        let max = u64::from(self.limits.max_compute_workgroups_per_dimension.max(1));
        if groups <= max {
            (groups as u32, 1)
        } else {
            (max as u32, groups.div_ceil(max) as u32)
        }
    }

    /// Encodes one dispatch of `pipeline` with `params` at binding 0 and `buffers` at
    /// bindings 1.. (whole buffers), over `invocations` invocations.
    pub(crate) fn encode_dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        params: &[u8],
        buffers: &[&wgpu::Buffer],
        grid: (u32, u32),
    ) {
        let uniform = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("stridescope params"),
                contents: params,
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }];
        for (i, b) in buffers.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: b.as_entire_binding(),
            });
        }
        let layout = pipeline.get_bind_group_layout(0);
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &entries,
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }

    /// A 4-byte buffer bound where a kernel's binding is not read.
    pub(crate) fn dummy_buffer(&mut self) -> wgpu::Buffer {
        if let Some(b) = &self.dummy {
            return b.clone();
        }
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope unused binding"),
            size: 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        self.dummy = Some(b.clone());
        b
    }

    /// A 4-byte read-write buffer bound as elementwise.wgsl's status flag where the op
    /// cannot raise it.
    pub(crate) fn status_buffer(&mut self) -> wgpu::Buffer {
        if let Some(b) = &self.status {
            return b.clone();
        }
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridescope status"),
            size: 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        self.status = Some(b.clone());
        b
    }

    pub(crate) fn encoder(&self) -> wgpu::CommandEncoder {
        self.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
    }

    pub(crate) fn submit(&self, encoder: wgpu::CommandEncoder) {
        let commands = encoder.finish();
        match self.deferred.borrow_mut().as_mut() {
            Some(held) => held.push(commands),
            None => {
                self.queue.submit([commands]);
            }
        }
    }

    /// From now on, kernels are encoded but not submitted, until [`Self::submit_deferred`].
    /// For timing on real GPUs, where encoding and submitting one op costs as much as running
    /// it: the benchmark encodes many runs first, then times their one submission. Only for
    /// ops whose inputs are already on the GPU and whose results are not read in between.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn defer_submissions(&self) {
        *self.deferred.borrow_mut() = Some(Vec::new());
    }

    /// Submits every command buffer held since [`Self::defer_submissions`], in one submission,
    /// and goes back to submitting at once.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn submit_deferred(&self) {
        if let Some(held) = self.deferred.borrow_mut().take() {
            self.queue.submit(held);
        }
    }

    /// The GPU copy, or why it must run on the CPU.
    pub(crate) fn gpu_copy(&mut self, dst: &Tensor, src: &Tensor) -> Result<(), String> {
        self.all_bindable(&[dst.storage, src.storage])?;
        let reorder = is_non_overlapping(dst);
        let plan = IterPlan::new(
            &dst.layout.shape,
            &[
                (&dst.layout.strides, dst.layout.offset),
                (&src.layout.strides, src.layout.offset),
            ],
            reorder,
        )
        .map_err(plan_reason)?;
        let Some(mut plan) = plan else {
            return Ok(());
        };
        let dst_buffer = self.bindable(dst.storage)?.clone();
        let src_buffer = if src.storage == dst.storage {
            let (temp, shift) = self
                .snapshot(src)
                .ok_or_else(|| "could not snapshot the source".to_string())?;
            plan.views[1].offset = plan.views[1]
                .offset
                .checked_sub(shift as u64)
                .ok_or_else(|| "source offset below its snapshot".to_string())?;
            temp
        } else {
            self.bindable(src.storage)?.clone()
        };
        let mut encoder = self.encoder();
        if reorder
            && self.try_transpose(
                &mut encoder,
                &plan,
                dst.dtype,
                src.dtype,
                &dst_buffer,
                &src_buffer,
            )
        {
            self.submit(encoder);
            return Ok(());
        }
        let pipeline = self.pipeline(
            Family::Gather,
            "main",
            &[
                ("SRC_T", f64::from(dtype_code(src.dtype))),
                ("DST_T", f64::from(dtype_code(dst.dtype))),
            ],
        );
        let dst_bytes = dst.dtype.item_size() as u64;
        for piece in plan.split_for_kernel() {
            let n = piece.numel();
            let shape = to_u32s(&piece.shape).ok_or("shape beyond u32")?;
            let dst_stride = to_u32s(&piece.views[0].strides).ok_or("stride beyond u32")?;
            let src_stride = to_u32s(&piece.views[1].strides).ok_or("stride beyond u32")?;
            let mut params = GatherParams {
                n: u32::try_from(n).map_err(|_| "too many elements")?,
                rank: piece.shape.len() as u32,
                per_invocation: 1,
                mode: MODE_ELEMENTS,
                lane: ALL_LANES,
                dst_offset: u32::try_from(piece.views[0].offset).map_err(|_| "offset")?,
                src_offset: u32::try_from(piece.views[1].offset).map_err(|_| "offset")?,
                pad: 0,
                shape,
                dst_stride,
                src_stride,
            };
            let per_word = (4 / dst_bytes).max(1);
            for (mode, lane, per, invocations) in
                launch_shapes(reorder && piece.is_dense(0), n, per_word, params.dst_offset)
            {
                params.mode = mode;
                params.lane = lane;
                params.per_invocation = per as u32;
                let grid = self.grid(invocations);
                self.encode_dispatch(
                    &mut encoder,
                    &pipeline,
                    bytemuck::bytes_of(&params),
                    &[&dst_buffer, &src_buffer],
                    grid,
                );
            }
        }
        self.submit(encoder);
        Ok(())
    }

    /// The GPU fill, or why it must run on the CPU.
    pub(crate) fn gpu_fill(&mut self, dst: &Tensor, value: Scalar) -> Result<(), String> {
        let dst_buffer = self.bindable(dst.storage)?.clone();
        let plan = IterPlan::new(
            &dst.layout.shape,
            &[(&dst.layout.strides, dst.layout.offset)],
            true,
        )
        .map_err(plan_reason)?;
        let Some(mut plan) = plan else {
            return Ok(());
        };
        plan.drop_destination_broadcast();
        let bytes = dst.dtype.item_size() as u64;
        let pipeline = self.pipeline(Family::Fill, "main", &[("DST_BYTES", bytes as f64)]);
        let [value_lo, value_hi] = value_bits(dst.dtype, value);
        let mut encoder = self.encoder();
        for piece in plan.split_for_kernel() {
            let n = piece.numel();
            let mut params = FillParams {
                n: u32::try_from(n).map_err(|_| "too many elements")?,
                rank: piece.shape.len() as u32,
                per_invocation: 1,
                mode: MODE_ELEMENTS,
                lane: ALL_LANES,
                dst_offset: u32::try_from(piece.views[0].offset).map_err(|_| "offset")?,
                value_lo,
                value_hi,
                shape: to_u32s(&piece.shape).ok_or("shape beyond u32")?,
                dst_stride: to_u32s(&piece.views[0].strides).ok_or("stride beyond u32")?,
            };
            let per_word = (4 / bytes).max(1);
            for (mode, lane, per, invocations) in
                launch_shapes(piece.is_dense(0), n, per_word, params.dst_offset)
            {
                params.mode = mode;
                params.lane = lane;
                params.per_invocation = per as u32;
                let grid = self.grid(invocations);
                self.encode_dispatch(
                    &mut encoder,
                    &pipeline,
                    bytemuck::bytes_of(&params),
                    &[&dst_buffer],
                    grid,
                );
            }
        }
        self.submit(encoder);
        Ok(())
    }

    /// The register-tiled transpose for plans that are a (batched) swap of the last two
    /// dims into a dense destination with 4-word-aligned rows; false when it does not apply.
    fn try_transpose(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        plan: &IterPlan,
        dst_dtype: DType,
        src_dtype: DType,
        dst_buffer: &wgpu::Buffer,
        src_buffer: &wgpu::Buffer,
    ) -> bool {
        let Some(shape) = transpose_shape(plan, dst_dtype, src_dtype) else {
            return false;
        };
        let bytes = dst_dtype.item_size() as u64;
        let tile = tile_elements(bytes);
        let (batch, rows, cols, src_batch_stride, src_col_stride) = shape;
        // Workgroup-memory tiles where barriers are cheap (real GPUs); register tiles on CPU
        // adapters such as lavapipe, where they are not.
        let shared = (bytes == 4 || bytes == 8)
            && (self.force_shared_transpose || self.info.device_type != wgpu::DeviceType::Cpu);
        let tiles_per_row = cols / tile;
        let invocations = batch
            * (rows / tile).div_ceil(TRANSPOSE_BLOCK)
            * tiles_per_row.div_ceil(TRANSPOSE_BLOCK);
        let params = TransposeParams {
            batch: batch as u32,
            rows: rows as u32,
            cols: cols as u32,
            tiles_per_row: tiles_per_row as u32,
            dst_offset: plan.views[0].offset as u32,
            src_offset: plan.views[1].offset as u32,
            src_batch_stride: src_batch_stride as u32,
            src_col_stride: src_col_stride as u32,
        };
        let entry = if shared { "shared_main" } else { "main" };
        let pipeline = self.pipeline(
            Family::Transpose,
            entry,
            &[
                ("ELEM_BYTES", bytes as f64),
                ("FLOAT_T", f64::from(dtype_code(dst_dtype))),
            ],
        );
        let grid = if shared {
            let side = SHARED_TRANSPOSE_TILE;
            let groups = batch * rows.div_ceil(side) * cols.div_ceil(side);
            let max = u64::from(self.limits.max_compute_workgroups_per_dimension.max(1));
            let x = groups.clamp(1, max);
            (x as u32, groups.div_ceil(x) as u32)
        } else {
            self.grid(invocations)
        };
        self.encode_dispatch(
            encoder,
            &pipeline,
            bytemuck::bytes_of(&params),
            &[dst_buffer, src_buffer],
            grid,
        );
        true
    }
}

/// Side of transpose.wgsl's workgroup-memory tile (`SHARED_TILE` there).
const SHARED_TRANSPOSE_TILE: u64 = 32;

/// One invocation of transpose.wgsl moves a block of this many tiles squared (`SB` there).
const TRANSPOSE_BLOCK: u64 = 4;

/// Side of transpose.wgsl's square tile, in elements: one vec4 of u32 per tile row.
fn tile_elements(bytes: u64) -> u64 {
    16 / bytes.clamp(1, 16)
}

/// When `plan` is a batched transpose transpose.wgsl can run, its (batch, rows, cols,
/// source batch stride, source column stride): dst[b][r][c] = src[b*sb + c*sc + r].
fn transpose_shape(
    plan: &IterPlan,
    dst_dtype: DType,
    src_dtype: DType,
) -> Option<(u64, u64, u64, u64, u64)> {
    if dst_dtype != src_dtype || !plan.is_dense(0) {
        return None;
    }
    let rank = plan.shape.len();
    if !(2..=3).contains(&rank) {
        return None;
    }
    let src = &plan.views[1];
    let (rows, cols) = (plan.shape[rank - 2], plan.shape[rank - 1]);
    if src.strides[rank - 2] != 1 {
        return None;
    }
    let bytes = dst_dtype.item_size() as u64;
    let tile = tile_elements(bytes);
    // Alignment: every tile row starts on a 16-byte boundary in both buffers.
    let per_vec = tile;
    let col_stride = src.strides[rank - 1];
    let batch_stride = if rank == 3 { src.strides[0] } else { 0 };
    let batch = if rank == 3 { plan.shape[0] } else { 1 };
    let aligned = |v: u64| v.is_multiple_of(per_vec);
    if !rows.is_multiple_of(tile)
        || !cols.is_multiple_of(tile)
        || !aligned(plan.views[0].offset)
        || !aligned(src.offset)
        || !aligned(col_stride)
        || !aligned(batch_stride)
        || !aligned(cols)
    {
        return None;
    }
    let fits = |v: u64| v <= u64::from(u32::MAX);
    let max_src = src.offset + (batch - 1) * batch_stride + (cols - 1) * col_stride + rows;
    if !fits(max_src) || !fits(plan.views[0].offset + batch * rows * cols) {
        return None;
    }
    if rank > MAX_KERNEL_RANK {
        return None;
    }
    Some((batch, rows, cols, batch_stride, col_stride))
}

/// The dispatches of one gather or fill piece: (mode, lane, items per invocation,
/// invocations). A dense destination is one dispatch where invocations own whole words;
/// otherwise one dispatch per byte lane for 1- and 2-byte dtypes.
pub(crate) fn launch_shapes(
    dense: bool,
    n: u64,
    per_word: u64,
    dst_offset: u32,
) -> Vec<(u32, u32, u64, u64)> {
    if dense {
        let off = u64::from(dst_offset);
        let units = (off + n).div_ceil(per_word) - off / per_word;
        let per = items_per_invocation(units);
        return vec![(MODE_DENSE, ALL_LANES, per, units.div_ceil(per))];
    }
    let per = items_per_invocation(n);
    let invocations = n.div_ceil(per);
    if per_word == 1 {
        vec![(MODE_ELEMENTS, ALL_LANES, per, invocations)]
    } else {
        (0..per_word as u32)
            .map(|lane| (MODE_ELEMENTS, lane, per, invocations))
            .collect()
    }
}

fn plan_reason(issue: PlanIssue) -> String {
    match issue {
        PlanIssue::Negative => "negative strides or offsets".to_string(),
    }
}

/// A one-shot channel whose receiving half is a future (no executor needed).
pub(crate) fn oneshot<T: Send + 'static>() -> (OneshotFuture<T>, impl FnOnce(T) + Send + 'static) {
    let shared: Arc<Mutex<(Option<T>, Option<Waker>)>> = Arc::new(Mutex::new((None, None)));
    let sender = shared.clone();
    let resolve = move |value: T| {
        if let Ok(mut slot) = sender.lock() {
            slot.0 = Some(value);
            if let Some(w) = slot.1.take() {
                w.wake();
            }
        }
    };
    (OneshotFuture { shared }, resolve)
}

/// The receiving half of [`oneshot`].
pub(crate) struct OneshotFuture<T> {
    shared: Arc<Mutex<(Option<T>, Option<Waker>)>>,
}

impl<T> Future for OneshotFuture<T> {
    type Output = T;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match self.shared.lock() {
            Ok(mut slot) => match slot.0.take() {
                Some(v) => Poll::Ready(v),
                None => {
                    slot.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            },
            Err(_) => Poll::Pending,
        }
    }
}
