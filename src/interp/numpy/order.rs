//! NumPy's memory orders: the `order=` of `np.array`/`np.asarray` (`'C'`, `'F'`, `'A'`,
//! `'K'`) and the strides of the copy each makes (`PyArray_NewLikeArray`). A copy in order
//! `'K'` (the default of `np.array`) keeps the source's dim order: the dims sorted by the
//! size of their strides, gaps and negative steps dropped.

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::R;

/// A memory order, as `order=` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Row-major.
    C,
    /// Column-major.
    F,
    /// `F` when the source is Fortran-contiguous (and not C-contiguous), else `C`.
    A,
    /// The source's dim order.
    K,
}

/// Whether an array may share its source, must copy it, or must not copy (`copy=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CopyMode {
    /// `copy=True`.
    Always,
    /// `copy=None` (`np.asarray`): only when the dtype or the order asks for it.
    IfNeeded,
    /// `copy=False`: raise when a copy is needed.
    Never,
}

/// NumPy's message when `copy=False` cannot be honoured (its first line, as the trace shows
/// an exception; NumPy goes on with how to migrate from NumPy 1's `copy=False`).
pub(crate) const UNABLE_TO_AVOID_COPY: &str =
    "Unable to avoid copy while creating an array as requested.";

/// Reads an `order=` argument (`None` is `'K'`; letters in either case).
pub(crate) fn order_arg(v: Option<&Value>) -> R<Order> {
    let s = match v {
        None | Some(Value::None) => return Ok(Order::K),
        Some(Value::Str(s)) => s,
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "order must be str, not {}",
                other.type_name()
            )))
        }
    };
    match s.to_ascii_uppercase().as_str() {
        "C" => Ok(Order::C),
        "F" => Ok(Order::F),
        "A" => Ok(Order::A),
        "K" => Ok(Order::K),
        _ => Err(ScriptError::Value(format!(
            "order must be one of 'C', 'F', 'A', or 'K' (got '{s}')"
        ))),
    }
}

/// NumPy's `C_CONTIGUOUS` flag for element strides (dims of size 1 are free; an empty
/// array is contiguous).
pub(crate) fn c_contiguous(shape: &[i64], strides: &[i64]) -> bool {
    dense_in(shape, strides, (0..shape.len()).rev())
}

/// NumPy's `F_CONTIGUOUS` flag for element strides.
pub(crate) fn f_contiguous(shape: &[i64], strides: &[i64]) -> bool {
    dense_in(shape, strides, 0..shape.len())
}

fn dense_in(shape: &[i64], strides: &[i64], inner_first: impl Iterator<Item = usize>) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected = 1i64;
    for d in inner_first {
        if shape[d] != 1 && strides[d] != expected {
            return false;
        }
        expected = expected.saturating_mul(shape[d]);
    }
    true
}

/// Whether an array with these strides already is in `order` (so `np.asarray` keeps it).
pub(crate) fn satisfies(order: Order, shape: &[i64], strides: &[i64]) -> bool {
    match order {
        Order::C => c_contiguous(shape, strides),
        Order::F => f_contiguous(shape, strides),
        Order::A | Order::K => true,
    }
}

/// The element strides of a copy in `order` of an array with `shape` and `strides`.
pub(crate) fn copy_strides(order: Order, shape: &[i64], strides: &[i64]) -> Vec<i64> {
    let n = shape.len();
    let c_order: Vec<usize> = (0..n).collect();
    let f_order: Vec<usize> = (0..n).rev().collect();
    let c = c_contiguous(shape, strides);
    let f = f_contiguous(shape, strides);
    let outer_first = match order {
        Order::C => c_order,
        Order::F => f_order,
        Order::A if f && !c => f_order,
        Order::A => c_order,
        Order::K if c || n <= 1 => c_order,
        Order::K if f => f_order,
        Order::K => {
            // Largest |stride| outermost; ties keep their C order (NumPy's stable sort).
            let mut dims = c_order;
            crate::core::tensor::stable_sort::sort_by_key(&mut dims, |&d| {
                std::cmp::Reverse(strides[d].unsigned_abs())
            });
            dims
        }
    };
    let mut out = vec![0i64; n];
    let mut stride = 1i64;
    for &d in outer_first.iter().rev() {
        out[d] = stride;
        stride = stride.saturating_mul(shape[d].max(1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_order_follows_numpy() {
        // NumPy 2.4: np.array(x).strides / itemsize for these layouts.
        let k = |shape: &[i64], strides: &[i64]| copy_strides(Order::K, shape, strides);
        assert_eq!(k(&[3, 2], &[1, 3]), vec![1, 3]);
        assert_eq!(k(&[2, 2, 3], &[2, 12, 4]), vec![1, 6, 2]);
        assert_eq!(k(&[2, 3, 4], &[-12, 4, 1]), vec![12, 4, 1]);
        assert_eq!(k(&[4, 3, 2], &[1, -4, 12]), vec![1, 4, 12]);
        assert_eq!(k(&[3, 2], &[1, 0]), vec![2, 1]);
        assert_eq!(k(&[4, 3, 1], &[1, 4, 12]), vec![1, 4, 12]);
        assert_eq!(
            copy_strides(Order::A, &[2, 2, 3], &[2, 12, 4]),
            vec![6, 3, 1]
        );
        assert_eq!(copy_strides(Order::A, &[3, 2], &[1, 3]), vec![1, 3]);
        assert_eq!(copy_strides(Order::F, &[2, 3], &[3, 1]), vec![1, 2]);
    }

    #[test]
    fn order_arguments() {
        assert_eq!(
            order_arg(Some(&Value::Str("k".into()))).ok(),
            Some(Order::K)
        );
        assert_eq!(order_arg(None).ok(), Some(Order::K));
        assert!(order_arg(Some(&Value::Str("Ca".into()))).is_err());
        assert!(order_arg(Some(&Value::Int(1))).is_err());
    }
}
