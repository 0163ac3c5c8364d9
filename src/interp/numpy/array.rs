//! The `ndarray` object: attributes (`shape`, byte `strides`, `dtype`, `T`, ...), methods
//! (`reshape`, `transpose`, `copy`, `astype`, `tolist`, ...), basic indexing (views; an
//! integer per dim gives a NumPy scalar), item writes through the shared storage, and
//! arithmetic with NumPy 2's promotion (NEP 50: Python numbers are weak).

use crate::core::print::numpy_str::{numpy_dtype_name, numpy_repr, numpy_scalar_str, numpy_str};
use crate::core::tensor::layout::Layout;
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::engines::BinaryOp;
use crate::interp::numpy::{cast, ndarray, new_ndarray, order, tuple_text};
use crate::interp::torch::ops::ElementwiseInput;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// NumPy's kind order for `same_kind` casts: bool < unsigned < signed < float.
fn kind(d: DType) -> u8 {
    match d {
        DType::Bool => 0,
        DType::UInt8 => 1,
        d if d.is_floating() => 3,
        _ => 2,
    }
}

/// NumPy's `np.promote_types` on the dtypes both libraries have.
pub(crate) fn numpy_promote(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    let bits = |d: DType| d.item_size() * 8;
    match (kind(a), kind(b)) {
        (0, _) => b,
        (_, 0) => a,
        (ka, kb) if ka == kb => {
            if bits(a) >= bits(b) {
                a
            } else {
                b
            }
        }
        (3, _) | (_, 3) => {
            let (f, i) = if kind(a) == 3 { (a, b) } else { (b, a) };
            let need = match bits(i) {
                8 => Float16,
                16 => Float32,
                _ => Float64,
            };
            if bits(need) >= bits(f) {
                need
            } else {
                f
            }
        }
        // uint8 with a signed int: the signed int if wider, else int16.
        _ => {
            let signed = if a == UInt8 { b } else { a };
            if bits(signed) > 8 {
                signed
            } else {
                Int16
            }
        }
    }
}

/// One operand of a NumPy operation.
enum Operand {
    Array(Tensor),
    /// A NumPy scalar (a strong dtype).
    Strong(DType, Scalar),
    /// A Python number (weak: takes the array's dtype where it fits).
    Weak(Scalar),
}

/// The dtype NumPy computes `a op b` in (before `/` makes integers float).
fn result_dtype(ops: &[&Operand]) -> DType {
    let strong: Vec<DType> = ops
        .iter()
        .filter_map(|o| match o {
            Operand::Array(t) => Some(t.dtype),
            Operand::Strong(d, _) => Some(*d),
            Operand::Weak(_) => None,
        })
        .collect();
    let mut d = strong.iter().copied().reduce(numpy_promote);
    for o in ops {
        if let Operand::Weak(s) = o {
            d = Some(match (d, s) {
                (None, Scalar::Bool(_)) => DType::Bool,
                (None, Scalar::Int(_)) => DType::Int64,
                (None, Scalar::Float(_)) => DType::Float64,
                (Some(DType::Bool), Scalar::Int(_)) => DType::Int64,
                (Some(x), Scalar::Float(_)) if !x.is_floating() => DType::Float64,
                (Some(x), _) => x,
            });
        }
    }
    d.unwrap_or(DType::Float64)
}

/// Python's `repr` of a dtype object: `dtype('float32')`.
pub(super) fn dtype_repr(d: DType) -> String {
    format!("dtype('{}')", numpy_dtype_name(d))
}

impl Evaluator {
    fn operand(&mut self, v: &Value) -> R<Operand> {
        Ok(match v {
            Value::NdArray(a) => Operand::Array(a.borrow().tensor.clone()),
            Value::NpScalar(d, s) => Operand::Strong(*d, *s),
            Value::List(_) | Value::Tuple(_) => {
                let t = self.as_ndarray_tensor(v)?;
                Operand::Array(t)
            }
            other => match self.scalar_of(other) {
                Some(s) => Operand::Weak(s),
                None => {
                    return Err(ScriptError::Type(format!(
                        "unsupported operand type(s): 'ndarray' and '{}'",
                        other.type_name()
                    )))
                }
            },
        })
    }

    /// The elementwise input for `o` computed in `dtype` (arrays of another dtype are
    /// converted first, as NumPy's casting loops do).
    fn input_in(&mut self, o: &Operand, dtype: DType) -> R<ElementwiseInput> {
        Ok(match o {
            Operand::Array(t) if t.dtype == dtype => ElementwiseInput::Tensor(t.clone()),
            Operand::Array(t) => ElementwiseInput::Tensor(self.convert(
                t,
                dtype,
                MemoryFormat::Preserve,
                "astype",
            )?),
            Operand::Strong(_, s) | Operand::Weak(s) => ElementwiseInput::Number(cast(*s, dtype)),
        })
    }

    /// `a op b` where a side is a NumPy array or scalar.
    pub(crate) fn numpy_binary(&mut self, op: BinOp, a: &Value, b: &Value) -> R<Value> {
        if matches!(a, Value::Tensor(_)) || matches!(b, Value::Tensor(_)) {
            // A tensor's `__array_priority__` makes NumPy defer: torch computes it.
            let as_tensor = |v: &Value| match v {
                Value::NdArray(x) => Value::tensor(x.borrow().tensor.clone(), "from_numpy", None),
                Value::NpScalar(_, s) => match s {
                    Scalar::Bool(b) => Value::Bool(*b),
                    Scalar::Int(i) => Value::Int(*i),
                    Scalar::Float(f) => Value::Float(*f),
                },
                other => other.clone(),
            };
            return self.tensor_binary(op, &as_tensor(a), &as_tensor(b));
        }
        let (x, y) = (self.operand(a)?, self.operand(b)?);
        let Some(bop) = crate::interp::torch::ops::binary_op(op) else {
            return Err(ScriptError::Type(format!(
                "unsupported operand type(s) for {}: '{}' and '{}'",
                crate::interp::python::operators::binop_symbol(op),
                a.type_name(),
                b.type_name()
            )));
        };
        let mut dtype = result_dtype(&[&x, &y]);
        if bop == BinaryOp::Sub && dtype == DType::Bool {
            return Err(ScriptError::Type("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.".into()));
        }
        if bop == BinaryOp::Div && !dtype.is_floating() {
            dtype = DType::Float64;
        }
        if !matches!(x, Operand::Array(_)) && !matches!(y, Operand::Array(_)) {
            return self.numpy_scalar_binary(op, a, b, dtype, bop.is_comparison());
        }
        let xi = self.input_in(&x, dtype)?;
        let yi = self.input_in(&y, dtype)?;
        let out = self.elementwise(bop, &xi, &yi, None)?;
        if out.ndim() == 0 {
            let v = self
                .engine
                .values(&out)
                .first()
                .copied()
                .unwrap_or(Scalar::Int(0));
            return Ok(Value::NpScalar(out.dtype, v));
        }
        Ok(new_ndarray(
            out,
            crate::interp::python::operators::binop_symbol(op),
        ))
    }

    /// Arithmetic between NumPy scalars and Python numbers.
    fn numpy_scalar_binary(
        &mut self,
        op: BinOp,
        a: &Value,
        b: &Value,
        dtype: DType,
        comparison: bool,
    ) -> R<Value> {
        let plain = |v: &Value| match v {
            Value::NpScalar(_, Scalar::Bool(b)) => Value::Bool(*b),
            Value::NpScalar(_, Scalar::Int(i)) => Value::Int(*i),
            Value::NpScalar(_, Scalar::Float(f)) => Value::Float(*f),
            other => other.clone(),
        };
        let r = crate::interp::python::operators::python_binary(op, &plain(a), &plain(b))?;
        Ok(match (r, comparison) {
            (Value::Bool(v), true) => Value::NpScalar(DType::Bool, Scalar::Bool(v)),
            (r, _) => match self.scalar_of(&r) {
                Some(s) => Value::NpScalar(dtype, cast(s, dtype)),
                None => r,
            },
        })
    }

    /// `np.add(a, b, out=o)` and `o += b`: computed into `o` in place, with NumPy's
    /// `same_kind` casting rule for the output.
    pub(crate) fn numpy_ufunc_out(
        &mut self,
        name: &str,
        op: BinOp,
        a: &Value,
        b: &Value,
        out: &TensorRef,
    ) -> R<Value> {
        let (x, y) = (self.operand(a)?, self.operand(b)?);
        let Some(bop) = crate::interp::torch::ops::binary_op(op) else {
            return Err(ScriptError::Type(format!(
                "unsupported operand type(s) for {}=: 'ndarray' and '{}'",
                crate::interp::python::operators::binop_symbol(op),
                b.type_name()
            )));
        };
        let mut dtype = result_dtype(&[&x, &y]);
        if bop == BinaryOp::Div && !dtype.is_floating() {
            dtype = DType::Float64;
        }
        let dst = out.borrow().tensor.clone();
        if kind(dtype) > kind(dst.dtype) {
            return Err(ScriptError::Type(format!(
                "Cannot cast ufunc '{name}' output from {} to {} with casting rule 'same_kind'",
                dtype_repr(dtype),
                dtype_repr(dst.dtype)
            )));
        }
        let xi = self.input_in(&x, dtype)?;
        let yi = self.input_in(&y, dtype)?;
        let shape = crate::core::tensor::layout::broadcast_shapes(xi_shape(&xi), xi_shape(&yi))
            .map_err(|_| self.broadcast_error(&[xi_shape(&xi), xi_shape(&yi)]))?;
        let full = crate::core::tensor::layout::broadcast_shapes(&shape, dst.shape()).ok();
        if full.as_deref() != Some(dst.shape()) {
            return Err(ScriptError::Value(format!(
                "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
                tuple_text(dst.shape()),
                tuple_text(full.as_deref().unwrap_or(&shape))
            )));
        }
        // NumPy computes in its own memory: PyTorch's allocator sees nothing of it (no
        // wrapped number, no temporary).
        self.uncounted(|ev| {
            if dtype == dst.dtype {
                ev.elementwise(bop, &xi, &yi, Some(&dst))?;
            } else {
                let tmp = ev.elementwise(bop, &xi, &yi, None)?;
                ev.copy_into(&dst, &tmp, false)?;
            }
            Ok(())
        })?;
        Ok(Value::NdArray(out.clone()))
    }

    fn broadcast_error(&self, shapes: &[&[i64]]) -> ScriptError {
        let parts: Vec<String> = shapes.iter().map(|s| tuple_text(s)).collect();
        ScriptError::Value(format!(
            "operands could not be broadcast together with shapes {} ",
            parts.join(" ")
        ))
    }

    /// `a op= b` on an array: in place (the array stays the same object).
    pub(crate) fn ndarray_in_place(&mut self, op: BinOp, a: &TensorRef, b: Value) -> R<Value> {
        let name = match op {
            BinOp::Add => "add",
            BinOp::Sub => "subtract",
            BinOp::Mul => "multiply",
            BinOp::Div => "divide",
            BinOp::FloorDiv => "floor_divide",
            BinOp::Mod => "remainder",
            _ => "power",
        };
        self.numpy_ufunc_out(name, op, &Value::NdArray(a.clone()), &b, a)
    }

    /// `repr(array)` or `str(array)`.
    pub(crate) fn ndarray_text(&mut self, a: &TensorRef, as_str: bool) -> R<String> {
        let t = a.borrow().tensor.clone();
        self.check_work(t.numel(), "repr")?;
        let values = self.engine.values(&t);
        let shape: Vec<usize> = t.shape().iter().map(|&n| n.max(0) as usize).collect();
        Ok(if as_str {
            numpy_str(t.dtype, &shape, &values)
        } else {
            numpy_repr(t.dtype, &shape, &values)
        })
    }

    /// `str()` of a NumPy value.
    pub(crate) fn numpy_str_of(&mut self, v: &Value) -> R<String> {
        match v {
            Value::NdArray(a) => self.ndarray_text(a, true),
            Value::NpScalar(d, s) => Ok(numpy_scalar_str(*d, *s)),
            Value::NpDType(d) => Ok(numpy_dtype_name(*d).to_string()),
            other => self.repr(other),
        }
    }

    /// `array.name`.
    pub(crate) fn ndarray_attribute(&mut self, a: &TensorRef, name: &str) -> R<Value> {
        let t = a.borrow().tensor.clone();
        let item = t.dtype.item_size() as i64;
        let ints = |v: Vec<i64>| Value::Tuple(v.into_iter().map(Value::Int).collect());
        Ok(match name {
            "shape" => ints(t.shape().to_vec()),
            "strides" => ints(t.strides().iter().map(|s| s * item).collect()),
            "dtype" => Value::NpDType(t.dtype),
            "ndim" => Value::Int(t.ndim() as i64),
            "size" => Value::Int(t.numel()),
            "itemsize" => Value::Int(item),
            "nbytes" => Value::Int(t.numel() * item),
            "flags" => self.ndarray_flags(a),
            "T" => {
                let dims: Vec<i64> = (0..t.ndim() as i64).rev().collect();
                ndarray(self.permute(&t, &dims)?, "T")
            }
            "reshape" | "transpose" | "copy" | "astype" | "tolist" | "item" | "fill"
            | "flatten" | "ravel" | "squeeze" | "sum" | "mean" | "max" | "min" => {
                Value::Method(Box::new(Value::NdArray(a.clone())), name.into())
            }
            _ => {
                return Err(ScriptError::Attribute(format!(
                    "'numpy.ndarray' object has no attribute '{name}'"
                )))
            }
        })
    }

    /// Integers given as varargs (`reshape(2, 3)`) or as one sequence (`reshape((2, 3))`).
    fn numpy_int_args(&mut self, pos: &[Value]) -> R<Vec<i64>> {
        match pos {
            [one @ (Value::Tuple(_) | Value::List(_))] => {
                let items = self.iterate(one)?;
                items.iter().map(|v| self.numpy_index_int(v)).collect()
            }
            _ => pos.iter().map(|v| self.numpy_index_int(v)).collect(),
        }
    }

    /// `array.name(...)`.
    pub(crate) fn call_ndarray(
        &mut self,
        a: &TensorRef,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let t = a.borrow().tensor.clone();
        if super::ufuncs::REDUCTIONS.contains(&name) {
            let mut kw = kw;
            let axis = pos.first().cloned().or_else(|| {
                let at = kw.iter().position(|(k, _)| k == "axis")?;
                Some(kw.remove(at).1)
            });
            let keepdims = match kw.iter().position(|(k, _)| k == "keepdims") {
                Some(at) => {
                    let v = kw.remove(at).1;
                    self.truthy(&v)?
                }
                None => false,
            };
            if let Some((k, _)) = kw.first() {
                return Err(ScriptError::Type(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            }
            return self.numpy_reduce(name, &Value::NdArray(a.clone()), axis.as_ref(), keepdims);
        }
        if let Some((k, _)) = kw.iter().find(|(k, _)| k != "dtype" && k != "shape") {
            return Err(ScriptError::Type(format!(
                "'{k}' is an invalid keyword argument for {name}()"
            )));
        }
        match name {
            "reshape" => {
                let given = match kw.iter().find(|(k, _)| k == "shape") {
                    Some((_, v)) => vec![v.clone()],
                    None => pos,
                };
                let mut shape = self.numpy_int_args(&given)?;
                let known: i64 = shape.iter().filter(|&&n| n != -1).product();
                let unknown = shape.iter().filter(|&&n| n == -1).count();
                if unknown > 1 {
                    return Err(ScriptError::Value(
                        "can only specify one unknown dimension".into(),
                    ));
                }
                let fits = if unknown == 1 {
                    known != 0 && t.numel() % known == 0
                } else {
                    known == t.numel()
                };
                if !fits || shape.iter().any(|&n| n < -1) {
                    return Err(ScriptError::Value(format!(
                        "cannot reshape array of size {} into shape {}",
                        t.numel(),
                        shape_text(&shape)
                    )));
                }
                for n in shape.iter_mut().filter(|n| **n == -1) {
                    *n = t.numel() / known;
                }
                let (out, copied) = self.reshape(&t, &shape)?;
                Ok(ndarray(
                    out,
                    if copied { "reshape (copy)" } else { "reshape" },
                ))
            }
            "transpose" => {
                let dims = if pos.is_empty() {
                    (0..t.ndim() as i64).rev().collect()
                } else {
                    self.numpy_int_args(&pos)?
                };
                if dims.len() != t.ndim() {
                    return Err(ScriptError::Value("axes don't match array".into()));
                }
                Ok(ndarray(self.permute(&t, &dims)?, "transpose"))
            }
            "copy" | "flatten" => {
                let out = self.convert(&t, t.dtype, MemoryFormat::Contiguous, name)?;
                let out = if name == "flatten" {
                    out.with_layout(Layout::contiguous(&[t.numel()]))
                } else {
                    out
                };
                Ok(new_ndarray(out, name))
            }
            "ravel" => {
                let (out, _) = self.reshape(&t, &[t.numel()])?;
                Ok(ndarray(out, "ravel"))
            }
            "squeeze" => {
                // A view without the size-1 dims (or only the named one).
                let axes: Vec<usize> = match pos.first() {
                    None | Some(Value::None) => {
                        (0..t.ndim()).filter(|&d| t.shape()[d] == 1).collect()
                    }
                    Some(v) => {
                        let nd = t.ndim() as i64;
                        let k = self.numpy_index_int(v)?;
                        if k < -nd || k >= nd {
                            return Err(ScriptError::Value(format!(
                                "axis {k} is out of bounds for array of dimension {nd}"
                            )));
                        }
                        let k = if k < 0 { k + nd } else { k } as usize;
                        if t.shape()[k] != 1 {
                            return Err(ScriptError::Value(
                                "cannot select an axis to squeeze out which has size not equal to one".into(),
                            ));
                        }
                        vec![k]
                    }
                };
                let keep = |d: &usize| !axes.contains(d);
                let view = t.with_layout(Layout {
                    shape: (0..t.ndim()).filter(keep).map(|d| t.shape()[d]).collect(),
                    strides: (0..t.ndim()).filter(keep).map(|d| t.strides()[d]).collect(),
                    offset: t.layout.offset,
                });
                Ok(ndarray(view, "squeeze"))
            }
            "astype" => {
                let v = pos
                    .first()
                    .cloned()
                    .or_else(|| {
                        kw.iter()
                            .find(|(k, _)| k == "dtype")
                            .map(|(_, v)| v.clone())
                    })
                    .ok_or_else(|| {
                        ScriptError::Type(
                            "astype() missing required argument 'dtype' (pos 1)".into(),
                        )
                    })?;
                let dtype = self.numpy_dtype_arg(&v)?.unwrap_or(DType::Float64);
                // `order='K'`: the array's dim order, as `np.array` copies.
                let strides = order::copy_strides(order::Order::K, t.shape(), t.strides());
                let out = self.materialize(&t, &strides, dtype, "astype")?;
                Ok(new_ndarray(out, "astype"))
            }
            "tolist" => {
                let values = self.engine.values(&t);
                Ok(nest(&values, t.shape()))
            }
            "item" => {
                if t.numel() != 1 {
                    return Err(ScriptError::Value(
                        "can only convert an array of size 1 to a Python scalar".into(),
                    ));
                }
                let values = self.engine.values(&t);
                Ok(nest(&values, &[]))
            }
            "fill" => {
                let v = pos.first().cloned().unwrap_or(Value::None);
                let s = self.numpy_number(&v)?;
                self.fill(&t, cast(s, t.dtype))?;
                Ok(Value::None)
            }
            _ => Err(ScriptError::Attribute(format!(
                "'numpy.ndarray' object has no attribute '{name}'"
            ))),
        }
    }

    /// The view `array[index]` selects (basic indexing: ints, slices of any step, `None`,
    /// `...`; lists, arrays and masks go to `numpy/fancy.rs`), and whether every dim was
    /// picked by an integer.
    fn ndarray_view(&mut self, t: &Tensor, index: &Value) -> R<(Tensor, bool)> {
        let items: Vec<Value> = match index {
            Value::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        for item in &items {
            if !matches!(
                item,
                Value::Int(_)
                    | Value::NpScalar(
                        DType::Int64 | DType::Int32 | DType::Int16 | DType::Int8 | DType::UInt8,
                        _
                    )
                    | Value::Slice(..)
                    | Value::None
                    | Value::Ellipsis
            ) {
                return Err(match item {
                    Value::Bool(_) => ScriptError::NotImplemented(
                        "a Python bool as an index of a NumPy array is outside Stridescope's NumPy subset".into(),
                    ),
                    _ => ScriptError::Index("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices".into()),
                });
            }
        }
        let consuming = items
            .iter()
            .filter(|v| !matches!(v, Value::None | Value::Ellipsis))
            .count();
        if consuming > t.ndim() {
            return Err(ScriptError::Index(format!(
                "too many indices for array: array is {}-dimensional, but {consuming} were indexed",
                t.ndim()
            )));
        }
        if items
            .iter()
            .filter(|v| matches!(v, Value::Ellipsis))
            .count()
            > 1
        {
            return Err(ScriptError::Index(
                "an index can only have a single ellipsis ('...')".into(),
            ));
        }
        let mut shape = Vec::new();
        let mut strides = Vec::new();
        let mut offset = t.layout.offset;
        let mut dim = 0;
        let mut ints = 0;
        for item in &items {
            match item {
                Value::None => {
                    shape.push(1);
                    strides.push(0);
                }
                Value::Ellipsis => {
                    let skip = t.ndim() - consuming;
                    for _ in 0..skip {
                        shape.push(t.shape()[dim]);
                        strides.push(t.strides()[dim]);
                        dim += 1;
                    }
                }
                Value::Slice(start, stop, step) => {
                    let (n, s) = (t.shape()[dim], t.strides()[dim]);
                    let (first, len, step) = slice_indices(n, *start, *stop, *step)?;
                    offset += first * s;
                    shape.push(len);
                    strides.push(s * step);
                    dim += 1;
                }
                other => {
                    let i = self.numpy_index_int(other)?;
                    let n = t.shape()[dim];
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(ScriptError::Index(format!(
                            "index {i} is out of bounds for axis {dim} with size {n}"
                        )));
                    }
                    offset += j * t.strides()[dim];
                    dim += 1;
                    ints += 1;
                }
            }
        }
        shape.extend_from_slice(&t.shape()[dim..]);
        strides.extend_from_slice(&t.strides()[dim..]);
        // `a[..., 1]` on a vector is a 0-d array; only integers alone give a scalar.
        let has_ellipsis = items.iter().any(|v| matches!(v, Value::Ellipsis));
        let scalar = ints == t.ndim() && shape.is_empty() && !has_ellipsis;
        let view = t.with_layout(Layout {
            shape,
            strides,
            offset,
        });
        Ok((view, scalar))
    }

    /// `array[index]`: a view, or a NumPy scalar when every dim is picked by an integer; a
    /// new array for advanced indices (`numpy/fancy.rs`).
    pub(crate) fn ndarray_get_item(&mut self, a: &TensorRef, index: &Value) -> R<Value> {
        let t = a.borrow().tensor.clone();
        if let Some(items) = advanced_items(index) {
            let out = self.fancy_get(&t, &items)?;
            return Ok(super::new_ndarray(out, "index"));
        }
        let (view, scalar) = self.ndarray_view(&t, index)?;
        if scalar {
            let v = self
                .engine
                .values(&view)
                .first()
                .copied()
                .unwrap_or(Scalar::Int(0));
            return Ok(Value::NpScalar(view.dtype, v));
        }
        Ok(ndarray(view, "index"))
    }

    /// `array[index] = value`: written into the shared storage (a tensor on it sees it).
    pub(crate) fn ndarray_set_item(
        &mut self,
        a: &TensorRef,
        index: &Value,
        value: &Value,
    ) -> R<()> {
        let t = a.borrow().tensor.clone();
        if let Some(items) = advanced_items(index) {
            return self.fancy_set(&t, &items, value);
        }
        let (view, _) = self.ndarray_view(&t, index)?;
        match value {
            Value::NdArray(_) | Value::List(_) | Value::Tuple(_) | Value::Tensor(_) => {
                let src = match value {
                    Value::Tensor(x) => x.borrow().tensor.clone(),
                    other => self.as_ndarray_tensor(other)?,
                };
                let fits = crate::core::tensor::layout::broadcast_shapes(view.shape(), src.shape())
                    .is_ok_and(|s| s == view.shape());
                if !fits {
                    return Err(ScriptError::Value(format!(
                        "could not broadcast input array from shape {} into shape {}",
                        tuple_text(src.shape()),
                        tuple_text(view.shape())
                    )));
                }
                self.copy_into(&view, &src, false)
            }
            other => {
                let s = self.numpy_number(other).map_err(|_| {
                    ScriptError::Type(format!(
                        "float() argument must be a string or a real number, not '{}'",
                        other.type_name()
                    ))
                })?;
                self.fill(&view, cast(s, view.dtype))
            }
        }
    }
}

/// The items of an index with a list, an array or a mask in it (None: basic indexing).
fn advanced_items(index: &Value) -> Option<Vec<Value>> {
    let items: Vec<Value> = match index {
        Value::Tuple(items) => items.clone(),
        other => vec![other.clone()],
    };
    items.iter().any(super::fancy::is_advanced).then_some(items)
}

fn xi_shape(i: &ElementwiseInput) -> &[i64] {
    match i {
        ElementwiseInput::Tensor(t) => t.shape(),
        ElementwiseInput::Number(_) => &[],
    }
}

/// A shape as NumPy writes it in `reshape`'s error: `(4,)`, `(2, 3)`.
fn shape_text(shape: &[i64]) -> String {
    tuple_text(shape)
}

/// Python's `slice.indices(n)`: the first index, the length and the step.
pub(super) fn slice_indices(
    n: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> R<(i64, i64, i64)> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(ScriptError::Value("slice step cannot be zero".into()));
    }
    let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: Option<i64>, default: i64, lo: i64, hi: i64| match v {
        None => default,
        Some(v) if v < 0 => clamp(v.saturating_add(n), lo, hi),
        Some(v) => clamp(v, lo, hi),
    };
    let (first, last) = if step > 0 {
        (norm(start, 0, 0, n), norm(stop, n, 0, n))
    } else {
        (norm(start, n - 1, -1, n - 1), norm(stop, -1, -1, n - 1))
    };
    let (span, by) = if step > 0 {
        (i128::from(last) - i128::from(first), i128::from(step))
    } else {
        (i128::from(first) - i128::from(last), -i128::from(step))
    };
    let len = if span > 0 {
        ((span + by - 1) / by) as i64
    } else {
        0
    };
    Ok((if len == 0 { 0 } else { first }, len, step))
}

/// Values as nested Python lists (`tolist`); a 0-d array gives the number.
fn nest(values: &[Scalar], shape: &[i64]) -> Value {
    let number = |s: &Scalar| match s {
        Scalar::Bool(b) => Value::Bool(*b),
        Scalar::Int(i) => Value::Int(*i),
        Scalar::Float(f) => Value::Float(*f),
    };
    match shape.split_first() {
        None => values.first().map(number).unwrap_or(Value::None),
        Some((&n, rest)) => {
            let inner: usize = rest.iter().map(|&d| d.max(0) as usize).product();
            Value::List(
                (0..n.max(0) as usize)
                    .map(|i| {
                        let lo = (i * inner).min(values.len());
                        let hi = ((i + 1) * inner).min(values.len());
                        nest(&values[lo..hi], rest)
                    })
                    .collect(),
            )
        }
    }
}
