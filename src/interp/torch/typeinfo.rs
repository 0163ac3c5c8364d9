//! `torch.finfo(dtype)` and `torch.iinfo(dtype)`: the numeric limits of a dtype, with their
//! attributes (`eps`, `max`, `min`, `tiny`, `bits`, ...) and PyTorch's printout, which writes
//! every number as C's `%g` (`finfo(resolution=1e-06, min=-3.40282e+38, ...)`).

use crate::core::print::pyfmt;
use crate::core::tensor::{DType, ScriptError};
use crate::interp::value::Value;
use crate::interp::R;

/// `torch.finfo(type=None)` / `torch.iinfo(type)`: the info object of `dtype` (finfo's default
/// is the default float dtype), or PyTorch's `TypeError` for the wrong kind of dtype.
pub(crate) fn type_info(which: &str, pos: &[Value], kw: &[(String, Value)]) -> R<Value> {
    let arg = pos
        .first()
        .or_else(|| kw.iter().find(|(k, _)| k == "type").map(|(_, v)| v));
    let dtype = match arg {
        Some(Value::DType(d)) => *d,
        None if which == "finfo" => DType::Float32,
        None => {
            return Err(ScriptError::Type(
                "iinfo(): argument 'type' (position 1) must be torch.dtype, not NoneType".into(),
            ))
        }
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "{which}(): argument 'type' (position 1) must be torch.dtype, not {}",
                other.type_name()
            )))
        }
    };
    let floating = dtype.is_floating() || dtype.is_complex();
    match which {
        "finfo" if !floating => Err(ScriptError::Type(
            "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'".into(),
        )),
        "iinfo" if dtype == DType::Bool => Err(ScriptError::Type(
            "torch.bool is not supported by torch.iinfo".into(),
        )),
        "iinfo" if floating => Err(ScriptError::Type(
            "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'".into(),
        )),
        _ => Ok(Value::TypeInfo(real_dtype(dtype))),
    }
}

/// The real dtype whose limits a complex dtype has.
fn real_dtype(dtype: DType) -> DType {
    match dtype {
        DType::Complex64 => DType::Float32,
        DType::Complex128 => DType::Float64,
        d => d,
    }
}

/// A float dtype's limits: (bits, eps, max, smallest normal, resolution).
fn float_limits(dtype: DType) -> (i64, f64, f64, f64, f64) {
    match dtype {
        DType::Float16 => (16, 2f64.powi(-10), 65504.0, 2f64.powi(-14), 1e-3),
        DType::BFloat16 => (
            16,
            2f64.powi(-7),
            3.3895313892515355e38,
            2f64.powi(-126),
            1e-2,
        ),
        DType::Float64 => (64, f64::EPSILON, f64::MAX, f64::MIN_POSITIVE, 1e-15),
        _ => (
            32,
            f32::EPSILON as f64,
            f32::MAX as f64,
            f32::MIN_POSITIVE as f64,
            1e-6,
        ),
    }
}

/// An integer dtype's (min, max).
fn int_limits(dtype: DType) -> (i64, i64) {
    match dtype {
        DType::UInt8 => (0, u8::MAX as i64),
        DType::Int8 => (i8::MIN as i64, i8::MAX as i64),
        DType::Int16 => (i16::MIN as i64, i16::MAX as i64),
        DType::Int32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

/// `info.name`.
pub(crate) fn attribute(dtype: DType, name: &str) -> R<Value> {
    let dtype_name = Value::Str(dtype.name().to_string());
    if dtype.is_floating() {
        let (bits, eps, max, tiny, resolution) = float_limits(dtype);
        return Ok(match name {
            "bits" => Value::Int(bits),
            "eps" => Value::Float(eps),
            "max" => Value::Float(max),
            "min" => Value::Float(-max),
            "tiny" | "smallest_normal" => Value::Float(tiny),
            "resolution" => Value::Float(resolution),
            "dtype" => dtype_name,
            _ => {
                return Err(ScriptError::Attribute(format!(
                    "'torch.finfo' object has no attribute '{name}'"
                )))
            }
        });
    }
    let (min, max) = int_limits(dtype);
    Ok(match name {
        "bits" => Value::Int(8 * dtype.item_size() as i64),
        "max" => Value::Int(max),
        "min" => Value::Int(min),
        "dtype" => dtype_name,
        _ => {
            return Err(ScriptError::Attribute(format!(
                "'torch.iinfo' object has no attribute '{name}'"
            )))
        }
    })
}

/// PyTorch's printout of the info object.
pub(crate) fn repr(dtype: DType) -> String {
    let g = |x: f64| pyfmt::general(x, 6);
    if dtype.is_floating() {
        let (_, eps, max, tiny, resolution) = float_limits(dtype);
        return format!(
            "finfo(resolution={}, min={}, max={}, eps={}, smallest_normal={}, tiny={}, dtype={})",
            g(resolution),
            g(-max),
            g(max),
            g(eps),
            g(tiny),
            g(tiny),
            dtype.name()
        );
    }
    let (min, max) = int_limits(dtype);
    format!(
        "iinfo(min={}, max={}, dtype={})",
        g(min as f64),
        g(max as f64),
        dtype.name()
    )
}
