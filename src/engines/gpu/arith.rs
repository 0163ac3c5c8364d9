//! Arithmetic on the GPU: elementwise unary and binary ops, reductions and matmul, with
//! PyTorch's CPU arithmetic exactly as `cpu.rs` defines it. What the shaders do not cover
//! returns the reason, and the engine runs the op on the CPU engine instead.

use bytemuck::{Pod, Zeroable};

use crate::core::tensor::{Category, DType, Layout, Scalar, Tensor};
use crate::engines::cpu::apply_unary;
use crate::engines::gpu::kernels::{dtype_code, launch_shapes, to_u32s, Family, ALL_LANES};
use crate::engines::gpu::plan::{disjoint_extents, is_non_overlapping, IterPlan, MAX_KERNEL_RANK};
use crate::engines::gpu::GpuEngine;
use crate::engines::{BinaryOp, Operand, ReduceOp, UnaryOp};

/// The op's name in op logs.
pub fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "neg",
        UnaryOp::Relu => "relu",
        UnaryOp::Clamp { .. } => "clamp",
        UnaryOp::LogicalNot => "logical_not",
        UnaryOp::BitNot => "bitwise_not",
        UnaryOp::Abs => "abs",
    }
}

/// The op's name in op logs.
pub fn binary_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::Mul => "mul",
        BinaryOp::Div => "div",
        BinaryOp::FloorDiv => "floor_divide",
        BinaryOp::TruncDiv => "div_trunc",
        BinaryOp::Rem => "remainder",
        BinaryOp::Pow => "pow",
        BinaryOp::Eq => "eq",
        BinaryOp::Ne => "ne",
        BinaryOp::Lt => "lt",
        BinaryOp::Le => "le",
        BinaryOp::Gt => "gt",
        BinaryOp::Ge => "ge",
        BinaryOp::BitAnd => "bitwise_and",
        BinaryOp::BitOr => "bitwise_or",
        BinaryOp::BitXor => "bitwise_xor",
    }
}

/// The op's name in op logs.
pub fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum",
        ReduceOp::Mean => "mean",
        ReduceOp::Amax => "amax",
        ReduceOp::Amin => "amin",
    }
}

/// Uniform block of elementwise.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct EwParams {
    n: u32,
    rank: u32,
    per_invocation: u32,
    mode: u32,
    lane: u32,
    dst_offset: u32,
    a_offset: u32,
    b_offset: u32,
    op: u32,
    a_t: u32,
    b_t: u32,
    dst_t: u32,
    compute_t: u32,
    flags: u32,
    pad0: u32,
    pad1: u32,
    a_lo: u32,
    a_hi: u32,
    b_lo: u32,
    b_hi: u32,
    min_lo: u32,
    min_hi: u32,
    max_lo: u32,
    max_hi: u32,
    shape: [u32; 8],
    dst_stride: [u32; 8],
    a_stride: [u32; 8],
    b_stride: [u32; 8],
}

const F_A_SCALAR: u32 = 1;
const F_B_SCALAR: u32 = 2;
const F_A_FROM_DST: u32 = 4;
const F_B_FROM_DST: u32 = 8;
const F_HAS_MIN: u32 = 32;
const F_HAS_MAX: u32 = 64;

/// The op code of elementwise.wgsl: binary ops in `BinaryOp`'s order, unary ops from 16.
fn binary_code(op: BinaryOp) -> u32 {
    match op {
        BinaryOp::Add => 0,
        BinaryOp::Sub => 1,
        BinaryOp::Mul => 2,
        BinaryOp::Div => 3,
        BinaryOp::FloorDiv => 4,
        BinaryOp::Rem => 5,
        BinaryOp::Pow => 6,
        BinaryOp::Eq => 7,
        BinaryOp::Ne => 8,
        BinaryOp::Lt => 9,
        BinaryOp::Le => 10,
        BinaryOp::Gt => 11,
        BinaryOp::Ge => 12,
        BinaryOp::BitAnd => 13,
        BinaryOp::BitOr => 14,
        BinaryOp::BitXor => 15,
        // Never dispatched: `binary_unsupported` sends it to the CPU engine.
        BinaryOp::TruncDiv => 31,
    }
}

fn unary_code(op: UnaryOp) -> u32 {
    match op {
        UnaryOp::Neg => 16,
        UnaryOp::Relu => 17,
        UnaryOp::Clamp { .. } => 18,
        UnaryOp::LogicalNot => 19,
        UnaryOp::BitNot => 20,
        UnaryOp::Abs => 21,
    }
}

/// `to_compute` of a Python number, in the kernel's compute form: 0/1, an i64 as (lo, hi),
/// or f32 bits (the number cast to the compute dtype first).
fn compute_form(value: Scalar, compute: DType) -> [u32; 2] {
    match compute.category() {
        Category::Bool => [u32::from(value.to_bool()), 0],
        Category::Integral => {
            let i = compute.round(value).to_wrapped_int();
            [i as u32, (i >> 32) as u32]
        }
        // Cast to the compute dtype, then widened to f32 (as cpu.rs's `to_compute`).
        Category::Floating | Category::Complex => [compute.round(value).to_f32().to_bits(), 0],
    }
}

/// Why a binary op in `compute`'s arithmetic cannot run on the GPU, if it cannot.
fn binary_unsupported(op: BinaryOp, compute: DType) -> Option<String> {
    if op == BinaryOp::TruncDiv {
        return Some(
            "truncating division (div rounding_mode='trunc') runs on the CPU engine (elementwise.wgsl has no kernel for it)"
                .to_string(),
        );
    }
    if compute == DType::Float64 {
        return Some("float64 arithmetic runs on the CPU engine (WGSL has no f64)".to_string());
    }
    match compute.category() {
        Category::Bool => None,
        Category::Integral => match op {
            BinaryOp::Div => Some(
                "integer true division runs on the CPU engine (its result is a float64)"
                    .to_string(),
            ),
            // The zero-divisor check needs a blocking read-back, which the browser lacks.
            BinaryOp::FloorDiv | BinaryOp::Rem if cfg!(target_arch = "wasm32") => Some(format!(
                "integer {} runs on the CPU engine in the browser (ZeroDivisionError check)",
                binary_name(op)
            )),
            _ => None,
        },
        Category::Floating => match op {
            BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Pow => Some(format!(
                "floating-point {} runs on the CPU engine (WGSL's is not correctly rounded)",
                binary_name(op)
            )),
            _ => None,
        },
        Category::Complex => {
            Some("complex arithmetic runs on the CPU engine (no complex WGSL kernels)".to_string())
        }
    }
}

/// A zero-stride stand-in view for a Python-number operand.
fn scalar_view(like: &Tensor) -> Tensor {
    Tensor {
        storage: like.storage,
        dtype: like.dtype,
        layout: Layout {
            shape: like.layout.shape.clone(),
            strides: vec![0; like.layout.shape.len()],
            offset: 0,
        },
    }
}

impl GpuEngine {
    pub(crate) fn gpu_unary(
        &mut self,
        op: UnaryOp,
        dst: &Tensor,
        src: &Tensor,
        compute: DType,
    ) -> Result<(), String> {
        if compute == DType::Float64 {
            return Err("float64 arithmetic runs on the CPU engine (WGSL has no f64)".to_string());
        }
        let mut params = EwParams::zeroed();
        params.op = unary_code(op);
        if let UnaryOp::Clamp { min, max } = op {
            // The bounds in compute form, as the CPU engine's clamp sees them: clamping the
            // lowest (highest) value of the arithmetic gives the lower (upper) bound.
            let (lowest, highest) = match compute.category() {
                Category::Floating => (
                    Scalar::Float(f64::NEG_INFINITY),
                    Scalar::Float(f64::INFINITY),
                ),
                _ => {
                    let (lo, hi) = compute.finite_range();
                    (Scalar::Int(lo as i64), Scalar::Int(hi as i64))
                }
            };
            if let Some(lo) = min {
                let bound = apply_unary(
                    UnaryOp::Clamp {
                        min: Some(lo),
                        max: None,
                    },
                    lowest,
                    compute,
                );
                [params.min_lo, params.min_hi] = compute_form(bound, compute);
                params.flags |= F_HAS_MIN;
            }
            if let Some(hi) = max {
                let bound = apply_unary(
                    UnaryOp::Clamp {
                        min: None,
                        max: Some(hi),
                    },
                    highest,
                    compute,
                );
                [params.max_lo, params.max_hi] = compute_form(bound, compute);
                params.flags |= F_HAS_MAX;
            }
        }
        let a = Operand::Tensor(src.clone());
        let b = Operand::Scalar(Scalar::Int(0));
        self.elementwise(params, dst, &a, &b, compute)
    }

    pub(crate) fn gpu_binary(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), String> {
        if let Some(reason) = binary_unsupported(op, compute) {
            return Err(reason);
        }
        let mut params = EwParams::zeroed();
        params.op = binary_code(op);
        self.elementwise(params, dst, a, b, compute)
    }

    /// Plans and dispatches one elementwise op (`params.op` and clamp bounds set).
    fn elementwise(
        &mut self,
        mut params: EwParams,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), String> {
        let mut storages = vec![dst.storage];
        let mut views: Vec<Tensor> = Vec::with_capacity(2);
        // The buffer each operand is read from (None: the dummy or the destination binding).
        let mut snapshots: [Option<wgpu::Buffer>; 2] = [None, None];
        for (i, operand) in [a, b].into_iter().enumerate() {
            let (scalar_flag, from_dst_flag) = if i == 0 {
                (F_A_SCALAR, F_A_FROM_DST)
            } else {
                (F_B_SCALAR, F_B_FROM_DST)
            };
            match operand {
                Operand::Scalar(s) => {
                    let bits = compute_form(*s, compute);
                    if i == 0 {
                        [params.a_lo, params.a_hi] = bits;
                    } else {
                        [params.b_lo, params.b_hi] = bits;
                    }
                    params.flags |= scalar_flag;
                    views.push(scalar_view(dst));
                }
                Operand::Tensor(t) => {
                    let mut view = t.clone();
                    if t.storage == dst.storage {
                        if t == dst || disjoint_extents(dst, t) {
                            // Every element is read before anything overwrites it.
                            params.flags |= from_dst_flag;
                        } else {
                            let (temp, shift) = self
                                .snapshot(t)
                                .ok_or_else(|| "could not snapshot an input".to_string())?;
                            view.layout.offset -= shift;
                            snapshots[i] = Some(temp);
                        }
                    } else {
                        storages.push(t.storage);
                    }
                    if i == 0 {
                        params.a_t = dtype_code(t.dtype);
                    } else {
                        params.b_t = dtype_code(t.dtype);
                    }
                    views.push(view);
                }
            }
        }
        self.all_bindable(&storages)?;
        params.dst_t = dtype_code(dst.dtype);
        params.compute_t = dtype_code(compute);
        let reorder = is_non_overlapping(dst);
        let plan = IterPlan::new(
            &dst.layout.shape,
            &[
                (&dst.layout.strides, dst.layout.offset),
                (&views[0].layout.strides, views[0].layout.offset),
                (&views[1].layout.strides, views[1].layout.offset),
            ],
            reorder,
        )
        .map_err(|_| "negative strides or offsets".to_string())?;
        let Some(plan) = plan else {
            return Ok(());
        };
        let mut dst_buffer = self.bindable(dst.storage)?.clone();
        // Integer floor division and remainder write into a copy of the destination and
        // raise a status flag on a zero divisor: the destination is only replaced when no
        // divisor was zero (otherwise the CPU engine reports ZeroDivisionError, untouched).
        let divides =
            params.op == binary_code(BinaryOp::FloorDiv) || params.op == binary_code(BinaryOp::Rem);
        let original_dst = dst_buffer.clone();
        let status = if divides {
            let temp = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stridescope division output"),
                size: dst_buffer.size(),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self.encoder();
            encoder.copy_buffer_to_buffer(&dst_buffer, 0, &temp, 0, dst_buffer.size());
            self.submit(encoder);
            dst_buffer = temp;
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stridescope division status"),
                size: 4,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        } else {
            self.status_buffer()
        };
        let dummy = self.dummy_buffer();
        let mut operand_buffers = Vec::with_capacity(2);
        for (operand, snapshot) in [a, b].into_iter().zip(snapshots) {
            operand_buffers.push(match (operand, snapshot) {
                (_, Some(temp)) => temp,
                (Operand::Tensor(t), None) if t.storage != dst.storage => {
                    self.bindable(t.storage)?.clone()
                }
                _ => dummy.clone(),
            });
        }
        let pipeline = self.pipeline(
            Family::Elementwise,
            "main",
            &[
                ("A_T", f64::from(params.a_t)),
                ("B_T", f64::from(params.b_t)),
                ("DST_T", f64::from(params.dst_t)),
                ("COMPUTE_T", f64::from(params.compute_t)),
            ],
        );
        let per_word = (4 / dst.dtype.item_size() as u64).max(1);
        let mut encoder = self.encoder();
        for piece in plan.split_for_kernel() {
            let n = piece.numel();
            params.n = u32::try_from(n).map_err(|_| "too many elements")?;
            params.rank = piece.shape.len() as u32;
            params.dst_offset = u32::try_from(piece.views[0].offset).map_err(|_| "offset")?;
            params.a_offset = u32::try_from(piece.views[1].offset).map_err(|_| "offset")?;
            params.b_offset = u32::try_from(piece.views[2].offset).map_err(|_| "offset")?;
            params.shape = to_u32s(&piece.shape).ok_or("shape beyond u32")?;
            params.dst_stride = to_u32s(&piece.views[0].strides).ok_or("stride beyond u32")?;
            params.a_stride = to_u32s(&piece.views[1].strides).ok_or("stride beyond u32")?;
            params.b_stride = to_u32s(&piece.views[2].strides).ok_or("stride beyond u32")?;
            let buffers = [
                &dst_buffer,
                &operand_buffers[0],
                &operand_buffers[1],
                &status,
            ];
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
                    &buffers,
                    grid,
                );
            }
        }
        self.submit(encoder);
        if divides {
            let flag = self.read_buffer(&status, 4).map_err(|e| e.to_string())?;
            if flag.iter().any(|&b| b != 0) {
                return Err(
                    "a zero divisor: the CPU engine raises ZeroDivisionError, output untouched"
                        .to_string(),
                );
            }
            let mut encoder = self.encoder();
            encoder.copy_buffer_to_buffer(&dst_buffer, 0, &original_dst, 0, original_dst.size());
            self.submit(encoder);
        }
        Ok(())
    }

    pub(crate) fn gpu_reduce(
        &mut self,
        op: ReduceOp,
        dst: &Tensor,
        src: &Tensor,
        dims: &[usize],
    ) -> Result<(), String> {
        let float_acc = src.dtype.is_floating() || dst.dtype.is_floating();
        if matches!(op, ReduceOp::Sum | ReduceOp::Mean) && float_acc {
            return Err(
                "floating-point sums accumulate in f64 on the CPU engine (WGSL has no f64)"
                    .to_string(),
            );
        }
        if src.storage == dst.storage {
            return Err("the output shares the input's storage".to_string());
        }
        self.all_bindable(&[dst.storage, src.storage])?;
        let rank = src.layout.shape.len();
        let mut reduced = vec![false; rank];
        for &d in dims {
            if d >= rank {
                return Err(format!("dim {d} out of range"));
            }
            reduced[d] = true;
        }
        if src.layout.offset < 0 || dst.layout.offset < 0 {
            return Err("negative offsets".to_string());
        }
        let non_negative = |v: &[i64]| v.iter().all(|&x| x >= 0);
        if !non_negative(&src.layout.strides) || !non_negative(&dst.layout.strides) {
            return Err("negative strides".to_string());
        }
        let (mut out_shape, mut out_src, mut out_dst) = (Vec::new(), Vec::new(), Vec::new());
        let (mut red_shape, mut red_src) = (Vec::new(), Vec::new());
        for (d, &is_reduced) in reduced.iter().enumerate() {
            let n = src.layout.shape[d] as u64;
            if is_reduced {
                if n != 1 {
                    red_shape.push(n);
                    red_src.push(src.layout.strides[d] as u64);
                }
            } else if n != 1 {
                out_shape.push(n);
                out_src.push(src.layout.strides[d] as u64);
                out_dst.push(dst.layout.strides[d] as u64);
            }
        }
        if out_shape.len() > MAX_KERNEL_RANK || red_shape.len() > MAX_KERNEL_RANK {
            return Err(format!(
                "more than {MAX_KERNEL_RANK} dims to walk after dropping size-1 dims"
            ));
        }
        let n_out: u64 = out_shape.iter().product();
        let n_red: u64 = red_shape.iter().product();
        if n_out == 0 {
            return Ok(());
        }
        let code = match op {
            ReduceOp::Sum => 0,
            ReduceOp::Mean => 1,
            ReduceOp::Amax => 2,
            ReduceOp::Amin => 3,
        };
        let mut params = ReduceParams {
            n_out: u32::try_from(n_out).map_err(|_| "too many outputs")?,
            out_rank: out_shape.len() as u32,
            red_rank: red_shape.len() as u32,
            op: code,
            lane: ALL_LANES,
            src_t: dtype_code(src.dtype),
            dst_t: dtype_code(dst.dtype),
            src_offset: u32::try_from(src.layout.offset).map_err(|_| "offset")?,
            dst_offset: u32::try_from(dst.layout.offset).map_err(|_| "offset")?,
            n_red: u32::try_from(n_red).map_err(|_| "too many elements")?,
            pad0: 0,
            pad1: 0,
            out_shape: to_u32s(&out_shape).ok_or("shape beyond u32")?,
            out_src_stride: to_u32s(&out_src).ok_or("stride beyond u32")?,
            out_dst_stride: to_u32s(&out_dst).ok_or("stride beyond u32")?,
            red_shape: to_u32s(&red_shape).ok_or("shape beyond u32")?,
            red_src_stride: to_u32s(&red_src).ok_or("stride beyond u32")?,
        };
        let dst_buffer = self.bindable(dst.storage)?.clone();
        let src_buffer = self.bindable(src.storage)?.clone();
        let pipeline = self.pipeline(Family::Reduce, "main", &[]);
        let grid = self.grid(n_out);
        let mut encoder = self.encoder();
        for lane in lanes(dst.dtype) {
            params.lane = lane;
            self.encode_dispatch(
                &mut encoder,
                &pipeline,
                bytemuck::bytes_of(&params),
                &[&dst_buffer, &src_buffer],
                grid,
            );
        }
        self.submit(encoder);
        Ok(())
    }

    pub(crate) fn gpu_matmul(
        &mut self,
        dst: &Tensor,
        a: &Tensor,
        b: &Tensor,
    ) -> Result<(), String> {
        if dst.dtype.is_floating() {
            return Err(
                "a floating-point matmul runs on the CPU engine (float32 as MKL's chains of fused \
                 multiply-adds, which WGSL's fma does not promise to fuse; others in f64, which \
                 WGSL lacks)"
                    .to_string(),
            );
        }
        if a.storage == dst.storage || b.storage == dst.storage {
            return Err("the output shares an input's storage".to_string());
        }
        if a.ndim() != 2 || b.ndim() != 2 || dst.ndim() != 2 || a.dtype != b.dtype {
            return Err("not a 2-D matmul of one dtype".to_string());
        }
        self.all_bindable(&[dst.storage, a.storage, b.storage])?;
        let all = [
            a.layout.offset,
            b.layout.offset,
            dst.layout.offset,
            a.layout.strides[0],
            a.layout.strides[1],
            b.layout.strides[0],
            b.layout.strides[1],
            dst.layout.strides[0],
            dst.layout.strides[1],
        ];
        let mut words = [0u32; 9];
        for (w, &v) in words.iter_mut().zip(&all) {
            *w = u32::try_from(v).map_err(|_| "negative or huge strides")?;
        }
        let (m, k, n) = (a.layout.shape[0], a.layout.shape[1], b.layout.shape[1]);
        let [a_offset, b_offset, dst_offset, a_row, a_col, b_row, b_col, dst_row, dst_col] = words;
        let mut params = MatmulParams {
            m: u32::try_from(m).map_err(|_| "shape")?,
            n: u32::try_from(n).map_err(|_| "shape")?,
            k: u32::try_from(k).map_err(|_| "shape")?,
            lane: ALL_LANES,
            a_t: dtype_code(a.dtype),
            dst_t: dtype_code(dst.dtype),
            a_offset,
            b_offset,
            dst_offset,
            a_row,
            a_col,
            b_row,
            b_col,
            dst_row,
            dst_col,
            pad: 0,
        };
        let groups = (
            (params.n as u64).div_ceil(MATMUL_TILE),
            (params.m as u64).div_ceil(MATMUL_TILE),
        );
        let max = u64::from(self.limits.max_compute_workgroups_per_dimension);
        if groups.0 > max || groups.1 > max {
            return Err(format!(
                "the output needs more than max_compute_workgroups_per_dimension ({max}) tiles"
            ));
        }
        let dst_buffer = self.bindable(dst.storage)?.clone();
        let a_buffer = self.bindable(a.storage)?.clone();
        let b_buffer = self.bindable(b.storage)?.clone();
        let pipeline = self.pipeline(Family::Matmul, "main", &[]);
        let mut encoder = self.encoder();
        for lane in lanes(dst.dtype) {
            params.lane = lane;
            self.encode_dispatch(
                &mut encoder,
                &pipeline,
                bytemuck::bytes_of(&params),
                &[&dst_buffer, &a_buffer, &b_buffer],
                (groups.0 as u32, groups.1 as u32),
            );
        }
        self.submit(encoder);
        Ok(())
    }
}

/// Side of matmul.wgsl's output tile (its workgroup is TILE x TILE).
const MATMUL_TILE: u64 = 8;

/// The byte lanes a kernel writing one element per invocation runs (one dispatch each), so
/// that no two invocations of a dispatch write the same word.
fn lanes(dtype: DType) -> Vec<u32> {
    match dtype.item_size() {
        1 => vec![0, 1, 2, 3],
        2 => vec![0, 1],
        _ => vec![ALL_LANES],
    }
}

/// Uniform block of reduce.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct ReduceParams {
    n_out: u32,
    out_rank: u32,
    red_rank: u32,
    op: u32,
    lane: u32,
    src_t: u32,
    dst_t: u32,
    src_offset: u32,
    dst_offset: u32,
    n_red: u32,
    pad0: u32,
    pad1: u32,
    out_shape: [u32; 8],
    out_src_stride: [u32; 8],
    out_dst_stride: [u32; 8],
    red_shape: [u32; 8],
    red_src_stride: [u32; 8],
}

/// Uniform block of matmul.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct MatmulParams {
    m: u32,
    n: u32,
    k: u32,
    lane: u32,
    a_t: u32,
    dst_t: u32,
    a_offset: u32,
    b_offset: u32,
    dst_offset: u32,
    a_row: u32,
    a_col: u32,
    b_row: u32,
    b_col: u32,
    dst_row: u32,
    dst_col: u32,
    pad: u32,
}
