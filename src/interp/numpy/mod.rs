//! NumPy, where PyTorch shares memory with it: the `np.` functions that make arrays
//! (`array`, `asarray`, `ones`, `zeros`, `empty`, `full`, `arange`), the dtypes, the ufuncs
//! with `out=` (`add`, `subtract`, `multiply`, `divide`) and `shares_memory`.
//! An `ndarray` is a view of an evaluator storage, like a tensor: `t.numpy()` and
//! `torch.from_numpy(n)` (in `numpy/bridge.rs`) share it. Arrays themselves live in
//! `numpy/array.rs`. Nothing beyond this memory-sharing subset of NumPy is modelled.

mod array;
mod bridge;
mod fancy;
mod layout_funcs;
mod order;
mod ufuncs;

use std::cell::RefCell;
use std::rc::Rc;

use crate::core::print::numpy_str::numpy_dtype_name;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::value::{TensorObject, Value};
use crate::interp::{Evaluator, R};

pub(super) use array::numpy_promote;
use order::{CopyMode, Order};

/// NumPy's scalar types, by the names `np.` gives them.
fn dtype_named(name: &str) -> Option<DType> {
    Some(match name {
        "float16" | "half" => DType::Float16,
        "float32" | "single" => DType::Float32,
        "float64" | "double" | "float_" => DType::Float64,
        "int8" | "byte" => DType::Int8,
        "int16" | "short" => DType::Int16,
        "int32" | "intc" => DType::Int32,
        "int64" | "int_" | "intp" | "long" | "longlong" => DType::Int64,
        "uint8" | "ubyte" => DType::UInt8,
        "bool_" | "bool" => DType::Bool,
        _ => return None,
    })
}

/// `np.` functions.
const FUNCTIONS: &[&str] = &[
    "array",
    "asarray",
    "ones",
    "zeros",
    "empty",
    "full",
    "ones_like",
    "zeros_like",
    "arange",
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "shares_memory",
    "may_share_memory",
    "reshape",
    "transpose",
    "dtype",
];

/// A new array object viewing `tensor`.
pub(super) fn ndarray(tensor: Tensor, made_by: &str) -> Value {
    Value::NdArray(Rc::new(RefCell::new(TensorObject {
        tensor,
        made_by: made_by.to_string(),
        copied_from: None,
        requires_grad: false,
        grad_fn: None,
        grad: None,
        is_parameter: false,
        view_of: None,
    })))
}

/// A new array on memory NumPy allocated for it. NumPy 2 gives such an array with no
/// elements all-zero strides (views keep theirs: `z[:0].strides` is `z`'s).
pub(super) fn new_ndarray(mut tensor: Tensor, made_by: &str) -> Value {
    if tensor.numel() == 0 {
        tensor.layout.strides.iter_mut().for_each(|s| *s = 0);
    }
    ndarray(tensor, made_by)
}

/// Takes keyword `name` out of `kw`.
fn take_kw(kw: &mut Vec<(String, Value)>, name: &str) -> Option<Value> {
    let i = kw.iter().position(|(k, _)| k == name)?;
    Some(kw.remove(i).1)
}

/// Refuses keywords left over after binding.
fn no_more_kw(func: &str, kw: &[(String, Value)]) -> R<()> {
    match kw.first() {
        Some((k, _)) => Err(ScriptError::Type(format!(
            "{func}() got an unexpected keyword argument '{k}'"
        ))),
        None => Ok(()),
    }
}

impl Evaluator {
    /// `np.name`.
    pub(super) fn numpy_attribute(&mut self, name: &str) -> R<Value> {
        let numpy = || Value::Method(Box::new(Value::Module("numpy".into())), name.into());
        match name {
            "pi" => Ok(Value::Float(std::f64::consts::PI)),
            "e" => Ok(Value::Float(std::f64::consts::E)),
            "inf" => Ok(Value::Float(f64::INFINITY)),
            "nan" => Ok(Value::Float(f64::NAN)),
            "newaxis" => Ok(Value::None),
            _ if FUNCTIONS.contains(&name)
                || ufuncs::UNARY.contains(&name)
                || ufuncs::REDUCTIONS.contains(&name)
                || layout_funcs::LAYOUT_FUNCTIONS.contains(&name)
                || dtype_named(name).is_some() =>
            {
                Ok(numpy())
            }
            _ => Err(ScriptError::Attribute(format!(
                "module 'numpy' has no attribute '{name}'"
            ))),
        }
    }

    /// A dtype argument as NumPy reads one: `np.float32`, `dtype('float32')`, `'float32'`,
    /// or Python's `float`/`int`/`bool`.
    pub(super) fn numpy_dtype_arg(&self, v: &Value) -> R<Option<DType>> {
        let named = match v {
            Value::None => return Ok(None),
            Value::NpDType(d) => return Ok(Some(*d)),
            Value::Method(receiver, name) => match (&**receiver, name.as_str()) {
                (Value::Module(m), n) if m == "numpy" => dtype_named(n),
                (Value::None, "float") => Some(DType::Float64),
                (Value::None, "int") => Some(DType::Int64),
                (Value::None, "bool") => Some(DType::Bool),
                _ => None,
            },
            Value::Str(s) => match s.as_str() {
                "f" | "f4" => Some(DType::Float32),
                "d" | "f8" => Some(DType::Float64),
                "i4" => Some(DType::Int32),
                "i8" => Some(DType::Int64),
                "u1" => Some(DType::UInt8),
                "?" => Some(DType::Bool),
                s => dtype_named(s).filter(|_| s != "bool_"),
            },
            _ => None,
        };
        match (named, v) {
            (Some(d), _) => Ok(Some(d)),
            (None, Value::Str(s)) => Err(ScriptError::Type(format!(
                "data type {} not understood",
                crate::interp::python::repr::py_str_repr(s)
            ))),
            (None, Value::DType(d)) => Err(ScriptError::Type(format!(
                "Cannot interpret '{}' as a data type",
                d.torch_repr()
            ))),
            (None, other) => Err(ScriptError::Type(format!(
                "Cannot interpret '{}' as a data type",
                other.type_name()
            ))),
        }
    }

    /// A shape argument: an int or a sequence of ints.
    fn numpy_shape(&mut self, v: &Value) -> R<Vec<i64>> {
        let shape = match v {
            Value::Tuple(_) | Value::List(_) | Value::Size(_) => {
                let mut out = Vec::new();
                for item in self.iterate(v)? {
                    out.push(self.numpy_index_int(&item)?);
                }
                out
            }
            other => vec![self.numpy_index_int(other)?],
        };
        if shape.iter().any(|&n| n < 0) {
            return Err(ScriptError::Value(
                "negative dimensions are not allowed".into(),
            ));
        }
        if shape.len() > 64 {
            return Err(ScriptError::Value(format!(
                "maximum supported dimension for an ndarray is currently 64, found {}",
                shape.len()
            )));
        }
        self.check_shape(&shape)?;
        Ok(shape)
    }

    /// An integer as NumPy takes one for a size or an index.
    fn numpy_index_int(&mut self, v: &Value) -> R<i64> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(i64::from(*b)),
            Value::NpScalar(d, s) if d.is_integral() => Ok(s.to_wrapped_int()),
            other => Err(ScriptError::Type(format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ))),
        }
    }

    /// `np.name(...)`.
    pub(super) fn call_numpy(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        mut kw: Vec<(String, Value)>,
    ) -> R<Value> {
        if let Some(d) = dtype_named(name) {
            return self.numpy_scalar_of(name, d, &pos);
        }
        if layout_funcs::LAYOUT_FUNCTIONS.contains(&name) {
            return self.numpy_layout_function(name, pos, kw);
        }
        if ufuncs::UNARY.contains(&name) {
            let x = pos.first().cloned().ok_or_else(|| {
                ScriptError::Type(format!(
                    "{name}() takes from 1 to 2 positional arguments but 0 were given"
                ))
            })?;
            no_more_kw(name, &kw)?;
            return self.numpy_unary(name, &x);
        }
        if ufuncs::REDUCTIONS.contains(&name) {
            let a = pos
                .first()
                .cloned()
                .or_else(|| take_kw(&mut kw, "a"))
                .ok_or_else(|| {
                    ScriptError::Type(format!(
                        "{name}() missing 1 required positional argument: 'a'"
                    ))
                })?;
            let axis = pos.get(1).cloned().or_else(|| take_kw(&mut kw, "axis"));
            let keepdims = match take_kw(&mut kw, "keepdims") {
                Some(v) => self.truthy(&v)?,
                None => false,
            };
            no_more_kw(name, &kw)?;
            return self.numpy_reduce(name, &a, axis.as_ref(), keepdims);
        }
        let arg = |i: usize, kw: &mut Vec<(String, Value)>, key: &str| -> Option<Value> {
            pos.get(i).cloned().or_else(|| take_kw(kw, key))
        };
        match name {
            "array" | "asarray" => {
                let object = arg(0, &mut kw, "object")
                    .or_else(|| take_kw(&mut kw, "a"))
                    .ok_or_else(|| {
                        ScriptError::Type(format!(
                            "{name}() missing required argument 'object' (pos 1)"
                        ))
                    })?;
                if name == "array" && pos.len() > 2 {
                    return Err(ScriptError::Type(format!(
                        "array() takes from 1 to 2 positional arguments but {} were given",
                        pos.len()
                    )));
                }
                let dtype = match arg(1, &mut kw, "dtype") {
                    Some(v) => self.numpy_dtype_arg(&v)?,
                    None => None,
                };
                let order = match name {
                    "asarray" => arg(2, &mut kw, "order"),
                    _ => take_kw(&mut kw, "order"),
                };
                let order = order::order_arg(order.as_ref())?;
                let copy = match take_kw(&mut kw, "copy") {
                    None if name == "array" => CopyMode::Always,
                    None | Some(Value::None) => CopyMode::IfNeeded,
                    Some(v) if self.truthy(&v)? => CopyMode::Always,
                    Some(_) => CopyMode::Never,
                };
                no_more_kw(name, &kw)?;
                self.numpy_array_as(&object, dtype, copy, order)
            }
            "ones" | "zeros" | "empty" | "full" => {
                let shape = arg(0, &mut kw, "shape").ok_or_else(|| {
                    ScriptError::Type(format!(
                        "{name}() missing required argument 'shape' (pos 1)"
                    ))
                })?;
                let shape = self.numpy_shape(&shape)?;
                let (fill, dtype_at) = if name == "full" {
                    let v = arg(1, &mut kw, "fill_value").ok_or_else(|| {
                        ScriptError::Type(
                            "full() missing 1 required positional argument: 'fill_value'".into(),
                        )
                    })?;
                    (Some(v), 2)
                } else {
                    (None, 1)
                };
                let dtype = match arg(dtype_at, &mut kw, "dtype") {
                    Some(v) => self.numpy_dtype_arg(&v)?,
                    None => None,
                };
                no_more_kw(name, &kw)?;
                let value = match &fill {
                    Some(v) => self.numpy_number(v)?,
                    None => Scalar::Int(i64::from(name == "ones")),
                };
                let dtype = dtype.unwrap_or(match (&fill, value) {
                    (Some(_), Scalar::Bool(_)) => DType::Bool,
                    (Some(_), Scalar::Int(_)) => DType::Int64,
                    _ => DType::Float64,
                });
                let t = self.full(&shape, value, dtype, name)?;
                Ok(new_ndarray(t, name))
            }
            "ones_like" | "zeros_like" => {
                let a = arg(0, &mut kw, "a").ok_or_else(|| {
                    ScriptError::Type(format!(
                        "{name}() missing 1 required positional argument: 'a'"
                    ))
                })?;
                let dtype = match arg(1, &mut kw, "dtype") {
                    Some(v) => self.numpy_dtype_arg(&v)?,
                    None => None,
                };
                no_more_kw(name, &kw)?;
                let src = self.as_ndarray_tensor(&a)?;
                let value = Scalar::Int(i64::from(name == "ones_like"));
                let t = self.full(src.shape(), value, dtype.unwrap_or(src.dtype), name)?;
                Ok(new_ndarray(t, name))
            }
            "arange" => {
                let dtype = match take_kw(&mut kw, "dtype") {
                    Some(v) => self.numpy_dtype_arg(&v)?,
                    None => None,
                };
                let mut nums = Vec::new();
                for (i, key) in ["start", "stop", "step"].iter().enumerate() {
                    if let Some(v) = arg(i, &mut kw, key) {
                        nums.push(self.numpy_number(&v)?);
                    }
                }
                no_more_kw(name, &kw)?;
                self.numpy_arange(&nums, dtype)
            }
            "add" | "subtract" | "multiply" | "divide" | "true_divide" => {
                let out = take_kw(&mut kw, "out");
                let a = arg(0, &mut kw, "x1");
                let b = arg(1, &mut kw, "x2");
                let out = out.or_else(|| pos.get(2).cloned());
                no_more_kw(name, &kw)?;
                let (Some(a), Some(b)) = (a, b) else {
                    return Err(ScriptError::Type(format!(
                        "{name}() takes from 2 to 3 positional arguments but {} were given",
                        pos.len()
                    )));
                };
                let op = match name {
                    "add" => crate::lang::ast::BinOp::Add,
                    "subtract" => crate::lang::ast::BinOp::Sub,
                    "multiply" => crate::lang::ast::BinOp::Mul,
                    _ => crate::lang::ast::BinOp::Div,
                };
                let out = match out {
                    None | Some(Value::None) => None,
                    Some(Value::Tuple(items)) if items.len() == 1 => items.into_iter().next(),
                    Some(v) => Some(v),
                };
                match out {
                    None => self.numpy_binary(op, &a, &b),
                    Some(Value::NdArray(o)) => self.numpy_ufunc_out(name, op, &a, &b, &o),
                    Some(other) => Err(ScriptError::Type(format!(
                        "return arrays must be of ArrayType, not {}",
                        other.type_name()
                    ))),
                }
            }
            "shares_memory" | "may_share_memory" => {
                let (Some(a), Some(b)) = (arg(0, &mut kw, "a"), arg(1, &mut kw, "b")) else {
                    return Err(ScriptError::Type(format!(
                        "{name}() takes at least 2 positional arguments"
                    )));
                };
                let a = self.memory_of(&a);
                let b = self.memory_of(&b);
                Ok(Value::Bool(match (a, b) {
                    (Some(a), Some(b)) => bridge::overlaps(&a, &b),
                    _ => false,
                }))
            }
            "reshape" => {
                let (Some(a), Some(shape)) = (arg(0, &mut kw, "a"), arg(1, &mut kw, "shape"))
                else {
                    return Err(ScriptError::Type(
                        "reshape() missing 1 required positional argument: 'shape'".into(),
                    ));
                };
                let a = self.numpy_array(&a, None, false)?;
                self.call(
                    Value::Method(Box::new(a), "reshape".into()),
                    vec![shape],
                    kw,
                )
            }
            "transpose" => {
                let a = arg(0, &mut kw, "a").ok_or_else(|| {
                    ScriptError::Type(
                        "transpose() missing 1 required positional argument: 'a'".into(),
                    )
                })?;
                let a = self.numpy_array(&a, None, false)?;
                let rest: Vec<Value> = pos.iter().skip(1).cloned().collect();
                self.call(Value::Method(Box::new(a), "transpose".into()), rest, kw)
            }
            "dtype" => {
                let v = arg(0, &mut kw, "dtype").unwrap_or(Value::None);
                match self.numpy_dtype_arg(&v)? {
                    Some(d) => Ok(Value::NpDType(d)),
                    None => Ok(Value::NpDType(DType::Float64)),
                }
            }
            _ => Err(ScriptError::Attribute(format!(
                "module 'numpy' has no attribute '{name}'"
            ))),
        }
    }

    /// `np.float32(1.5)`: a NumPy scalar.
    fn numpy_scalar_of(&mut self, name: &str, dtype: DType, pos: &[Value]) -> R<Value> {
        let value = match pos.first() {
            None => Scalar::Int(0),
            Some(v @ (Value::List(_) | Value::Tuple(_) | Value::NdArray(_))) => {
                let a = self.numpy_array(v, Some(dtype), true)?;
                return Ok(a);
            }
            Some(v) => self.numpy_number(v).map_err(|_| {
                ScriptError::Type(format!(
                    "{name}() argument must be a string or a number, not '{}'",
                    v.type_name()
                ))
            })?,
        };
        Ok(Value::NpScalar(dtype, cast(value, dtype)))
    }

    /// A Python or NumPy number.
    pub(super) fn numpy_number(&mut self, v: &Value) -> R<Scalar> {
        match v {
            Value::NpScalar(_, s) => Ok(*s),
            other => self.scalar_of(other).ok_or_else(|| {
                ScriptError::Type(format!("unsupported operand type: '{}'", other.type_name()))
            }),
        }
    }

    /// `np.arange(stop)`, `(start, stop)`, `(start, stop, step)`.
    fn numpy_arange(&mut self, nums: &[Scalar], dtype: Option<DType>) -> R<Value> {
        let (start, stop, step) = match nums {
            [stop] => (Scalar::Int(0), *stop, Scalar::Int(1)),
            [start, stop] => (*start, *stop, Scalar::Int(1)),
            [start, stop, step] => (*start, *stop, *step),
            _ => {
                return Err(ScriptError::Type(
                    "arange() requires stop to be specified.".into(),
                ))
            }
        };
        let all_int = [start, stop, step]
            .iter()
            .all(|s| matches!(s, Scalar::Int(_) | Scalar::Bool(_)));
        let dtype = dtype.unwrap_or(if all_int {
            DType::Int64
        } else {
            DType::Float64
        });
        let (a, b, s) = (start.to_f64(), stop.to_f64(), step.to_f64());
        if s == 0.0 {
            return Err(ScriptError::ZeroDivision("division by zero".into()));
        }
        let len = ((b - a) / s).ceil().max(0.0);
        if len > self.limits.max_op_elements as f64 {
            self.check_work(i64::MAX, "arange")?;
        }
        let len = len as i64;
        let values: Vec<Scalar> = (0..len)
            .map(|i| {
                if all_int {
                    Scalar::Int(start.to_wrapped_int() + i * step.to_wrapped_int())
                } else {
                    Scalar::Float(a + i as f64 * s)
                }
            })
            .map(|v| cast(v, dtype))
            .collect();
        let t = self.tensor_from_values(&[len], dtype, &values, "arange")?;
        Ok(new_ndarray(t, "arange"))
    }

    /// `np.array(object, dtype)` (`copy`) or `np.asarray` (shares an array or a tensor of
    /// the same dtype).
    pub(super) fn numpy_array(
        &mut self,
        object: &Value,
        dtype: Option<DType>,
        copy: bool,
    ) -> R<Value> {
        let copy = if copy {
            CopyMode::Always
        } else {
            CopyMode::IfNeeded
        };
        self.numpy_array_as(object, dtype, copy, Order::K)
    }

    /// `np.array(object, dtype, copy=, order=)`: an array or a tensor is shared unless
    /// `copy`, the dtype or the order asks for a copy (made in `order`); a list is read into
    /// a new array.
    fn numpy_array_as(
        &mut self,
        object: &Value,
        dtype: Option<DType>,
        copy: CopyMode,
        order: Order,
    ) -> R<Value> {
        let shared = match object {
            Value::NdArray(a) => Some((a.borrow().tensor.clone(), Some(a.clone()))),
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                bridge::check_numpy_dtype(tensor.dtype)?;
                Some((tensor, None))
            }
            _ => None,
        };
        if let Some((tensor, same)) = shared {
            let dtype = dtype.unwrap_or(tensor.dtype);
            let keeps =
                dtype == tensor.dtype && order::satisfies(order, tensor.shape(), tensor.strides());
            // A tensor's `__array__` takes no `copy=`, so NumPy cannot promise to share it.
            if copy == CopyMode::Never && (!keeps || same.is_none()) {
                return Err(ScriptError::Value(order::UNABLE_TO_AVOID_COPY.into()));
            }
            if copy != CopyMode::Always && keeps {
                return Ok(match same {
                    Some(a) => Value::NdArray(a),
                    None => ndarray(tensor, "asarray"),
                });
            }
            let strides = order::copy_strides(order, tensor.shape(), tensor.strides());
            let out = self.materialize(&tensor, &strides, dtype, "array")?;
            return Ok(new_ndarray(out, "array"));
        }
        let mut shape = Vec::new();
        let mut values = Vec::new();
        let mut kinds = Vec::new();
        self.numpy_flatten(object, 0, &mut shape, &mut values, &mut kinds)?;
        self.check_shape(&shape)?;
        let inferred = if kinds.is_empty() {
            DType::Float64
        } else {
            kinds
                .iter()
                .copied()
                .reduce(numpy_promote)
                .unwrap_or(DType::Float64)
        };
        let dtype = dtype.unwrap_or(inferred);
        if copy == CopyMode::Never {
            return Err(ScriptError::Value(order::UNABLE_TO_AVOID_COPY.into()));
        }
        let values: Vec<Scalar> = values.into_iter().map(|v| cast(v, dtype)).collect();
        let t = self.tensor_from_values(&shape, dtype, &values, "array")?;
        if order == Order::F && !order::f_contiguous(t.shape(), t.strides()) {
            let strides = order::copy_strides(order, t.shape(), t.strides());
            let out = self.materialize(&t, &strides, dtype, "array")?;
            return Ok(new_ndarray(out, "array"));
        }
        Ok(new_ndarray(t, "array"))
    }

    /// Walks a nested list: its shape, elements and each element's dtype.
    fn numpy_flatten(
        &mut self,
        v: &Value,
        depth: usize,
        shape: &mut Vec<i64>,
        out: &mut Vec<Scalar>,
        kinds: &mut Vec<DType>,
    ) -> R<()> {
        if depth > 64 {
            return Err(ScriptError::Value("too many dimensions".into()));
        }
        let inhomogeneous = |depth: usize| {
            ScriptError::Value(format!(
                "setting an array element with a sequence. The requested array has an inhomogeneous shape after {depth} dimensions. The detected shape was {} + inhomogeneous part.",
                tuple_text(&shape[..depth.min(shape.len())])
            ))
        };
        match v {
            Value::List(items) | Value::Tuple(items) => {
                if depth == shape.len() {
                    if !out.is_empty() {
                        return Err(inhomogeneous(depth));
                    }
                    shape.push(items.len() as i64);
                } else if shape[depth] != items.len() as i64 {
                    return Err(inhomogeneous(depth));
                }
                for item in items {
                    self.numpy_flatten(item, depth + 1, shape, out, kinds)?;
                }
                Ok(())
            }
            Value::NdArray(a) => {
                let t = a.borrow().tensor.clone();
                if t.ndim() != 0 || depth != shape.len() {
                    return Err(ScriptError::NotImplemented(
                        "np.array of a list of arrays is outside Stridescope's NumPy subset".into(),
                    ));
                }
                out.extend(self.engine.values(&t));
                kinds.push(t.dtype);
                Ok(())
            }
            other => {
                if depth != shape.len() {
                    return Err(inhomogeneous(depth));
                }
                let (value, kind) = match other {
                    Value::NpScalar(d, s) => (*s, *d),
                    Value::Bool(b) => (Scalar::Bool(*b), DType::Bool),
                    Value::Int(i) => (Scalar::Int(*i), DType::Int64),
                    Value::Float(f) => (Scalar::Float(*f), DType::Float64),
                    Value::Tensor(t) => {
                        let t = t.borrow().tensor.clone();
                        if t.numel() != 1 {
                            return Err(ScriptError::NotImplemented(
                                "np.array of a list of tensors is outside Stridescope's NumPy subset".into(),
                            ));
                        }
                        let v = self
                            .engine
                            .values(&t)
                            .first()
                            .copied()
                            .unwrap_or(Scalar::Int(0));
                        (v, t.dtype)
                    }
                    other => {
                        return Err(ScriptError::NotImplemented(format!(
                            "np.array of '{}' objects is outside Stridescope's NumPy subset",
                            other.type_name()
                        )))
                    }
                };
                out.push(value);
                kinds.push(kind);
                Ok(())
            }
        }
    }

    /// The storage view behind an array or a tensor (for `shares_memory`).
    fn memory_of(&self, v: &Value) -> Option<Tensor> {
        match v {
            Value::NdArray(t) | Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                Some(self.memory.window_root_view(&t).unwrap_or(t))
            }
            _ => None,
        }
    }

    /// The tensor behind an array argument (a list is made an array first).
    fn as_ndarray_tensor(&mut self, v: &Value) -> R<Tensor> {
        match self.numpy_array(v, None, false)? {
            Value::NdArray(a) => Ok(a.borrow().tensor.clone()),
            _ => Err(ScriptError::Type("expected an array".into())),
        }
    }

    /// The repr of the dtype class `np.float32`.
    pub(super) fn numpy_class_repr(name: &str) -> Option<String> {
        dtype_named(name).map(|d| format!("<class 'numpy.{}'>", numpy_dtype_name(d)))
    }
}

/// A value in `dtype`, converted as NumPy's casts do (floats truncate toward zero).
pub(super) fn cast(v: Scalar, dtype: DType) -> Scalar {
    match dtype {
        DType::Bool => Scalar::Bool(v.to_bool()),
        d if d.is_floating() => d.round(Scalar::Float(v.to_f64())),
        d => {
            let i = match v {
                Scalar::Float(f) if f.is_finite() => f.trunc() as i64,
                Scalar::Float(_) => i64::MIN,
                other => other.to_wrapped_int(),
            };
            let mut bytes = vec![0u8; d.item_size()];
            d.write(&mut bytes, 0, Scalar::Int(i));
            d.read(&bytes, 0)
        }
    }
}

/// `(2, 3)` as Python writes a tuple.
pub(super) fn tuple_text(items: &[i64]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            items
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl Evaluator {
    /// `dtype.name`, `dtype.itemsize`, `dtype.kind`.
    pub(super) fn numpy_dtype_attribute(&mut self, d: DType, name: &str) -> R<Value> {
        match name {
            "name" => Ok(Value::Str(numpy_dtype_name(d).to_string())),
            "itemsize" => Ok(Value::Int(d.item_size() as i64)),
            "kind" => Ok(Value::Str(
                match d {
                    DType::Bool => "b",
                    DType::UInt8 => "u",
                    d if d.is_floating() => "f",
                    _ => "i",
                }
                .into(),
            )),
            _ => Err(ScriptError::Attribute(format!(
                "'numpy.dtypes.{}DType' object has no attribute '{name}'",
                dtype_class(d)
            ))),
        }
    }
}

/// The class name NumPy 2 gives a dtype object (`Float32DType`).
fn dtype_class(d: DType) -> String {
    let name = numpy_dtype_name(d);
    let mut c = name.chars();
    match c.next() {
        Some(f) => format!("{}{}", f.to_ascii_uppercase(), c.as_str()),
        None => String::new(),
    }
}

impl Evaluator {
    /// `x.dtype`, `x.item()`, ... of a NumPy scalar.
    pub(super) fn numpy_scalar_attribute(&mut self, x: &Value, d: DType, name: &str) -> R<Value> {
        match name {
            "dtype" => Ok(Value::NpDType(d)),
            "ndim" => Ok(Value::Int(0)),
            "shape" => Ok(Value::Tuple(vec![])),
            "size" => Ok(Value::Int(1)),
            "itemsize" | "nbytes" => Ok(Value::Int(d.item_size() as i64)),
            "item" | "tolist" => Ok(Value::Method(Box::new(x.clone()), name.into())),
            _ => Err(ScriptError::Attribute(format!(
                "'numpy.{}' object has no attribute '{name}'",
                numpy_dtype_name(d)
            ))),
        }
    }
}

/// `x.item()` of a NumPy scalar: the Python number.
pub(super) fn scalar_item(s: Scalar) -> Value {
    match s {
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::Int(i),
        Scalar::Float(f) => Value::Float(f),
    }
}
