//! The arguments ATen's random kernels check, with their messages, and how a drawn value
//! becomes a `Scalar` of the tensor's dtype.

use half::{bf16, f16};

use crate::core::tensor::random::cpp_double;
use crate::core::tensor::{DType, Scalar, ScriptError};

pub(super) fn not_implemented(kernel: &str, dtype: DType) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

/// `numeric_limits<T>::lowest()` and `max()` of a floating dtype, as doubles.
pub(super) fn float_limits(dtype: DType) -> (f64, f64) {
    let max = match dtype {
        DType::Float16 => f64::from(f16::MAX),
        DType::BFloat16 => f64::from(bf16::MAX),
        DType::Float32 => f64::from(f32::MAX),
        _ => f64::MAX,
    };
    (-max, max)
}

/// `numeric_limits<T>::digits`: the significand bits of a floating dtype.
pub(super) fn digits(dtype: DType) -> u32 {
    match dtype {
        DType::Float16 => 11,
        DType::BFloat16 => 8,
        DType::Float32 => 24,
        _ => 53,
    }
}

pub(super) fn check_uniform(from: f64, to: f64, dtype: DType) -> Result<(), ScriptError> {
    if !dtype.is_floating() {
        return Err(not_implemented("check_uniform_bounds", dtype));
    }
    let (min, max) = float_limits(dtype);
    let type_name = dtype.cpp_type_name();
    if !(from >= min && from <= max) {
        return Err(ScriptError::Runtime(format!(
            "from is out of bounds for {type_name}"
        )));
    }
    if !(to >= min && to <= max) {
        return Err(ScriptError::Runtime(format!(
            "to is out of bounds for {type_name}"
        )));
    }
    if from > to {
        return Err(ScriptError::Runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            cpp_double(from),
            cpp_double(to)
        )));
    }
    if to - from > max {
        return Err(ScriptError::Runtime(format!(
            "uniform_ expects to-from <= std::numeric_limits<{}>::max(), but found to={} and from={} which result in to-from to exceed the limit",
            dtype.scalar_type_name(),
            cpp_double(to),
            cpp_double(from)
        )));
    }
    Ok(())
}

/// `static_cast<int64_t>(static_cast<scalar_t>(v))` for a floating dtype.
pub(super) fn through_float(v: i64, dtype: DType) -> i64 {
    match from_i64(v, dtype) {
        Scalar::Float(f) => f as i64,
        _ => v,
    }
}

/// `update_from<scalar_t>`: moves `from` right to the next value that survives the cast.
pub(super) fn update_from(from: i64, dtype: DType) -> i64 {
    let from_plus_1 = through_float(from.wrapping_add(1), dtype);
    if from_plus_1 < from {
        let mut from_ = from.wrapping_add(1).unsigned_abs();
        let mut n: i64 = 0;
        loop {
            from_ >>= 1;
            if from_ == 0 {
                break;
            }
            n += 1;
        }
        let shift = n - i64::from(digits(dtype)) + 1;
        return from_plus_1.wrapping_add(1i64.wrapping_shl(shift as u32));
    }
    from
}

/// `update_to<scalar_t>`: moves `to` left to the previous value that survives the cast.
pub(super) fn update_to(to: i64, dtype: DType) -> i64 {
    let to_minus_1 = through_float(to.wrapping_sub(1), dtype);
    if to_minus_1 >= to {
        let mut to_ = to.wrapping_sub(1).unsigned_abs();
        let mut n: i64 = 0;
        loop {
            to_ >>= 1;
            if to_ == 0 {
                break;
            }
            n += 1;
        }
        let shift = n - i64::from(digits(dtype)) + 1;
        return to_minus_1.wrapping_sub(1i64.wrapping_shl(shift as u32));
    }
    to
}

/// `check_from_to_in_range`: `from` and `to - 1` must fit the dtype.
pub(super) fn check_in_range(from: i64, to_inc: i64, dtype: DType) -> Result<(), ScriptError> {
    let type_name = dtype.cpp_type_name();
    let out = |name: &str| {
        Err(ScriptError::Runtime(format!(
            "{name} is out of bounds for {type_name}"
        )))
    };
    if dtype.is_floating() {
        let (min, max) = float_limits(dtype);
        if !(from as f64 >= min && from as f64 <= max) {
            return out("from");
        }
        if !(to_inc as f64 >= min && to_inc as f64 <= max) {
            return out("to - 1");
        }
    } else {
        let (min, max) = int_limits(dtype);
        if !(from >= min && from <= max) {
            return out("from");
        }
        if !(to_inc >= min && to_inc <= max) {
            return out("to - 1");
        }
    }
    Ok(())
}

pub(super) fn int_limits(dtype: DType) -> (i64, i64) {
    match dtype {
        DType::Bool => (0, 1),
        DType::UInt8 => (0, i64::from(u8::MAX)),
        DType::Int8 => (i64::from(i8::MIN), i64::from(i8::MAX)),
        DType::Int16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        DType::Int32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        _ => (i64::MIN, i64::MAX),
    }
}

/// `random_from_to_impl` with `to` given: returns the (possibly moved) `from` and the range.
pub(super) fn check_from_to(from: i64, to: i64, dtype: DType) -> Result<(i64, u64), ScriptError> {
    if from >= to {
        return Err(ScriptError::Runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={from} >= to={to}"
        )));
    }
    let (mut from, mut to) = (from, to);
    if dtype.is_floating() {
        from = update_from(from, dtype);
        to = update_to(to, dtype);
        if from >= to {
            return Err(ScriptError::Runtime(format!(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from={from} >= to={to}"
            )));
        }
    }
    check_in_range(from, to.wrapping_sub(1), dtype)?;
    Ok((from, (to as u64).wrapping_sub(from as u64)))
}

/// `random_from_to_impl` with `to = None` and `from > i64::MIN`: `[from, max]`.
pub(super) fn check_from(from: i64, dtype: DType) -> Result<(i64, u64), ScriptError> {
    let mut from = from;
    let to_inc = if dtype.is_floating() {
        let to_inc = 1i64 << digits(dtype).min(62);
        from = update_from(from, dtype);
        if from >= to_inc {
            return Err(ScriptError::Runtime(format!(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got from={from} > to_inc={to_inc}"
            )));
        }
        to_inc
    } else {
        int_limits(dtype).1
    };
    check_in_range(from, to_inc, dtype)?;
    Ok((
        from,
        (to_inc as u64).wrapping_sub(from as u64).wrapping_add(1),
    ))
}

// ---------------------------------------------------------------- conversions

/// `static_cast<scalar_t>(int64_t)`: integers wrap, floats round (half and bfloat16 through
/// float, as c10 converts), bool is `!= 0`.
pub(super) fn from_i64(v: i64, dtype: DType) -> Scalar {
    match dtype {
        DType::Bool => Scalar::Bool(v != 0),
        DType::UInt8 => Scalar::Int(i64::from(v as u8)),
        DType::Int8 => Scalar::Int(i64::from(v as i8)),
        DType::Int16 => Scalar::Int(i64::from(v as i16)),
        DType::Int32 => Scalar::Int(i64::from(v as i32)),
        DType::Int64 => Scalar::Int(v),
        DType::Float16 => Scalar::Float(f64::from(f16::from_f32(v as f32))),
        DType::BFloat16 => Scalar::Float(f64::from(bf16::from_f32(v as f32))),
        DType::Float32 => Scalar::Float(f64::from(v as f32)),
        DType::Float64 | DType::Complex128 => Scalar::Float(v as f64),
        DType::Complex64 => Scalar::Float(f64::from(v as f32)),
    }
}

/// A float computed in single precision, stored as `dtype` (float16/bfloat16 round once).
pub(super) fn from_f32(v: f32, dtype: DType) -> Scalar {
    match dtype {
        DType::Float16 => Scalar::Float(f64::from(f16::from_f32(v))),
        DType::BFloat16 => Scalar::Float(f64::from(bf16::from_f32(v))),
        _ => Scalar::Float(f64::from(v)),
    }
}

/// `static_cast<scalar_t>(double)`: through float for the 16-bit types, as c10 converts.
pub(super) fn from_f64(v: f64, dtype: DType) -> Scalar {
    match dtype {
        DType::Float64 => Scalar::Float(v),
        _ => from_f32(v as f32, dtype),
    }
}

// ---------------------------------------------------------------- kernels
