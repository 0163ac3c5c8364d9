//! Differential tests: the GPU engine against the CPU engine, bit for bit, on random shapes
//! (rank up to 6), random strides (0 included), offsets into larger storages, overlapping
//! sources, every dtype and every kernel family.
//!
//! These tests need a GPU adapter; natively Mesa's lavapipe (`mesa-vulkan-drivers`) is
//! enough. Without one they FAIL: they never skip.

#[path = "common/gpu.rs"]
mod shared_gpu;
use shared_gpu::gpu;
use std::sync::MutexGuard;

use proptest::prelude::*;
use stridescope::core::tensor::{DType, Layout, Scalar, StorageId, Tensor};
use stridescope::engines::gpu::GpuEngine;
use stridescope::engines::{BinaryOp, CpuEngine, Engine, Operand, ReduceOp, Summation, UnaryOp};

/// The same storages on both engines.
struct Pair<'a> {
    gpu: MutexGuard<'a, GpuEngine>,
    cpu: CpuEngine,
    ids: Vec<(StorageId, StorageId)>,
}

impl Pair<'_> {
    fn new() -> Pair<'static> {
        let mut gpu = gpu();
        let _ = gpu.take_op_log();
        Pair {
            gpu,
            cpu: CpuEngine::new(),
            ids: Vec::new(),
        }
    }

    /// A storage holding `bytes` on both engines; returns its index.
    fn storage(&mut self, bytes: Vec<u8>) -> usize {
        let g = self.gpu.allocate_with(bytes.clone());
        let c = self.cpu.allocate_with(bytes);
        self.ids.push((g, c));
        self.ids.len() - 1
    }

    fn view(&self, storage: usize, dtype: DType, layout: &Layout) -> (Tensor, Tensor) {
        let (g, c) = self.ids[storage];
        let make = |id| Tensor {
            storage: id,
            dtype,
            layout: layout.clone(),
        };
        (make(g), make(c))
    }

    /// Every storage equal on both engines (and the op log for the message).
    fn assert_same(&mut self, what: &str) {
        let log = self.gpu.take_op_log();
        for (i, &(g, c)) in self.ids.clone().iter().enumerate() {
            let gb = self.gpu.read_storage(g);
            let cb = self.cpu.read_storage(c);
            if gb != cb {
                let first = gb.iter().zip(&cb).position(|(a, b)| a != b).unwrap_or(0);
                panic!(
                    "{what}: storage {i} differs at byte {first}: gpu {:?} cpu {:?} (ops: {log:?})",
                    &gb[first.saturating_sub(8)..(first + 8).min(gb.len())],
                    &cb[first.saturating_sub(8)..(first + 8).min(cb.len())],
                );
            }
        }
    }
}

impl Drop for Pair<'_> {
    fn drop(&mut self) {
        for &(g, _) in &self.ids {
            self.gpu.free(g);
        }
    }
}

fn dtype_strategy() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

fn shape_strategy() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(
        prop_oneof![8 => 1i64..=4, 1 => Just(0i64), 1 => 5i64..=9],
        0..=6,
    )
}

/// Bytes with every kind of element: special floats and random bits.
fn bytes_strategy(n: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            6 => any::<u8>(),
            1 => Just(0u8),
            1 => Just(0x7fu8),
            1 => Just(0x80u8),
            1 => Just(0xffu8),
        ],
        n,
    )
}

/// Any strides (0 included): a source view, possibly overlapping itself.
fn any_strides(rank: usize) -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(0i64..=7, rank)
}

/// A non-overlapping destination: a random dim order, each stride at least the reach of the
/// inner ones, with random gaps.
fn dense_strides(shape: &[i64]) -> impl Strategy<Value = Vec<i64>> {
    let rank = shape.len();
    let shape = shape.to_vec();
    (
        Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
        prop::collection::vec(prop_oneof![4 => Just(0i64), 1 => 1i64..=3], rank),
    )
        .prop_map(move |(order, gaps)| {
            let mut strides = vec![0i64; rank];
            let mut next = 1i64;
            for (k, &d) in order.iter().rev().enumerate() {
                strides[d] = next;
                next = next * shape[d].max(1) + gaps[k];
            }
            strides
        })
}

/// Bytes a storage needs for `layout` of `dtype`, plus `extra` elements.
fn storage_bytes(layout: &Layout, dtype: DType, extra: i64) -> usize {
    let end = layout.extent().map(|(_, hi)| hi).unwrap_or(0);
    ((end + extra).max(1) as usize) * dtype.item_size()
}

/// A source view over `shape` and the bytes of its storage.
fn source(shape: Vec<i64>) -> impl Strategy<Value = (Layout, Vec<u8>)> {
    let rank = shape.len();
    (any_strides(rank), 0i64..6, 0i64..4).prop_flat_map(move |(strides, offset, extra)| {
        let layout = Layout {
            shape: shape.clone(),
            strides,
            offset,
        };
        let n = storage_bytes(&layout, DType::Float64, extra);
        (Just(layout), bytes_strategy(n))
    })
}

/// A non-overlapping destination view over `shape` and its storage's bytes.
fn destination(shape: Vec<i64>) -> impl Strategy<Value = (Layout, Vec<u8>)> {
    (dense_strides(&shape), 0i64..6, 0i64..4).prop_flat_map(move |(strides, offset, extra)| {
        let layout = Layout {
            shape: shape.clone(),
            strides,
            offset,
        };
        let n = storage_bytes(&layout, DType::Float64, extra);
        (Just(layout), bytes_strategy(n))
    })
}

fn trim(bytes: &[u8], layout: &Layout, dtype: DType, extra: usize) -> Vec<u8> {
    let n = storage_bytes(layout, dtype, 0) + extra * dtype.item_size();
    bytes[..n.min(bytes.len())].to_vec()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        // 48 keeps `cargo test` quick on lavapipe; STRIDESCOPE_GPU_CASES=1000 digs deeper.
        cases: std::env::var("STRIDESCOPE_GPU_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(48),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// copy: any source view into any non-overlapping destination, with conversion.
    #[test]
    fn copy_matches_cpu(
        (src, dst) in shape_strategy().prop_flat_map(|s| (source(s.clone()), destination(s))),
        src_dtype in dtype_strategy(),
        dst_dtype in dtype_strategy(),
    ) {
        let mut pair = Pair::new();
        let s = pair.storage(trim(&src.1, &src.0, src_dtype, 3));
        let d = pair.storage(trim(&dst.1, &dst.0, dst_dtype, 3));
        let (gs, cs) = pair.view(s, src_dtype, &src.0);
        let (gd, cd) = pair.view(d, dst_dtype, &dst.0);
        pair.gpu.copy(&gd, &gs);
        pair.cpu.copy(&cd, &cs);
        pair.assert_same(&format!("copy {src_dtype:?} {:?} -> {dst_dtype:?} {:?}", src.0, dst.0));
    }

    /// copy where the source shares the destination's storage (read before written).
    #[test]
    fn overlapping_copy_matches_cpu(
        (src, dst) in shape_strategy().prop_flat_map(|s| (source(s.clone()), destination(s))),
        dtype in dtype_strategy(),
        src_dtype in dtype_strategy(),
    ) {
        let mut pair = Pair::new();
        let n = storage_bytes(&src.0, DType::Float64, 0).max(storage_bytes(&dst.0, DType::Float64, 0));
        let mut bytes = src.1.clone();
        bytes.extend_from_slice(&dst.1);
        bytes.resize(n.max(8), 0x3c);
        // The same storage viewed with two dtypes of the same size, or the same dtype.
        let src_dtype = if src_dtype.item_size() == dtype.item_size() { src_dtype } else { dtype };
        let s = pair.storage(bytes);
        let (gs, cs) = pair.view(s, src_dtype, &src.0);
        let (gd, cd) = pair.view(s, dtype, &dst.0);
        pair.gpu.copy(&gd, &gs);
        pair.cpu.copy(&cd, &cs);
        pair.assert_same(&format!("overlapping copy {src_dtype:?} {:?} -> {dtype:?} {:?}", src.0, dst.0));
        // An elementwise op whose input overlaps its output: inputs are read first.
        let compute = DType::promote(dtype, src_dtype);
        let g = pair.gpu.binary(BinaryOp::Mul, &gd, &Operand::Tensor(gd.clone()), &Operand::Tensor(gs), compute);
        let c = pair.cpu.binary(BinaryOp::Mul, &cd, &Operand::Tensor(cd.clone()), &Operand::Tensor(cs), compute);
        prop_assert_eq!(g, c);
        pair.assert_same(&format!("overlapping mul {src_dtype:?} {:?} -> {dtype:?} {:?}", src.0, dst.0));
    }

    /// fill: any destination view, overlapping ones included.
    #[test]
    fn fill_matches_cpu(
        (dst, _) in shape_strategy().prop_flat_map(source),
        bytes in bytes_strategy(800),
        dtype in dtype_strategy(),
        value in prop_oneof![
            any::<bool>().prop_map(Scalar::Bool),
            any::<i64>().prop_map(Scalar::Int),
            (-300i64..300).prop_map(Scalar::Int),
            any::<f64>().prop_map(Scalar::Float),
            (-1e3f64..1e3).prop_map(Scalar::Float),
        ],
    ) {
        let mut pair = Pair::new();
        let s = pair.storage(bytes[..storage_bytes(&dst, dtype, 2).min(800)].to_vec());
        let (gd, cd) = pair.view(s, dtype, &dst);
        prop_assume!(storage_bytes(&dst, dtype, 0) <= 800);
        pair.gpu.fill(&gd, value);
        pair.cpu.fill(&cd, value);
        pair.assert_same(&format!("fill {dtype:?} {dst:?} with {value:?}"));
    }

    /// Unary ops over strided views, in place or not.
    #[test]
    fn unary_matches_cpu(
        (src, dst) in shape_strategy().prop_flat_map(|s| (source(s.clone()), destination(s))),
        dtype in dtype_strategy(),
        out_dtype in dtype_strategy(),
        op in prop_oneof![
            Just(UnaryOp::Neg), Just(UnaryOp::Relu), Just(UnaryOp::Abs),
            Just(UnaryOp::LogicalNot), Just(UnaryOp::BitNot),
            (-5i64..5, -5i64..5).prop_map(|(a, b)| UnaryOp::Clamp { min: Some(Scalar::Int(a.min(b))), max: Some(Scalar::Int(a.max(b))) }),
            (-2.5f64..2.5).prop_map(|a| UnaryOp::Clamp { min: Some(Scalar::Float(a)), max: None }),
        ],
        in_place in any::<bool>(),
    ) {
        let mut pair = Pair::new();
        let s = pair.storage(trim(&src.1, &src.0, dtype, 2));
        let (gs, cs) = pair.view(s, dtype, &src.0);
        let out_dtype = if op == UnaryOp::LogicalNot { DType::Bool } else { out_dtype };
        if in_place {
            let d = pair.storage(trim(&dst.1, &dst.0, dtype, 2));
            let (gd, cd) = pair.view(d, dtype, &dst.0);
            pair.gpu.unary(op, &gd, &gd, dtype);
            pair.cpu.unary(op, &cd, &cd, dtype);
        } else {
            let d = pair.storage(trim(&dst.1, &dst.0, out_dtype, 2));
            let (gd, cd) = pair.view(d, out_dtype, &dst.0);
            pair.gpu.unary(op, &gd, &gs, dtype);
            pair.cpu.unary(op, &cd, &cs, dtype);
        }
        pair.assert_same(&format!("unary {op:?} {dtype:?} -> {out_dtype:?} {:?} -> {:?}", src.0, dst.0));
    }

    /// Binary ops with broadcast operands (stride 0) and Python scalars.
    #[test]
    fn binary_matches_cpu(
        (a, b, dst) in shape_strategy().prop_flat_map(|s| (source(s.clone()), source(s.clone()), destination(s))),
        a_dtype in dtype_strategy(),
        b_dtype in dtype_strategy(),
        op in prop::sample::select(vec![
            BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::FloorDiv,
            BinaryOp::Rem, BinaryOp::Pow, BinaryOp::Eq, BinaryOp::Ne, BinaryOp::Lt, BinaryOp::Le,
            BinaryOp::Gt, BinaryOp::Ge, BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
        ]),
        scalar in prop_oneof![
            3 => Just(None),
            1 => (-4i64..4).prop_map(|i| Some(Scalar::Int(i))),
            1 => (-4.0f64..4.0).prop_map(|f| Some(Scalar::Float(f))),
        ],
    ) {
        let compute = DType::promote(a_dtype, b_dtype);
        let bitwise = matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor);
        prop_assume!(!(bitwise && compute.is_floating()));
        let out_dtype = if op.is_comparison() {
            DType::Bool
        } else if op == BinaryOp::Div && !compute.is_floating() {
            DType::Float32
        } else {
            compute
        };
        let compute = if op == BinaryOp::Div && !compute.is_floating() { DType::Float32 } else { compute };
        let mut pair = Pair::new();
        let sa = pair.storage(trim(&a.1, &a.0, a_dtype, 2));
        let sb = pair.storage(trim(&b.1, &b.0, b_dtype, 2));
        let d = pair.storage(trim(&dst.1, &dst.0, out_dtype, 2));
        let (ga, ca) = pair.view(sa, a_dtype, &a.0);
        let (gb, cb) = pair.view(sb, b_dtype, &b.0);
        let (gd, cd) = pair.view(d, out_dtype, &dst.0);
        let (gb, cb) = match scalar {
            Some(s) => (Operand::Scalar(s), Operand::Scalar(s)),
            None => (Operand::Tensor(gb), Operand::Tensor(cb)),
        };
        let g = pair.gpu.binary(op, &gd, &Operand::Tensor(ga), &gb, compute);
        let c = pair.cpu.binary(op, &cd, &Operand::Tensor(ca), &cb, compute);
        prop_assert_eq!(&g, &c);
        // On a ZeroDivisionError both engines leave the output untouched.
        {
            pair.assert_same(&format!("binary {op:?} {a_dtype:?} {b_dtype:?} ({scalar:?}) compute {compute:?} {:?} {:?} -> {:?}", a.0, b.0, dst.0));
        }
    }

    /// Reductions over random dims into the keepdim-shaped output.
    #[test]
    fn reduce_matches_cpu(
        (src, dims) in shape_strategy().prop_flat_map(|s| {
            let rank = s.len();
            (source(s), prop::collection::vec(any::<bool>(), rank))
        }),
        dtype in dtype_strategy(),
        op in prop::sample::select(vec![ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Amax, ReduceOp::Amin]),
        dst_offset in 0i64..3,
    ) {
        let dims: Vec<usize> = dims.iter().enumerate().filter(|(_, &r)| r).map(|(d, _)| d).collect();
        prop_assume!(!(src.0.numel() == 0 && matches!(op, ReduceOp::Amax | ReduceOp::Amin)));
        let out_dtype = match op {
            ReduceOp::Sum if !dtype.is_floating() => DType::Int64,
            ReduceOp::Mean if !dtype.is_floating() => DType::Float32,
            _ => dtype,
        };
        let mut out_shape = src.0.shape.clone();
        for &d in &dims {
            out_shape[d] = 1;
        }
        let mut out_layout = Layout::contiguous(&out_shape);
        out_layout.offset = dst_offset;
        let mut pair = Pair::new();
        let s = pair.storage(trim(&src.1, &src.0, dtype, 2));
        let d = pair.storage(vec![0x55; storage_bytes(&out_layout, out_dtype, 1)]);
        let (gs, cs) = pair.view(s, dtype, &src.0);
        let (gd, cd) = pair.view(d, out_dtype, &out_layout);
        pair.gpu.reduce(op, &gd, &gs, &dims);
        pair.cpu.reduce(op, &cd, &cs, &dims);
        let on_gpu = matches!(op, ReduceOp::Amax | ReduceOp::Amin) || !(dtype.is_floating() || out_dtype.is_floating());
        if on_gpu && out_layout.numel() > 0 {
            let log = pair.gpu.take_op_log();
            prop_assert!(log.iter().all(|r| r.engine == "gpu"), "{:?}", log);
        }
        pair.assert_same(&format!("reduce {op:?} {dtype:?} over {dims:?} of {:?}", src.0));
    }

    /// 2-D matmul of strided views.
    #[test]
    fn matmul_matches_cpu(
        (m, k, n) in (1i64..7, 0i64..7, 1i64..7),
        dtype in dtype_strategy(),
        a_t in any::<bool>(),
        b_t in any::<bool>(),
        bytes in bytes_strategy(1200),
    ) {
        let layout = |rows: i64, cols: i64, transposed: bool| {
            if transposed {
                Layout { shape: vec![rows, cols], strides: vec![1, rows], offset: 1 }
            } else {
                Layout { shape: vec![rows, cols], strides: vec![cols, 1], offset: 1 }
            }
        };
        let (la, lb, lo) = (layout(m, k, a_t), layout(k, n, b_t), layout(m, n, false));
        let item = dtype.item_size();
        let mut pair = Pair::new();
        let sa = pair.storage(bytes[..((m * k + 2) as usize * item)].to_vec());
        let sb = pair.storage(bytes[400..400 + ((k * n + 2) as usize * item)].to_vec());
        let so = pair.storage(vec![0; (m * n + 2) as usize * item]);
        let (ga, ca) = pair.view(sa, dtype, &la);
        let (gb, cb) = pair.view(sb, dtype, &lb);
        let (go, co) = pair.view(so, dtype, &lo);
        pair.gpu.matmul(&go, &ga, &gb, Summation::Blas);
        pair.cpu.matmul(&co, &ca, &cb, Summation::Blas);
        if !dtype.is_floating() {
            let log = pair.gpu.take_op_log();
            prop_assert!(log.iter().all(|r| r.engine == "gpu"), "{:?}", log);
        }
        pair.assert_same(&format!("matmul {dtype:?} {m}x{k}x{n} ({a_t}, {b_t})"));
    }
}

/// The kernels run on the GPU (not on the CPU fallback) for every dtype's copy and fill.
#[test]
fn copies_and_fills_of_every_dtype_stay_on_the_gpu() {
    let mut pair = Pair::new();
    for &src_dtype in &DType::ALL {
        for &dst_dtype in &DType::ALL {
            let s = pair.storage((0..96u8).collect());
            let d = pair.storage(vec![0; 96]);
            let shape = [3i64, 4];
            let (gs, cs) = pair.view(
                s,
                src_dtype,
                &Layout {
                    shape: shape.to_vec(),
                    strides: vec![1, 3],
                    offset: 0,
                },
            );
            let (gd, cd) = pair.view(d, dst_dtype, &Layout::contiguous(&shape));
            pair.gpu.copy(&gd, &gs);
            pair.cpu.copy(&cd, &cs);
            pair.gpu.fill(
                &gd.with_layout(Layout {
                    shape: vec![2],
                    strides: vec![5],
                    offset: 1,
                }),
                Scalar::Float(-2.5),
            );
            pair.cpu.fill(
                &cd.with_layout(Layout {
                    shape: vec![2],
                    strides: vec![5],
                    offset: 1,
                }),
                Scalar::Float(-2.5),
            );
        }
    }
    let log = pair.gpu.take_op_log();
    assert!(log.iter().all(|r| r.engine == "gpu"), "{log:?}");
    pair.assert_same("every dtype pair");
}

/// Transposes that take the register-tiled kernel (and, for 4- and 8-byte elements, the
/// workgroup-memory kernel GPUs get), for every element size.
#[test]
fn tiled_transposes_match_cpu() {
    let mut pair = Pair::new();
    for (&dtype, shared) in DType::ALL.iter().flat_map(|d| [(d, false), (d, true)]) {
        pair.gpu.force_shared_transpose_for_testing(shared);
        for (shape, src_strides) in [
            (vec![32i64, 48], vec![1i64, 32]),
            (vec![2, 16, 32], vec![512, 1, 16]),
            (vec![2, 64, 4, 8], vec![2048, 1, 512, 64]),
        ] {
            let numel: i64 = shape.iter().product();
            let bytes: Vec<u8> = (0..numel as usize * dtype.item_size() + 16)
                .map(|i| (i * 37 % 251) as u8)
                .collect();
            let s = pair.storage(bytes);
            let d = pair.storage(vec![0; numel as usize * dtype.item_size() + 16]);
            let src = Layout {
                shape: shape.clone(),
                strides: src_strides,
                offset: 0,
            };
            let (gs, cs) = pair.view(s, dtype, &src);
            let (gd, cd) = pair.view(d, dtype, &Layout::contiguous(&shape));
            pair.gpu.copy(&gd, &gs);
            pair.cpu.copy(&cd, &cs);
        }
    }
    pair.gpu.force_shared_transpose_for_testing(false);
    pair.assert_same("tiled transposes");
}

/// Grids beyond the per-dimension workgroup limit go 2-D.
#[test]
fn two_dimensional_grids_cover_every_element() {
    let mut pair = Pair::new();
    pair.gpu.restrict_limits_for_testing(None, Some(3));
    let shape = [40i64, 300];
    let s = pair.storage((0..12000 * 4).map(|i| (i % 253) as u8).collect());
    let d = pair.storage(vec![0; 12000 * 4]);
    let (gs, cs) = pair.view(
        s,
        DType::Float32,
        &Layout {
            shape: shape.to_vec(),
            strides: vec![1, 40],
            offset: 0,
        },
    );
    let (gd, cd) = pair.view(d, DType::Int16, &Layout::contiguous(&shape));
    pair.gpu.copy(&gd, &gs);
    pair.cpu.copy(&cd, &cs);
    pair.gpu.fill(&gd, Scalar::Int(7));
    pair.cpu.fill(&cd, Scalar::Int(7));
    pair.gpu.copy(&gd, &gs);
    pair.cpu.copy(&cd, &cs);
    pair.gpu.restrict_limits_for_testing(None, None);
    pair.assert_same("2-D grid");
}

/// Storages larger than one binding may be run on the CPU, and the op log names the limit.
#[test]
fn storages_beyond_the_binding_limit_fall_back_with_a_reason() {
    let mut pair = Pair::new();
    pair.gpu.restrict_limits_for_testing(Some(256), None);
    let s = pair.storage((0..=255).collect::<Vec<u8>>().repeat(2));
    let d = pair.storage(vec![0; 512]);
    let (gs, cs) = pair.view(s, DType::UInt8, &Layout::contiguous(&[512]));
    let (gd, cd) = pair.view(d, DType::Int16, &Layout::contiguous(&[256]));
    let gs = gs.with_layout(Layout {
        shape: vec![256],
        strides: vec![2],
        offset: 0,
    });
    let cs = cs.with_layout(Layout {
        shape: vec![256],
        strides: vec![2],
        offset: 0,
    });
    pair.gpu.copy(&gd, &gs);
    pair.cpu.copy(&cd, &cs);
    let log = pair.gpu.take_op_log();
    pair.gpu.restrict_limits_for_testing(None, None);
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].engine, "cpu");
    let reason = log[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("max_storage_buffer_binding_size"),
        "{reason}"
    );
    pair.assert_same("beyond the binding limit");
}

/// Float arithmetic on the values where adapters differ: zeros, denormals, infinities,
/// NaNs with payloads, the edges of the normal range.
#[test]
fn special_float_values_match_cpu() {
    let specials: Vec<u32> = vec![
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x807f_ffff,
        0x0080_0000,
        0x8080_0000,
        0x0080_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0xff80_1234,
        0x2000_0000,
        0x1f80_0000,
        0x0040_0000,
        0x3400_0000,
        0x00ff_ffff,
    ];
    let n = specials.len() as i64;
    let bytes: Vec<u8> = specials.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut pair = Pair::new();
    let s = pair.storage(bytes);
    for &dtype in &[DType::Float32, DType::Float16, DType::BFloat16] {
        for op in [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Lt,
            BinaryOp::Eq,
            BinaryOp::Ge,
        ] {
            let out_dtype = if op.is_comparison() {
                DType::Bool
            } else {
                dtype
            };
            // Every pair: a broadcast down the rows, b across the columns.
            let per = 4 / dtype.item_size() as i64;
            let count = n * per;
            let a = Layout {
                shape: vec![count, count],
                strides: vec![1, 0],
                offset: 0,
            };
            let b = Layout {
                shape: vec![count, count],
                strides: vec![0, 1],
                offset: 0,
            };
            let d = pair.storage(vec![0; (count * count) as usize * out_dtype.item_size()]);
            let (ga, ca) = pair.view(s, dtype, &a);
            let (gb, cb) = pair.view(s, dtype, &b);
            let (gd, cd) = pair.view(d, out_dtype, &Layout::contiguous(&[count, count]));
            let g = pair
                .gpu
                .binary(op, &gd, &Operand::Tensor(ga), &Operand::Tensor(gb), dtype);
            let c = pair
                .cpu
                .binary(op, &cd, &Operand::Tensor(ca), &Operand::Tensor(cb), dtype);
            assert_eq!(g, c);
        }
        for op in [
            UnaryOp::Neg,
            UnaryOp::Abs,
            UnaryOp::Relu,
            UnaryOp::LogicalNot,
        ] {
            let per = 4 / dtype.item_size() as i64;
            let layout = Layout::contiguous(&[n * per]);
            let out_dtype = if op == UnaryOp::LogicalNot {
                DType::Bool
            } else {
                dtype
            };
            let d = pair.storage(vec![0; (n * per) as usize * out_dtype.item_size()]);
            let (gs, cs) = pair.view(s, dtype, &layout);
            let (gd, cd) = pair.view(d, out_dtype, &layout);
            pair.gpu.unary(op, &gd, &gs, dtype);
            pair.cpu.unary(op, &cd, &cs, dtype);
        }
    }
    let log = pair.gpu.take_op_log();
    assert!(log.iter().all(|r| r.engine == "gpu"), "{log:?}");
    pair.assert_same("arithmetic on special values (storages in op order)");
}
