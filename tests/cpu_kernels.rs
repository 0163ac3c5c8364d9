//! The CPU engine's typed float kernels (`Engine::unary`, `binary`, `matmul`) write exactly
//! the bytes of their element-by-element references (`CpuEngine::unary_reference`,
//! `binary_reference`, `matmul_reference`): every op, every dtype (the typed paths take
//! float32/float64, the others must fall back unchanged), strided, expanded, overlapping and
//! offset views, numbers as operands, in-place ops on one storage, NaNs, infinities and
//! denormals, and products whose sums depend on the order of additions.

use proptest::prelude::*;
use stridescope::core::tensor::layout::contiguous_strides;
use stridescope::core::tensor::{DType, Layout, Scalar, StorageId, Tensor};
use stridescope::engines::{BinaryOp, CpuEngine, Engine, Operand, Summation, UnaryOp};

/// Words whose bytes are NaNs, infinities, denormals and -0 in float32 and float64, mixed
/// with ordinary floats of both sizes.
fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => (-1e3f32..1e3, -1e3f32..1e3)
            .prop_map(|(a, b)| u64::from(a.to_bits()) | (u64::from(b.to_bits()) << 32)),
        3 => (-1e3f64..1e3).prop_map(f64::to_bits),
        1 => any::<u64>(),
        1 => prop::sample::select(vec![
            0x7f80_0001_7fc0_0000u64, // float32 signalling and quiet NaNs
            0xff80_0000_7f80_0000,    // float32 infinities
            0x8000_0000_0000_0001,    // denormals, -0
            0x7ff0_0000_0000_0001,    // float64 signalling NaN
            0xfff8_0000_0000_0000,    // float64 negative quiet NaN
            0x7ff0_0000_0000_0000,    // float64 infinity
            0x0000_0000_0000_0000,    // zeros
        ]),
    ]
}

fn storage(words: &[u64], nbytes: usize) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .cycle()
        .take(nbytes)
        .collect()
}

/// Elements a layout needs its storage to hold.
fn needed(layout: &Layout) -> usize {
    layout.extent().map_or(0, |(_, end)| end as usize)
}

/// Strides for `shape`: row-major (times `gap`), transposed (reversed dims), or free
/// (stride 0 for broadcasting, overlaps, gaps).
fn strides_for(shape: &[i64], mode: u8, gap: i64, free: &[i64]) -> Vec<i64> {
    match mode {
        0 => contiguous_strides(shape).iter().map(|s| s * gap).collect(),
        1 => {
            let reversed: Vec<i64> = shape.iter().rev().copied().collect();
            let mut strides = contiguous_strides(&reversed);
            strides.reverse();
            strides.iter().map(|s| s * gap).collect()
        }
        _ => free.iter().take(shape.len()).copied().collect(),
    }
}

fn layout(shape: &[i64], strides: Vec<i64>, offset: i64) -> Layout {
    Layout {
        shape: shape.to_vec(),
        strides,
        offset,
    }
}

/// Two engines holding the same storages, one per layout given (its dtype sizes the bytes).
fn engines(views: &[(&Layout, DType)], words: &[u64]) -> (CpuEngine, CpuEngine, Vec<StorageId>) {
    let (mut fast, mut slow) = (CpuEngine::new(), CpuEngine::new());
    let mut ids = Vec::new();
    for (i, (layout, dtype)) in views.iter().enumerate() {
        let bytes = storage(
            &words[i % words.len()..],
            needed(layout) * dtype.item_size() + 3,
        );
        let id = fast.allocate_with(bytes.clone());
        assert_eq!(slow.allocate_with(bytes), id);
        ids.push(id);
    }
    (fast, slow, ids)
}

fn all_bytes(engine: &mut CpuEngine, ids: &[StorageId]) -> Vec<Vec<u8>> {
    ids.iter().map(|&id| engine.read_storage(id)).collect()
}

/// Each storage's bytes, the elements of `dtype` in the last one (the destination) with
/// every NaN as one: where two NaNs meet, which payload an addition keeps is the compiler's
/// choice (it may swap the operands of a commutative operation), in the reference too.
fn results(engine: &mut CpuEngine, ids: &[StorageId], dtype: DType) -> Vec<Vec<u8>> {
    let mut out = all_bytes(engine, ids);
    let size = dtype.item_size();
    if let Some(last) = out.last_mut() {
        let n = last.len() / size;
        for i in 0..n {
            if dtype.is_floating() && dtype.read(last, i).to_f64().is_nan() {
                last[i * size..(i + 1) * size].fill(0xee);
            }
        }
    }
    out
}

fn real_dtypes() -> Vec<DType> {
    DType::ALL.to_vec()
}

fn float_dtypes() -> Vec<DType> {
    vec![
        DType::Float32,
        DType::Float32,
        DType::Float64,
        DType::Float16,
    ]
}

fn number() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        (-5.0f64..5.0).prop_map(Scalar::Float),
        (-5i64..5).prop_map(Scalar::Int),
        any::<bool>().prop_map(Scalar::Bool),
        prop::sample::select(vec![f64::NAN, f64::INFINITY, 1e-320, -0.0, 1e-6, 3.4e38])
            .prop_map(Scalar::Float),
    ]
}

fn unary_op() -> impl Strategy<Value = UnaryOp> {
    prop_oneof![
        Just(UnaryOp::Neg),
        Just(UnaryOp::Abs),
        Just(UnaryOp::Relu),
        Just(UnaryOp::LogicalNot),
        (prop::option::of(number()), prop::option::of(number()))
            .prop_map(|(min, max)| UnaryOp::Clamp { min, max }),
    ]
}

fn binary_op() -> impl Strategy<Value = BinaryOp> {
    prop::sample::select(vec![
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::FloorDiv,
        BinaryOp::TruncDiv,
        BinaryOp::Rem,
        BinaryOp::Pow,
        BinaryOp::Lt,
        BinaryOp::Eq,
        BinaryOp::BitAnd,
    ])
}

const FREE: [i64; 8] = [0, 1, 2, 3, 5, 7, 12, 30];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `dst = op(src)`: typed and reference write the same bytes.
    #[test]
    fn typed_unary_equals_reference(
        shape in prop::collection::vec(0i64..6, 0..=3),
        modes in (0u8..3, 0u8..2),
        gaps in (1i64..3, 1i64..3),
        free in prop::collection::vec(prop::sample::select(FREE.to_vec()), 3),
        offsets in (0i64..4, 0i64..4),
        dtypes in (prop::sample::select(float_dtypes()), prop::sample::select(float_dtypes())),
        compute in prop::sample::select(vec![DType::Float32, DType::Float64, DType::Int64]),
        other_dtypes in prop::bool::weighted(0.1),
        src_dtype in prop::sample::select(real_dtypes()),
        op in unary_op(),
        in_place in prop::bool::weighted(0.2),
        words in prop::collection::vec(word(), 1..24),
    ) {
        let src_dtype = if other_dtypes { src_dtype } else { dtypes.0 };
        let src = layout(&shape, strides_for(&shape, modes.0, gaps.0, &free), offsets.0);
        let dst = layout(&shape, strides_for(&shape, modes.1, gaps.1, &free), offsets.1);
        let dst_dtype = if in_place { src_dtype } else { dtypes.1 };
        let (mut fast, mut slow, ids) = engines(&[(&src, src_dtype), (&dst, dst_dtype)], &words);
        let src_t = Tensor { storage: ids[0], dtype: src_dtype, layout: src.clone() };
        let dst_t = Tensor {
            storage: if in_place { ids[0] } else { ids[1] },
            dtype: dst_dtype,
            layout: if in_place { src.clone() } else { dst.clone() },
        };
        fast.unary(op, &dst_t, &src_t, compute);
        slow.unary_reference(op, &dst_t, &src_t, compute);
        let order = [ids[usize::from(in_place)], dst_t.storage];
        prop_assert_eq!(results(&mut fast, &order, dst_dtype), results(&mut slow, &order, dst_dtype),
            "{:?} {:?} {:?} -> {:?} {:?} in {:?}", op, src_dtype, src, dst_dtype, dst, compute);
    }

    /// `dst = a op b` with tensors (broadcast, strided, in place) and numbers: typed and
    /// reference write the same bytes and report the same errors.
    #[test]
    fn typed_binary_equals_reference(
        shape in prop::collection::vec(0i64..6, 0..=3),
        modes in (0u8..3, 0u8..3, 0u8..2),
        free in (
            prop::collection::vec(prop::sample::select(FREE.to_vec()), 3),
            prop::collection::vec(prop::sample::select(FREE.to_vec()), 3),
        ),
        offsets in (0i64..4, 0i64..4, 0i64..4),
        dtypes in (
            prop::sample::select(float_dtypes()),
            prop::sample::select(float_dtypes()),
            prop::sample::select(float_dtypes()),
        ),
        odd_dtype in prop::option::weighted(0.1, prop::sample::select(real_dtypes())),
        compute in prop::sample::select(vec![DType::Float32, DType::Float64, DType::Int64]),
        numbers in (prop::option::weighted(0.3, number()), prop::option::weighted(0.2, number())),
        op in binary_op(),
        in_place in prop::bool::weighted(0.2),
        words in prop::collection::vec(word(), 1..24),
    ) {
        let a = layout(&shape, strides_for(&shape, modes.0, 1, &free.0), offsets.0);
        let b = layout(&shape, strides_for(&shape, modes.1, 1, &free.1), offsets.1);
        let dst = layout(&shape, strides_for(&shape, modes.2, 1, &free.0), offsets.2);
        let a_dtype = odd_dtype.unwrap_or(dtypes.0);
        let dst_dtype = if in_place { a_dtype } else { dtypes.2 };
        let (mut fast, mut slow, ids) =
            engines(&[(&a, a_dtype), (&b, dtypes.1), (&dst, dst_dtype)], &words);
        let a_t = Tensor { storage: ids[0], dtype: a_dtype, layout: a.clone() };
        let dst_t = if in_place {
            a_t.clone()
        } else {
            Tensor { storage: ids[2], dtype: dst_dtype, layout: dst.clone() }
        };
        let a_op = match numbers.0 {
            Some(n) => Operand::Scalar(n),
            None => Operand::Tensor(a_t),
        };
        let b_op = match numbers.1 {
            Some(n) => Operand::Scalar(n),
            None => Operand::Tensor(Tensor { storage: ids[1], dtype: dtypes.1, layout: b.clone() }),
        };
        let got = fast.binary(op, &dst_t, &a_op, &b_op, compute);
        let want = slow.binary_reference(op, &dst_t, &a_op, &b_op, compute);
        prop_assert_eq!(got, want);
        let order = [ids[1], ids[if in_place { 2 } else { 0 }], dst_t.storage];
        prop_assert_eq!(results(&mut fast, &order, dst_dtype), results(&mut slow, &order, dst_dtype),
            "{:?} {:?} {:?} -> {:?} in {:?}", op, a_op, b_op, dst_t, compute);
    }

    /// `dst = a @ b` on row-major, transposed, gapped and expanded views: the register blocks
    /// add each product in the reference's order.
    #[test]
    fn typed_matmul_equals_reference(
        dims in (0i64..21, 0i64..40, 0i64..37),
        modes in (0u8..3, 0u8..3, 0u8..2),
        gaps in (1i64..3, 1i64..3),
        free in prop::collection::vec(prop::sample::select(FREE.to_vec()), 2),
        offsets in (0i64..4, 0i64..4, 0i64..4),
        dtype in prop::sample::select(vec![
            DType::Float32, DType::Float32, DType::Float64, DType::Int64, DType::Float16,
        ]),
        words in prop::collection::vec(word(), 1..40),
        opmath in any::<bool>(),
    ) {
        let (m, k, n) = dims;
        let sum = if opmath { Summation::Opmath } else { Summation::Blas };
        let a = layout(&[m, k], strides_for(&[m, k], modes.0, gaps.0, &free), offsets.0);
        let b = layout(&[k, n], strides_for(&[k, n], modes.1, gaps.1, &free), offsets.1);
        let dst = layout(&[m, n], strides_for(&[m, n], modes.2, 1, &free), offsets.2);
        let (mut fast, mut slow, ids) =
            engines(&[(&a, dtype), (&b, dtype), (&dst, dtype)], &words);
        let t = |i: usize, l: &Layout| Tensor { storage: ids[i], dtype, layout: l.clone() };
        fast.matmul(&t(2, &dst), &t(0, &a), &t(1, &b), sum);
        slow.matmul_reference(&t(2, &dst), &t(0, &a), &t(1, &b), sum);
        prop_assert_eq!(results(&mut fast, &ids, dtype), results(&mut slow, &ids, dtype),
            "{:?} {:?} {:?} @ {:?} -> {:?}", sum, dtype, a, b, dst);
    }
}

/// Products as large as a model's layers (several blocks and partial ones each way; float32
/// `k` up to 384 one chain, up to 768 two, beyond that the float64 sum).
#[test]
fn large_products_equal_the_reference() {
    let words: Vec<u64> = (0..997u64)
        .map(|i| {
            let x = ((i * 7919 % 1013) as f32 - 500.0) * 1.001f32.powi(i as i32 % 50);
            u64::from(x.to_bits()) | (u64::from((x * 0.37).to_bits()) << 32)
        })
        .collect();
    for (m, k, n, transposed) in [
        (64, 1000, 100, false),
        (100, 64, 1000, true),
        (65, 257, 33, true),
        (9, 501, 40, false),
        (20, 700, 17, true),
    ] {
        let a_layout = if transposed {
            layout(&[m, k], vec![1, m], 0)
        } else {
            layout(&[m, k], contiguous_strides(&[m, k]), 0)
        };
        let b_layout = layout(&[k, n], contiguous_strides(&[k, n]), 0);
        let dst = layout(&[m, n], contiguous_strides(&[m, n]), 0);
        let dtype = DType::Float32;
        let (mut fast, mut slow, ids) = engines(
            &[(&a_layout, dtype), (&b_layout, dtype), (&dst, dtype)],
            &words,
        );
        let t = |i: usize, l: &Layout| Tensor {
            storage: ids[i],
            dtype,
            layout: l.clone(),
        };
        fast.matmul(
            &t(2, &dst),
            &t(0, &a_layout),
            &t(1, &b_layout),
            Summation::Blas,
        );
        slow.matmul_reference(
            &t(2, &dst),
            &t(0, &a_layout),
            &t(1, &b_layout),
            Summation::Blas,
        );
        assert_eq!(
            results(&mut fast, &ids, dtype),
            results(&mut slow, &ids, dtype),
            "{m}x{k}x{n}"
        );
    }
}
