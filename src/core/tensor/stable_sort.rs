//! One stable sort for the whole crate.
//!
//! The standard library's `sort_by` is fast, but each call site instantiates its whole
//! driftsort for the closure's type (about 4 KB of wasm each): twenty call sites cost the web
//! app 60 KB. Here the sorting is done once, on indices, through a `dyn` comparator, and only
//! the tiny wrapper that applies the permutation is generic. It is a bottom-up merge sort:
//! stable, O(n log n) comparisons, O(n) extra memory, like `slice::sort_by`.

use std::cmp::Ordering;

/// Runs shorter than this are sorted by insertion before merging.
const RUN: usize = 8;

/// The permutation that stably sorts `n` items: `order[k]` is the index of the item that
/// belongs at position `k`. `cmp(i, j)` compares items `i` and `j`.
pub fn sorted_order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for run in order.chunks_mut(RUN) {
        for k in 1..run.len() {
            let mut j = k;
            while j > 0 && cmp(run[j - 1], run[j]) == Ordering::Greater {
                run.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    let mut spare = vec![0usize; n];
    let mut width = RUN;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            for slot in &mut spare[start..end] {
                // Take from the right run only when it is strictly smaller: stability.
                let right = j < end && (i >= mid || cmp(order[i], order[j]) == Ordering::Greater);
                if right {
                    *slot = order[j];
                    j += 1;
                } else {
                    *slot = order[i];
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut order, &mut spare);
        width *= 2;
    }
    order
}

/// Reorders `v` so that `v[k]` becomes the old `v[order[k]]` (cycle by cycle, O(n) swaps).
pub fn apply_order<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        if done[start] {
            continue;
        }
        done[start] = true;
        let mut k = start;
        loop {
            let j = order[k];
            if j == start {
                break;
            }
            v.swap(k, j);
            done[j] = true;
            k = j;
        }
    }
}

/// `slice::sort_by`, stable.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = sorted_order(v.len(), &mut |i, j| cmp(&v[i], &v[j]));
    apply_order(v, &order);
}

/// `slice::sort_by_key`, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// `slice::sort`, stable.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, |a, b| a.cmp(b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_standard_library_and_stays_stable() {
        let mut seed = 12345u64;
        for n in [0usize, 1, 2, 7, 8, 9, 16, 17, 100, 1000] {
            let items: Vec<(u8, usize)> = (0..n)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 59) as u8, i)
                })
                .collect();
            let mut ours = items.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut std_sorted = items.clone();
            std_sorted.sort_by_key(|p| p.0);
            assert_eq!(ours, std_sorted, "n = {n}");
        }
    }

    #[test]
    fn applies_any_permutation() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        apply_order(&mut v, &[3, 0, 4, 1, 2]);
        assert_eq!(v, vec!['d', 'a', 'e', 'b', 'c']);
    }
}
