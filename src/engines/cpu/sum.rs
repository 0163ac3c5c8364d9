//! Floating-point `sum` in ATen's order of additions (`ReduceOps/SumKernel.cpp`,
//! `cascade_sum`), so that sums and means round as PyTorch's do, to the last bit.
//!
//! ATen's TensorIterator moves the reduced dimensions innermost (by the input's strides),
//! coalesces dimensions, and hands 2-D chunks to one of four loops: a contiguous inner
//! reduction sums each row in vectors of 8 lanes (`Vectorized<float>` of its AVX2 kernel; 4
//! for doubles), a contiguous outer reduction sums columns of vectors, and the two scalar loops
//! do the same one element at a time. Every loop sums with `row_sum`: four interleaved
//! accumulators (`ilp_factor`), each a cascade of four levels that fold every 16 (or more)
//! additions. The accumulator has the input's precision (`float` for `float`, as on CUDA;
//! `acc_type<float, true>`), and each addition rounds to it. Inputs of more than 32,768
//! elements are split between threads by ATen; they are summed here as one thread does.

use crate::core::tensor::{DType, Layout};

/// The number of lanes of ATen's `Vectorized<float>` in its sum kernel: 8 (AVX2), also on
/// AVX-512 machines (measured against torch 2.15).
const FLOAT_LANES: usize = 8;
/// `Vectorized<double>` of the same kernel.
const DOUBLE_LANES: usize = 4;
/// `ilp_factor` of `row_sum`.
const ILP: usize = 4;
/// `num_levels` of `multi_row_sum`.
const LEVELS: usize = 4;

/// An accumulator: `f32` for float and half types, `f64` for doubles.
trait Acc: Copy + std::ops::Add<Output = Self> + Default {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Acc for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Acc for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

fn add<A: Acc, const L: usize>(a: [A; L], b: [A; L]) -> [A; L] {
    std::array::from_fn(|k| a[k] + b[k])
}

/// `CeilLog2`.
fn ceil_log2(n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as usize
    }
}

/// `multi_row_sum`: `R` rows of `size` items (`load(i, r)` is row `r`'s item `i`), summed
/// with the cascade of levels.
fn multi_row_sum<A: Acc, const L: usize, const R: usize>(
    load: &impl Fn(usize, usize) -> [A; L],
    size: usize,
) -> [[A; L]; R] {
    let level_power = (ceil_log2(size) / LEVELS).max(4);
    let level_step = 1usize << level_power;
    let level_mask = level_step - 1;
    let mut acc = [[[A::default(); L]; R]; LEVELS];
    let mut i = 0;
    while i + level_step <= size {
        for _ in 0..level_step {
            for (r, slot) in acc[0].iter_mut().enumerate() {
                *slot = add(*slot, load(i, r));
            }
            i += 1;
        }
        for j in 1..LEVELS {
            let (lower, upper) = acc.split_at_mut(j);
            for (up, low) in upper[0].iter_mut().zip(lower[j - 1].iter_mut()) {
                *up = add(*up, *low);
                *low = [A::default(); L];
            }
            let mask = level_mask << (j * level_power);
            if i & mask != 0 {
                break;
            }
        }
    }
    while i < size {
        for (r, slot) in acc[0].iter_mut().enumerate() {
            *slot = add(*slot, load(i, r));
        }
        i += 1;
    }
    let (first, rest) = acc.split_at_mut(1);
    for level in rest.iter() {
        for (total, v) in first[0].iter_mut().zip(level) {
            *total = add(*total, *v);
        }
    }
    acc[0]
}

/// `row_sum`: `size` items (`load(i)`), as four interleaved rows plus the tail.
fn row_sum<A: Acc, const L: usize>(load: &impl Fn(usize) -> [A; L], size: usize) -> [A; L] {
    let size_ilp = size / ILP;
    let mut partial: [[A; L]; ILP] =
        multi_row_sum(&|i: usize, k: usize| load(i * ILP + k), size_ilp);
    for i in size_ilp * ILP..size {
        partial[0] = add(partial[0], load(i));
    }
    for k in 1..ILP {
        partial[0] = add(partial[0], partial[k]);
    }
    partial[0]
}

/// One dimension of the iteration: its size, the input's stride and the output's (both in
/// elements; the output's is 0 along a reduced dimension).
#[derive(Clone, Copy, Debug)]
struct Dim {
    size: i64,
    input: i64,
    output: i64,
}

/// TensorIterator's dimensions for reducing `dims` of `src`: size-1 dimensions dropped,
/// reduced ones first (innermost), each group ordered by stride, then coalesced.
fn iteration_dims(src: &Layout, out_strides: &[i64], dims: &[usize]) -> Vec<Dim> {
    let mut all: Vec<Dim> = (0..src.shape.len())
        .filter(|&d| src.shape[d] != 1)
        .map(|d| Dim {
            size: src.shape[d],
            input: src.strides[d],
            output: if dims.contains(&d) { 0 } else { out_strides[d] },
        })
        .collect();
    // Innermost first: TensorIterator's dimension 0 moves fastest. Reduced dimensions go
    // first; the rest follow the output's strides, then the input's.
    all.reverse();
    let before = |a: &Dim, b: &Dim| -> std::cmp::Ordering {
        use std::cmp::Ordering::*;
        match (a.output == 0, b.output == 0) {
            (true, false) => return Less,
            (false, true) => return Greater,
            _ => {}
        }
        for (x, y) in [(a.output, b.output), (a.input, b.input)] {
            if x == 0 || y == 0 {
                continue;
            }
            match x.abs().cmp(&y.abs()) {
                Equal => {}
                other => return other,
            }
        }
        Equal
    };
    // A stable insertion sort, as TensorIterator's `reorder_dimensions`.
    for i in 1..all.len() {
        let mut j = i;
        while j > 0 && before(&all[j], &all[j - 1]) == std::cmp::Ordering::Less {
            all.swap(j, j - 1);
            j -= 1;
        }
    }
    let mut out: Vec<Dim> = Vec::new();
    for d in all {
        match out.last_mut() {
            Some(prev)
                if prev.input * prev.size == d.input && prev.output * prev.size == d.output =>
            {
                prev.size *= d.size;
            }
            _ => out.push(d),
        }
    }
    out
}

/// The sums of `src` over `dims`, one per element of the output (numbered contiguously in
/// the keepdim shape), in ATen's order. `read(offset)` reads the storage element at offset.
pub(super) fn aten_sum(
    src: &Layout,
    dtype: DType,
    dims: &[usize],
    out_shape: &[i64],
    read: &dyn Fn(i64) -> f64,
) -> Vec<f64> {
    let out_strides = crate::core::tensor::layout::contiguous_strides(out_shape);
    let out_n = out_shape.iter().product::<i64>().max(0) as usize;
    if dtype == DType::Float64 {
        run::<f64, DOUBLE_LANES>(src, dims, &out_strides, out_n, read)
    } else {
        run::<f32, FLOAT_LANES>(src, dims, &out_strides, out_n, read)
    }
}

fn run<A: Acc, const V: usize>(
    src: &Layout,
    dims: &[usize],
    out_strides: &[i64],
    out_n: usize,
    read: &dyn Fn(i64) -> f64,
) -> Vec<f64> {
    let mut out = vec![A::default(); out_n];
    if src.shape.contains(&0) {
        return out.into_iter().map(Acc::to_f64).collect();
    }
    let it = iteration_dims(src, out_strides, dims);
    let d0 = it.first().copied().unwrap_or(Dim {
        size: 1,
        input: 0,
        output: 0,
    });
    let d1 = it.get(1).copied().unwrap_or(Dim {
        size: 1,
        input: 0,
        output: 0,
    });
    let outer = it.get(2..).unwrap_or(&[]).to_vec();
    let outer_count: i64 = outer.iter().map(|d| d.size).product();
    for n in 0..outer_count {
        let (mut in_base, mut out_base, mut rest) = (src.offset, 0i64, n);
        for d in &outer {
            let i = rest % d.size;
            rest /= d.size;
            in_base += i * d.input;
            out_base += i * d.output;
        }
        loop_2d::<A, V>(&mut out, in_base, out_base, d0, d1, read);
    }
    out.into_iter().map(Acc::to_f64).collect()
}

/// ATen's `cascade_sum` loop over one 2-D chunk, adding into `out`.
fn loop_2d<A: Acc, const V: usize>(
    out: &mut [A],
    in_base: i64,
    out_base: i64,
    mut d0: Dim,
    mut d1: Dim,
    read: &dyn Fn(i64) -> f64,
) {
    if d0.output != 0 && d1.output == 0 {
        std::mem::swap(&mut d0, &mut d1);
    }
    let x = |i0: i64, i1: i64| A::from_f64(read(in_base + i0 * d0.input + i1 * d1.input));
    if d0.output != 0 {
        // Not a reduction over this chunk: each element adds into its own output.
        for j in 0..d1.size {
            for i in 0..d0.size {
                let at = out_base + i * d0.output + j * d1.output;
                if let Some(slot) = out.get_mut(at as usize) {
                    *slot = *slot + x(i, j);
                }
            }
        }
        return;
    }
    let mut store = |j: i64, stride: i64, v: A| {
        if let Some(slot) = out.get_mut((out_base + j * stride) as usize) {
            *slot = *slot + v;
        }
    };
    reduce_2d::<A, V>(&x, d0, d1, &mut store)
}

/// Dimension 0 reduced; dimension 1 runs over the outputs (or is a second reduced one).
fn reduce_2d<A: Acc, const V: usize>(
    x: &impl Fn(i64, i64) -> A,
    d0: Dim,
    d1: Dim,
    store: &mut impl FnMut(i64, i64, A),
) {
    let (size0, size1) = (d0.size as usize, d1.size as usize);
    let os = d1.output;
    if d0.input == 1 && size0 >= V {
        // vectorized_inner_sum
        let vec_size = size0 / V;
        for j in 0..size1 {
            let j = j as i64;
            let lanes: [A; V] = row_sum(
                &|i: usize| std::array::from_fn(|k| x((i * V + k) as i64, j)),
                vec_size,
            );
            let mut total = A::default();
            for k in vec_size * V..size0 {
                total = total + x(k as i64, j);
            }
            for lane in lanes {
                total = total + lane;
            }
            store(j, os, total);
        }
    } else if d1.input == 1 && size1 >= V {
        // vectorized_outer_sum
        let mut j = 0usize;
        while j + ILP * V <= size1 {
            let sums: [[A; V]; ILP] = multi_row_sum(
                &|i: usize, r: usize| std::array::from_fn(|k| x(i as i64, (j + r * V + k) as i64)),
                size0,
            );
            for (r, lanes) in sums.iter().enumerate() {
                for (k, v) in lanes.iter().enumerate() {
                    store((j + r * V + k) as i64, os, *v);
                }
            }
            j += ILP * V;
        }
        while j + V <= size1 {
            let lanes: [A; V] = row_sum(
                &|i: usize| std::array::from_fn(|k| x(i as i64, (j + k) as i64)),
                size0,
            );
            for (k, v) in lanes.iter().enumerate() {
                store((j + k) as i64, os, *v);
            }
            j += V;
        }
        while j < size1 {
            let [v] = row_sum(&|i: usize| [x(i as i64, j as i64)], size0);
            store(j as i64, os, v);
            j += 1;
        }
    } else if d0.input.abs() < d1.input.abs() {
        // scalar_inner_sum
        for j in 0..size1 {
            let [v] = row_sum(&|i: usize| [x(i as i64, j as i64)], size0);
            store(j as i64, os, v);
        }
    } else {
        // scalar_outer_sum
        let mut j = 0usize;
        while j + (ILP - 1) < size1 {
            let sums: [[A; 1]; ILP] =
                multi_row_sum(&|i: usize, r: usize| [x(i as i64, (j + r) as i64)], size0);
            for (r, [v]) in sums.iter().enumerate() {
                store((j + r) as i64, os, *v);
            }
            j += ILP;
        }
        while j < size1 {
            let [v] = row_sum(&|i: usize| [x(i as i64, j as i64)], size0);
            store(j as i64, os, v);
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum_of(values: &[f32]) -> f32 {
        let layout = Layout::contiguous(&[values.len() as i64]);
        let read = |o: i64| f64::from(values[o as usize]);
        aten_sum(&layout, DType::Float32, &[0], &[1], &read)[0] as f32
    }

    #[test]
    fn five_floats_sum_as_four_interleaved_accumulators() {
        // ((x0 + x4) + x1 + x2) + x3, as PyTorch 2.15 computes it.
        let v = [
            1.822_500_1_f32,
            0.455_625_03,
            0.0,
            0.455_625_03,
            1.822_500_1,
        ];
        assert_eq!(sum_of(&v) / 5.0, 0.911_25_f32);
    }

    #[test]
    fn sums_of_small_integers_are_exact() {
        let v: Vec<f32> = (0..100).map(|i| i as f32).collect();
        assert_eq!(sum_of(&v), 4950.0);
    }
}
