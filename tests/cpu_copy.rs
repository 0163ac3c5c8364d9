//! The CPU engine's fast layout copies (`Engine::copy`) write exactly the bytes of the
//! element-by-element reference copy (`CpuEngine::copy_reference`), for every dtype pair
//! and every kind of layout: expanded (stride 0) and overlapping sources, storage offsets,
//! gaps, permutations, 0-d and empty views, non-contiguous and self-overlapping
//! destinations, and a source and destination in one storage.

use proptest::prelude::*;
use stridescope::core::tensor::layout::contiguous_strides;
use stridescope::core::tensor::{DType, Layout, Tensor};
use stridescope::engines::{CpuEngine, Engine};

/// Every dtype, real and complex.
fn dtypes() -> Vec<DType> {
    DType::ALL.iter().chain(&DType::COMPLEX).copied().collect()
}

/// Words whose bytes are NaNs, infinities, denormals and non-0/1 bools in every dtype
/// size, mixed with random ones.
fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        1 => prop::sample::select(vec![
            0x7c01_7f81_7f80_0001u64, // float16 / bfloat16 / float32 signalling NaNs
            0xfd00_fd00_ff80_0001,    // negative signalling NaNs
            0x7ff0_0000_0000_0001,    // float64 signalling NaN
            0x7ff8_0000_0000_0000,    // float64 quiet NaN
            0x7f80_0000_7c00_0000,    // infinities
            0x8000_0000_0000_0001,    // denormals, -0
            0x0201_00ff_0002_0100,    // bools other than 0 and 1
            0x41cd_cd65_0000_4f80,    // large values: integer wrap on conversion
            0xc3e0_0000_0000_0001,    // -2^63 and below
        ]),
    ]
}

/// How one operand's strides are drawn for a shape.
#[derive(Clone, Copy, Debug)]
enum Strides {
    /// Row-major, times a gap factor.
    Contiguous,
    /// Row-major strides of a permutation of the dims, times a gap factor.
    Permuted,
    /// Anything non-negative: stride 0 (`expand`), overlaps (`as_strided`), gaps.
    Free,
}

fn strides_for(shape: &[i64], mode: Strides, gap: i64, perm_seed: usize, free: &[i64]) -> Vec<i64> {
    match mode {
        Strides::Contiguous => contiguous_strides(shape).iter().map(|s| s * gap).collect(),
        Strides::Permuted => {
            let n = shape.len();
            let mut order: Vec<usize> = (0..n).collect();
            // A permutation from the seed (Lehmer code style).
            let mut seed = perm_seed;
            for i in (1..n).rev() {
                order.swap(i, seed % (i + 1));
                seed /= i + 1;
            }
            let permuted: Vec<i64> = order.iter().map(|&d| shape[d]).collect();
            let dense = contiguous_strides(&permuted);
            let mut strides = vec![0; n];
            for (k, &d) in order.iter().enumerate() {
                strides[d] = dense[k] * gap;
            }
            strides
        }
        Strides::Free => free.iter().take(shape.len()).copied().collect(),
    }
}

/// Elements a layout needs its storage to hold.
fn needed(layout: &Layout) -> usize {
    layout.extent().map_or(0, |(_, end)| end as usize)
}

fn storage(words: &[u64], nbytes: usize) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .cycle()
        .take(nbytes)
        .collect()
}

/// One copy on a fresh engine: returns every storage's bytes afterwards.
#[allow(clippy::too_many_arguments)]
fn run(
    reference: bool,
    src_bytes: &[u8],
    dst_bytes: &[u8],
    same_storage: bool,
    src_layout: &Layout,
    src_dtype: DType,
    dst_layout: &Layout,
    dst_dtype: DType,
) -> Vec<Vec<u8>> {
    let mut cpu = CpuEngine::new();
    let src_id = cpu.allocate_with(src_bytes.to_vec());
    let dst_id = if same_storage {
        src_id
    } else {
        cpu.allocate_with(dst_bytes.to_vec())
    };
    let src = Tensor {
        storage: src_id,
        dtype: src_dtype,
        layout: src_layout.clone(),
    };
    let dst = Tensor {
        storage: dst_id,
        dtype: dst_dtype,
        layout: dst_layout.clone(),
    };
    if reference {
        cpu.copy_reference(&dst, &src);
    } else {
        cpu.copy(&dst, &src);
    }
    vec![cpu.read_storage(src_id), cpu.read_storage(dst_id)]
}

/// Checks one case: the fast copy against the reference, byte for byte.
#[allow(clippy::too_many_arguments)]
fn check(
    shape: &[i64],
    dst_shape: &[i64],
    src_strides: Vec<i64>,
    dst_strides: Vec<i64>,
    offsets: (i64, i64),
    dtypes: (DType, DType),
    same_storage: bool,
    words: &[u64],
) -> Result<(), TestCaseError> {
    let (src_dtype, dst_dtype) = dtypes;
    let src_layout = Layout {
        shape: shape.to_vec(),
        strides: src_strides,
        offset: offsets.0,
    };
    let dst_layout = Layout {
        shape: dst_shape.to_vec(),
        strides: dst_strides,
        offset: offsets.1,
    };
    let src_n = needed(&src_layout) * src_dtype.item_size();
    let dst_n = needed(&dst_layout) * dst_dtype.item_size();
    let (src_n, dst_n) = if same_storage {
        let n = src_n.max(dst_n) + 16;
        (n, n)
    } else {
        (src_n + 3, dst_n + 5)
    };
    let src_bytes = storage(words, src_n);
    let dst_bytes: Vec<u8> = storage(words, dst_n).iter().map(|b| b ^ 0x5a).collect();
    let fast = run(
        false,
        &src_bytes,
        &dst_bytes,
        same_storage,
        &src_layout,
        src_dtype,
        &dst_layout,
        dst_dtype,
    );
    let reference = run(
        true,
        &src_bytes,
        &dst_bytes,
        same_storage,
        &src_layout,
        src_dtype,
        &dst_layout,
        dst_dtype,
    );
    prop_assert_eq!(
        fast,
        reference,
        "{:?} {:?} -> {:?} {:?}",
        src_dtype,
        src_layout,
        dst_dtype,
        dst_layout
    );
    Ok(())
}

fn mode() -> impl Strategy<Value = Strides> {
    prop::sample::select(vec![Strides::Contiguous, Strides::Permuted, Strides::Free])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Small views: every dtype pair, every layout kind.
    #[test]
    fn fast_copy_equals_reference_on_small_views(
        shape in prop::collection::vec(0i64..6, 0..=4),
        src_mode in mode(),
        dst_mode in mode(),
        gaps in (1i64..3, 1i64..3),
        perms in (0usize..24, 0usize..24),
        src_free in prop::collection::vec(prop::sample::select(vec![0i64, 1, 2, 3, 5, 7, 12, 30]), 4),
        dst_free in prop::collection::vec(prop::sample::select(vec![0i64, 1, 2, 3, 5, 7, 12, 30]), 4),
        offsets in (0i64..5, 0i64..5),
        dtypes in (prop::sample::select(dtypes()), prop::sample::select(dtypes())),
        same_storage in prop::bool::weighted(0.15),
        reshaped in prop::bool::weighted(0.1),
        words in prop::collection::vec(word(), 1..40),
    ) {
        let src_strides = strides_for(&shape, src_mode, gaps.0, perms.0, &src_free);
        // A destination of another shape with as many elements (what `reshape` copies into).
        let dst_shape: Vec<i64> = if reshaped {
            shape.iter().rev().copied().collect()
        } else {
            shape.clone()
        };
        let dst_strides = strides_for(&dst_shape, dst_mode, gaps.1, perms.1, &dst_free);
        check(&shape, &dst_shape, src_strides, dst_strides, offsets, dtypes, same_storage,
            &words)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Views larger than the transpose tiles (whole and partial tiles), same dtype and
    /// converting.
    #[test]
    fn fast_copy_equals_reference_across_tiles(
        shape in prop::collection::vec(1i64..300, 2..=3)
            .prop_filter("at most 40k elements", |s| s.iter().product::<i64>() <= 40_000),
        src_mode in mode(),
        dst_mode in prop::sample::select(vec![Strides::Contiguous, Strides::Permuted]),
        perms in (0usize..6, 0usize..6),
        offsets in (0i64..3, 0i64..3),
        dtype in prop::sample::select(dtypes()),
        other in prop::sample::select(dtypes()),
        converting in prop::bool::weighted(0.2),
        words in prop::collection::vec(word(), 1..64),
    ) {
        let free = [0i64, 1, 1];
        let src_strides = strides_for(&shape, src_mode, 1, perms.0, &free);
        let dst_strides = strides_for(&shape, dst_mode, 1, perms.1, &free);
        let dtypes = (dtype, if converting { other } else { dtype });
        check(&shape, &shape, src_strides, dst_strides, offsets, dtypes, false, &words)?;
    }
}

#[test]
fn zero_dim_and_empty_views_copy_like_the_reference() {
    let words = [0x7f80_0001_7c01_0502u64, 0xffff_ffff_ffff_ffff];
    for (src_dtype, dst_dtype) in [
        (DType::Float32, DType::Float32),
        (DType::Bool, DType::Bool),
        (DType::Float16, DType::Int8),
        (DType::Complex64, DType::Float64),
    ] {
        // 0-d, at an offset.
        check(
            &[],
            &[],
            vec![],
            vec![],
            (1, 2),
            (src_dtype, dst_dtype),
            false,
            &words,
        )
        .expect("0-d copy");
        // Empty, with a zero-size dim among others.
        check(
            &[3, 0, 2],
            &[3, 0, 2],
            vec![2, 2, 1],
            vec![1, 3, 3],
            (0, 0),
            (src_dtype, dst_dtype),
            false,
            &words,
        )
        .expect("empty copy");
    }
}
