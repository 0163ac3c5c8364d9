//! Attribute access, calls and their arguments: the `torch.` namespace, tensor methods and
//! the few Python builtins a notebook uses. Argument errors follow PyTorch's wording.

use std::rc::Rc;

use super::value::{TensorRef, Value};
use super::{Evaluator, R};
use crate::engine::{BinaryOp, ReduceOp, UnaryOp};
use crate::eval::ops::ElementwiseInput;
use crate::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};

/// The arguments of one call.
pub(super) struct Args {
    pub name: String,
    pub pos: Vec<Value>,
    pub kw: Vec<(String, Value)>,
}

impl Args {
    /// Binds positional and keyword arguments to `params`; `required` leading ones must be given.
    fn bind(&self, params: &[&str], required: usize) -> R<Vec<Option<Value>>> {
        if self.pos.len() > params.len() {
            return Err(ScriptError::Type(format!(
                "{}() takes {} positional argument{} but {} were given",
                self.name,
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                self.pos.len()
            )));
        }
        let mut out: Vec<Option<Value>> = vec![None; params.len()];
        for (i, v) in self.pos.iter().enumerate() {
            out[i] = Some(v.clone());
        }
        for (k, v) in &self.kw {
            match params.iter().position(|p| p == k) {
                Some(i) => {
                    if out[i].is_some() {
                        return Err(ScriptError::Type(format!(
                            "{}() got multiple values for argument '{}'",
                            self.name, k
                        )));
                    }
                    out[i] = Some(v.clone());
                }
                None => {
                    return Err(ScriptError::Type(format!(
                        "{}() got an unexpected keyword argument '{}'",
                        self.name, k
                    )))
                }
            }
        }
        let missing: Vec<&str> = (0..required)
            .filter(|&i| out[i].is_none())
            .map(|i| params[i])
            .collect();
        if !missing.is_empty() {
            let names: Vec<String> = missing.iter().map(|m| format!("\"{m}\"")).collect();
            return Err(ScriptError::Type(format!(
                "{}() missing {} required positional arguments: {}",
                self.name,
                missing.len(),
                names.join(", ")
            )));
        }
        Ok(out)
    }

    /// An int list given as varargs (`view(2, 3)`), one sequence (`view((2, 3))`) or keyword.
    fn int_list_varargs(
        &self,
        ev: &mut Evaluator,
        kw_name: &str,
        extra: &[&str],
    ) -> R<(Vec<i64>, Vec<Option<Value>>)> {
        let seq_given = self.pos.len() == 1
            && matches!(
                self.pos[0],
                Value::Tuple(_) | Value::List(_) | Value::Size(_)
            );
        let kw_list = self
            .kw
            .iter()
            .find(|(k, _)| k == kw_name)
            .map(|(_, v)| v.clone());
        let list = if let Some(v) = kw_list {
            if !self.pos.is_empty() {
                return Err(ScriptError::Type(format!(
                    "{}() got multiple values for argument '{}'",
                    self.name, kw_name
                )));
            }
            ev.int_list(&v, &self.name, kw_name)?
        } else if seq_given {
            ev.int_list(&self.pos[0], &self.name, kw_name)?
        } else {
            if self.pos.is_empty() {
                return Err(ScriptError::Type(format!(
                    "{}() missing 1 required positional arguments: \"{}\"",
                    self.name, kw_name
                )));
            }
            self.pos
                .iter()
                .enumerate()
                .map(|(i, v)| ev.int_arg(v, &self.name, kw_name, i + 1))
                .collect::<R<Vec<i64>>>()?
        };
        let others = Args {
            name: self.name.clone(),
            pos: vec![],
            kw: self
                .kw
                .iter()
                .filter(|(k, _)| k != kw_name)
                .cloned()
                .collect(),
        };
        let bound = others.bind(extra, 0)?;
        Ok((list, bound))
    }
}

/// Tensor methods Stridescope knows (for attribute lookups and `AttributeError`s).
const TENSOR_METHODS: &[&str] = &[
    "clone",
    "to",
    "float",
    "half",
    "int",
    "long",
    "double",
    "bool",
    "byte",
    "char",
    "short",
    "bfloat16",
    "add",
    "add_",
    "sub",
    "sub_",
    "mul",
    "mul_",
    "copy_",
    "fill_",
    "zero_",
    "clamp",
    "clamp_",
    "relu",
    "relu_",
    "neg",
    "abs",
    "sum",
    "mean",
    "amax",
    "amin",
    "stride",
    "size",
    "dim",
    "ndimension",
    "numel",
    "nelement",
    "element_size",
    "storage_offset",
    "is_contiguous",
    "data_ptr",
    "item",
    "tolist",
    "is_floating_point",
    "matmul",
    "eq",
    "ne",
    "gt",
    "lt",
    "ge",
    "le",
    "remainder",
    "is_set_to",
    "type",
];

const TORCH_FUNCTIONS: &[&str] = &[
    "arange",
    "zeros",
    "ones",
    "full",
    "empty",
    "tensor",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "add",
    "sub",
    "mul",
    "relu",
    "sum",
    "mean",
    "amax",
    "amin",
    "matmul",
    "clone",
    "clamp",
    "abs",
    "neg",
    "eq",
    "ne",
    "gt",
    "lt",
    "ge",
    "le",
    "remainder",
    "is_tensor",
    "numel",
    "promote_types",
    "result_type",
];

impl Evaluator {
    /// `object.name`.
    pub(super) fn attribute(&mut self, object: Value, name: &str) -> R<Value> {
        match &object {
            Value::Torch => {
                if let Some(d) = DType::from_name(name) {
                    return Ok(Value::DType(d));
                }
                match name {
                    "channels_last" => return Ok(Value::MemoryFormat(MemoryFormat::ChannelsLast)),
                    "contiguous_format" => {
                        return Ok(Value::MemoryFormat(MemoryFormat::Contiguous))
                    }
                    "preserve_format" => return Ok(Value::MemoryFormat(MemoryFormat::Preserve)),
                    _ => {}
                }
                if TORCH_FUNCTIONS.contains(&name) || super::registry::is_function(name) {
                    return Ok(Value::Method(Box::new(Value::Torch), name.to_string()));
                }
                Err(ScriptError::Attribute(format!(
                    "module 'torch' has no attribute '{name}'"
                )))
            }
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                match name {
                    "shape" => return Ok(Value::Size(tensor.shape().to_vec())),
                    "dtype" => return Ok(Value::DType(tensor.dtype)),
                    "ndim" => return Ok(Value::Int(tensor.ndim() as i64)),
                    "nbytes" => {
                        return Ok(Value::Int(tensor.numel() * tensor.dtype.item_size() as i64))
                    }
                    "itemsize" => return Ok(Value::Int(tensor.dtype.item_size() as i64)),
                    "is_cuda" => return Ok(Value::Bool(false)),
                    "device" => return Ok(Value::Device("cpu".into())),
                    "T" => {
                        let dims: Vec<i64> = (0..tensor.ndim() as i64).rev().collect();
                        let out = self.permute(&tensor, &dims)?;
                        return Ok(Value::tensor(out, "T", None));
                    }
                    "mT" | "mH" => {
                        // A 0-dim tensor is its own matrix transpose; a vector is refused.
                        // (Real dtypes: the adjoint `mH` is the transpose.)
                        if tensor.ndim() == 0 {
                            return Ok(Value::tensor(tensor, name, None));
                        }
                        if tensor.ndim() < 2 {
                            return Err(ScriptError::Runtime(format!(
                                "tensor.{name} is only supported on matrices or batches of matrices. Got {}-D tensor.",
                                tensor.ndim()
                            )));
                        }
                        let out = self.transpose(&tensor, -2, -1)?;
                        return Ok(Value::tensor(out, name, None));
                    }
                    "H" => {
                        let n = tensor.ndim();
                        if n != 0 && n != 2 {
                            let hint = if n > 2 {
                                " For batches of matrices, consider using tensor.mH"
                            } else {
                                ""
                            };
                            return Err(ScriptError::Runtime(format!(
                                "tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{hint}"
                            )));
                        }
                        let out = self.t(&tensor, "H")?;
                        return Ok(Value::tensor(out, "H", None));
                    }
                    _ => {}
                }
                if TENSOR_METHODS.contains(&name) || super::registry::is_method(name) {
                    return Ok(Value::Method(Box::new(object.clone()), name.to_string()));
                }
                Err(ScriptError::Attribute(format!(
                    "'Tensor' object has no attribute '{name}'"
                )))
            }
            Value::Module(m) => self.module_attribute(m, name),
            Value::Storage(id, dtype) => self.storage_attribute(*id, *dtype, name),
            Value::DType(d) => match name {
                "itemsize" => Ok(Value::Int(d.item_size() as i64)),
                "is_floating_point" => Ok(Value::Bool(d.is_floating())),
                _ => Err(ScriptError::Attribute(format!(
                    "'torch.dtype' object has no attribute '{name}'"
                ))),
            },
            other => Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute '{}'",
                other.type_name(),
                name
            ))),
        }
    }

    /// `object[index]`.
    pub(super) fn get_item(&mut self, object: Value, index: &Value) -> R<Value> {
        match &object {
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                let out = self.index_view(&tensor, index)?;
                Ok(Value::tensor(out, "index", None))
            }
            Value::Storage(id, dtype) => self.storage_get_item(*id, *dtype, index),
            Value::Tuple(items) | Value::List(items) => {
                let len = items.len() as i64;
                match index {
                    Value::Slice(start, stop, step) => {
                        let picked = py_slice(len, *start, *stop, *step)?;
                        let v: Vec<Value> = picked.into_iter().map(|i| items[i].clone()).collect();
                        Ok(if matches!(object, Value::List(_)) {
                            Value::List(v)
                        } else {
                            Value::Tuple(v)
                        })
                    }
                    other => {
                        let i = self.index_int(other)?;
                        let j = if i < 0 { i + len } else { i };
                        if j < 0 || j >= len {
                            let kind = if matches!(object, Value::List(_)) {
                                "list"
                            } else {
                                "tuple"
                            };
                            return Err(ScriptError::Index(format!("{kind} index out of range")));
                        }
                        Ok(items[j as usize].clone())
                    }
                }
            }
            Value::Size(dims) => {
                let len = dims.len() as i64;
                match index {
                    Value::Slice(start, stop, step) => {
                        let picked = py_slice(len, *start, *stop, *step)?;
                        Ok(Value::Size(picked.into_iter().map(|i| dims[i]).collect()))
                    }
                    other => {
                        let i = self.index_int(other)?;
                        let j = if i < 0 { i + len } else { i };
                        if j < 0 || j >= len {
                            return Err(ScriptError::Index("tuple index out of range".into()));
                        }
                        Ok(Value::Int(dims[j as usize]))
                    }
                }
            }
            other => Err(ScriptError::Type(format!(
                "'{}' object is not subscriptable",
                other.type_name()
            ))),
        }
    }

    /// Calls a callable value.
    pub(super) fn call(
        &mut self,
        func: Value,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        if let Value::Layer { kind, inplace } = &func {
            return self.call_layer(kind, *inplace, pos);
        }
        let Value::Method(receiver, name) = func else {
            return Err(ScriptError::Type(format!(
                "'{}' object is not callable",
                func.type_name()
            )));
        };
        match &*receiver {
            Value::Torch => {
                if let Some(result) = self.call_table_function(&name, &pos, &kw) {
                    return result;
                }
            }
            Value::Tensor(t) => {
                if let Some(result) = self.call_table_method(t, &name, &pos, &kw) {
                    return result;
                }
            }
            _ => {}
        }
        let args = Args {
            name: name.clone(),
            pos,
            kw,
        };
        match *receiver {
            Value::Torch => self.call_torch(&name, args),
            Value::Tensor(t) => self.call_method(&t, &name, args),
            Value::Storage(id, dtype) => self.call_storage(id, dtype, &name, &args.pos),
            Value::None => self.call_builtin(&name, args.pos, args.kw),
            Value::Module(m) => self.call_module(&m, &name, args.pos, args.kw),
            other => Err(ScriptError::Type(format!(
                "'{}' object is not callable",
                other.type_name()
            ))),
        }
    }

    /// Converts to a Python int, with PyTorch's argument error.
    pub(super) fn int_arg(
        &mut self,
        v: &Value,
        func: &str,
        param: &str,
        position: usize,
    ) -> R<i64> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(i64::from(*b)),
            Value::Tensor(_) => self.index_int(v),
            other => Err(ScriptError::Type(format!(
                "{}(): argument '{}' (position {}) must be int, not {}",
                func,
                param,
                position,
                other.type_name()
            ))),
        }
    }

    /// Converts a sequence (or a single int) to a list of ints.
    pub(super) fn int_list(&mut self, v: &Value, func: &str, param: &str) -> R<Vec<i64>> {
        match v {
            Value::Tuple(items) | Value::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, x)| match x {
                    Value::Int(n) => Ok(*n),
                    Value::Bool(b) => Ok(i64::from(*b)),
                    Value::Tensor(_) => self.index_int(x),
                    other => Err(ScriptError::Type(format!(
                        "{}(): argument '{}' must be tuple of ints, but found element of type {} at pos {}",
                        func,
                        param,
                        other.type_name(),
                        i
                    ))),
                })
                .collect(),
            Value::Size(dims) => Ok(dims.clone()),
            Value::Int(i) => Ok(vec![*i]),
            other => Err(ScriptError::Type(format!(
                "{}(): argument '{}' (position 1) must be tuple of ints, not {}",
                func,
                param,
                other.type_name()
            ))),
        }
    }

    fn opt_dtype(&self, v: &Option<Value>, func: &str) -> R<Option<DType>> {
        match v {
            None | Some(Value::None) => Ok(None),
            Some(Value::DType(d)) => Ok(Some(*d)),
            Some(other) => Err(ScriptError::Type(format!(
                "{}(): argument 'dtype' must be torch.dtype, not {}",
                func,
                other.type_name()
            ))),
        }
    }

    fn opt_format(&self, v: &Option<Value>, func: &str, default: MemoryFormat) -> R<MemoryFormat> {
        match v {
            None | Some(Value::None) => Ok(default),
            Some(Value::MemoryFormat(f)) => Ok(*f),
            Some(other) => Err(ScriptError::Type(format!(
                "{}(): argument 'memory_format' must be torch.memory_format, not {}",
                func,
                other.type_name()
            ))),
        }
    }

    fn opt_bool(&mut self, v: &Option<Value>, default: bool) -> R<bool> {
        match v {
            None => Ok(default),
            Some(v) => self.truthy(v),
        }
    }

    /// Dims given as an int, a sequence, or None.
    fn opt_dims(&mut self, v: &Option<Value>, func: &str) -> R<Option<Vec<i64>>> {
        match v {
            None | Some(Value::None) => Ok(None),
            Some(v) => Ok(Some(self.int_list(v, func, "dim")?)),
        }
    }

    fn scalar_arg(&mut self, v: &Option<Value>, func: &str, param: &str) -> R<Option<Scalar>> {
        match v {
            None | Some(Value::None) => Ok(None),
            Some(Value::Tensor(t)) => {
                let t = t.borrow().tensor.clone();
                if t.numel() != 1 {
                    return Err(ScriptError::Runtime(
                        "a Tensor with more than one element cannot be converted to Scalar".into(),
                    ));
                }
                Ok(self.engine.values(&t).first().copied())
            }
            Some(v) => self.scalar_of(v).map(Some).ok_or_else(|| {
                ScriptError::Type(format!(
                    "{}(): argument '{}' must be Number, not {}",
                    func,
                    param,
                    v.type_name()
                ))
            }),
        }
    }

    fn call_torch(&mut self, name: &str, args: Args) -> R<Value> {
        match name {
            "arange" => {
                let a = args.bind(&["start", "end", "step", "dtype"], 0)?;
                let num = |v: &Option<Value>, ev: &Evaluator| -> R<Option<Scalar>> {
                    match v {
                        None | Some(Value::None) => Ok(None),
                        Some(v) => ev.scalar_of(v).map(Some).ok_or_else(|| {
                            ScriptError::Type(format!("arange() received an invalid combination of arguments - got ({}, )", v.type_name()))
                        }),
                    }
                };
                let first = num(&a[0], self)?;
                let second = num(&a[1], self)?;
                let step = num(&a[2], self)?.unwrap_or(Scalar::Int(1));
                let dtype = self.opt_dtype(&a[3], "arange")?;
                let (start, end) = match (first, second) {
                    (Some(s), Some(e)) => (s, e),
                    (Some(e), None) => (Scalar::Int(0), e),
                    (None, Some(e)) => (Scalar::Int(0), e),
                    (None, None) => {
                        return Err(ScriptError::Type(
                            "arange() missing 1 required positional arguments: \"end\"".into(),
                        ))
                    }
                };
                let t = self.arange(start, end, step, dtype)?;
                Ok(Value::tensor(t, "arange", None))
            }
            "zeros" | "ones" | "empty" | "full" => {
                let (shape, rest) = if name == "full" {
                    let a = args.bind(&["size", "fill_value", "dtype"], 2)?;
                    let shape =
                        self.int_list(a[0].as_ref().unwrap_or(&Value::None), name, "size")?;
                    (shape, a)
                } else {
                    let (shape, rest) =
                        args.int_list_varargs(self, "size", &["dtype", "memory_format"])?;
                    let mut v = vec![None, None];
                    v.extend(rest);
                    (shape, v)
                };
                let fill = if name == "full" {
                    self.scalar_arg(&rest[1], name, "fill_value")?
                        .unwrap_or(Scalar::Int(0))
                } else if name == "ones" {
                    Scalar::Int(1)
                } else {
                    Scalar::Int(0)
                };
                let dtype = self
                    .opt_dtype(&rest[2], name)?
                    .unwrap_or(match (name, fill) {
                        ("full", Scalar::Int(_)) => DType::Int64,
                        ("full", Scalar::Bool(_)) => DType::Bool,
                        _ => DType::Float32,
                    });
                let t = self.full(&shape, fill, dtype, name)?;
                if let Some(Some(Value::MemoryFormat(MemoryFormat::ChannelsLast))) = rest.get(3) {
                    let c = self.convert(&t, dtype, MemoryFormat::ChannelsLast, name)?;
                    return Ok(Value::tensor(c, name, None));
                }
                Ok(Value::tensor(t, name, None))
            }
            "tensor" => {
                let a = args.bind(&["data", "dtype"], 1)?;
                let data = a[0].clone().unwrap_or(Value::None);
                let dtype = self.opt_dtype(&a[1], "tensor")?;
                let t = self.tensor_literal(&data, dtype)?;
                Ok(Value::tensor(t, "tensor", None))
            }
            "zeros_like" | "ones_like" | "empty_like" | "full_like" => {
                let params: &[&str] = if name == "full_like" {
                    &["input", "fill_value", "dtype"]
                } else {
                    &["input", "dtype"]
                };
                let a = args.bind(params, if name == "full_like" { 2 } else { 1 })?;
                let src = self.tensor_arg(&a[0], name)?;
                let dtype_slot = if name == "full_like" { &a[2] } else { &a[1] };
                let dtype = self.opt_dtype(dtype_slot, name)?.unwrap_or(src.dtype);
                let fill = match name {
                    "ones_like" => Scalar::Int(1),
                    "full_like" => self
                        .scalar_arg(&a[1], name, "fill_value")?
                        .unwrap_or(Scalar::Int(0)),
                    _ => Scalar::Int(0),
                };
                let strides = if src.layout.is_non_overlapping_and_dense() {
                    src.strides().to_vec()
                } else {
                    crate::tensor::layout::infer_dense_strides(src.shape(), src.strides())
                };
                let t = self.empty_strided(src.shape(), &strides, dtype, name)?;
                self.engine.fill(&t, fill);
                Ok(Value::tensor(t, name, None))
            }
            "is_tensor" => {
                let a = args.bind(&["obj"], 1)?;
                Ok(Value::Bool(matches!(a[0], Some(Value::Tensor(_)))))
            }
            "promote_types" => {
                let a = args.bind(&["type1", "type2"], 2)?;
                match (&a[0], &a[1]) {
                    (Some(Value::DType(x)), Some(Value::DType(y))) => {
                        Ok(Value::DType(DType::promote(*x, *y)))
                    }
                    _ => Err(ScriptError::Type(
                        "promote_types(): arguments must be torch.dtype".into(),
                    )),
                }
            }
            _ => {
                // Every other torch function is the method of its first argument.
                let mut pos = args.pos;
                let mut kw = args.kw;
                let first = if !pos.is_empty() {
                    pos.remove(0)
                } else if let Some(i) = kw.iter().position(|(k, _)| k == "input") {
                    kw.remove(i).1
                } else {
                    return Err(ScriptError::Type(format!(
                        "{name}() missing 1 required positional arguments: \"input\""
                    )));
                };
                match first {
                    Value::Tensor(t) => self.call_method(
                        &t,
                        name,
                        Args {
                            name: name.to_string(),
                            pos,
                            kw,
                        },
                    ),
                    other => Err(ScriptError::Type(format!(
                        "{}(): argument 'input' (position 1) must be Tensor, not {}",
                        name,
                        other.type_name()
                    ))),
                }
            }
        }
    }

    fn tensor_arg(&self, v: &Option<Value>, func: &str) -> R<Tensor> {
        match v {
            Some(Value::Tensor(t)) => Ok(t.borrow().tensor.clone()),
            Some(other) => Err(ScriptError::Type(format!(
                "{}(): argument 'input' (position 1) must be Tensor, not {}",
                func,
                other.type_name()
            ))),
            None => Err(ScriptError::Type(format!(
                "{func}() missing 1 required positional arguments: \"input\""
            ))),
        }
    }

    /// `torch.tensor(data)`: nested lists of numbers, dtype inferred as PyTorch does.
    fn tensor_literal(&mut self, data: &Value, dtype: Option<DType>) -> R<Tensor> {
        fn shape_of(v: &Value, depth: usize, shape: &mut Vec<i64>) -> R<()> {
            if depth > 64 {
                return Err(ScriptError::Value("too many dimensions".into()));
            }
            match v {
                Value::List(items) | Value::Tuple(items) => {
                    shape.push(items.len() as i64);
                    if let Some(first) = items.first() {
                        shape_of(first, depth + 1, shape)?;
                    }
                    Ok(())
                }
                _ => Ok(()),
            }
        }
        fn flatten(
            v: &Value,
            depth: usize,
            shape: &[i64],
            out: &mut Vec<Scalar>,
            ev: &mut Evaluator,
        ) -> R<()> {
            match v {
                Value::List(items) | Value::Tuple(items) => {
                    if depth >= shape.len() {
                        return Err(ScriptError::Value(format!(
                            "expected sequence of length {} at dim {} (got {})",
                            shape.get(depth.saturating_sub(1)).copied().unwrap_or(0),
                            depth.saturating_sub(1),
                            items.len()
                        )));
                    }
                    if items.len() as i64 != shape[depth] {
                        return Err(ScriptError::Value(format!(
                            "expected sequence of length {} at dim {} (got {})",
                            shape[depth],
                            depth,
                            items.len()
                        )));
                    }
                    for item in items {
                        flatten(item, depth + 1, shape, out, ev)?;
                    }
                    Ok(())
                }
                Value::Tensor(t) => {
                    let t = t.borrow().tensor.clone();
                    if t.numel() != 1 || depth != shape.len() {
                        return Err(ScriptError::Value(
                            "only one element tensors can be converted to Python scalars".into(),
                        ));
                    }
                    out.extend(ev.engine.values(&t));
                    Ok(())
                }
                other => {
                    if depth != shape.len() {
                        return Err(ScriptError::Type(format!(
                            "new(): invalid data type '{}'",
                            other.type_name()
                        )));
                    }
                    match ev.scalar_of(other) {
                        Some(s) => {
                            out.push(s);
                            Ok(())
                        }
                        None => Err(ScriptError::Type(format!(
                            "new(): invalid data type '{}'",
                            other.type_name()
                        ))),
                    }
                }
            }
        }
        let mut shape = Vec::new();
        shape_of(data, 0, &mut shape)?;
        self.check_shape(&shape)?;
        let mut values = Vec::new();
        flatten(data, 0, &shape, &mut values, self)?;
        let inferred = if values.iter().any(|v| matches!(v, Scalar::Float(_))) {
            DType::Float32
        } else if !values.is_empty() && values.iter().all(|v| matches!(v, Scalar::Bool(_))) {
            DType::Bool
        } else if values.is_empty() {
            DType::Float32
        } else {
            DType::Int64
        };
        let dtype = dtype.unwrap_or(inferred);
        if dtype.is_integral() {
            // Python numbers are stored into integer dtypes with a range check.
            if values.iter().any(|&v| dtype.overflows(v)) {
                return Err(ScriptError::Runtime(format!(
                    "value cannot be converted to type {} without overflow",
                    dtype.name()
                )));
            }
        }
        self.tensor_from_values(&shape, dtype, &values, "tensor")
    }

    /// Calls a tensor method on the object `this`.
    pub(super) fn call_method(&mut self, this: &TensorRef, name: &str, args: Args) -> R<Value> {
        let t = this.borrow().tensor.clone();
        let same = |this: &TensorRef| Value::Tensor(Rc::clone(this));
        match name {
            "clone" => {
                let a = args.bind(&["memory_format"], 0)?;
                let f = self.opt_format(&a[0], name, MemoryFormat::Preserve)?;
                let out = self.convert(&t, t.dtype, f, "clone")?;
                Ok(Value::tensor(out, "clone", Some(t.storage)))
            }
            "to" => self.to(this, &t, args),
            "float" | "half" | "int" | "long" | "double" | "bool" | "byte" | "char" | "short"
            | "bfloat16" => {
                let a = args.bind(&["memory_format"], 0)?;
                let f = self.opt_format(&a[0], name, MemoryFormat::Preserve)?;
                let d = match name {
                    "byte" => DType::UInt8,
                    "char" => DType::Int8,
                    other => DType::from_name(other).unwrap_or(DType::Float32),
                };
                self.convert_to(this, &t, d, f, false, name)
            }
            "add" | "sub" | "mul" | "remainder" | "eq" | "ne" | "gt" | "lt" | "ge"
            | "le" | "matmul" => {
                let params: &[&str] = if matches!(name, "add" | "sub") {
                    &["other", "alpha"]
                } else {
                    &["other"]
                };
                let a = args.bind(params, 1)?;
                let mut other = a[0].clone().unwrap_or(Value::None);
                if let Some(Some(alpha)) = a.get(1) {
                    other = self.binary(crate::script::ast::BinOp::Mul, other, alpha.clone())?;
                }
                let op = match name {
                    "add" => crate::script::ast::BinOp::Add,
                    "sub" => crate::script::ast::BinOp::Sub,
                    "mul" => crate::script::ast::BinOp::Mul,
                    "remainder" => crate::script::ast::BinOp::Mod,
                    "eq" => crate::script::ast::BinOp::Eq,
                    "ne" => crate::script::ast::BinOp::Ne,
                    "gt" => crate::script::ast::BinOp::Gt,
                    "lt" => crate::script::ast::BinOp::Lt,
                    "ge" => crate::script::ast::BinOp::Ge,
                    "le" => crate::script::ast::BinOp::Le,
                    _ => crate::script::ast::BinOp::MatMul,
                };
                self.tensor_binary(op, &same(this), &other)
            }
            "add_" | "sub_" | "mul_" => {
                let params: &[&str] = if matches!(name, "add_" | "sub_") {
                    &["other", "alpha"]
                } else {
                    &["other"]
                };
                let a = args.bind(params, 1)?;
                let mut other = a[0].clone().unwrap_or(Value::None);
                if let Some(Some(alpha)) = a.get(1) {
                    other = self.binary(crate::script::ast::BinOp::Mul, other, alpha.clone())?;
                }
                let op = match name {
                    "add_" => BinaryOp::Add,
                    "sub_" => BinaryOp::Sub,
                    _ => BinaryOp::Mul,
                };
                let y = match &other {
                    Value::Tensor(o) => ElementwiseInput::Tensor(o.borrow().tensor.clone()),
                    v => ElementwiseInput::Number(self.scalar_of(v).ok_or_else(|| {
                        ScriptError::Type(format!(
                            "{}(): argument 'other' (position 1) must be Tensor, not {}",
                            name,
                            v.type_name()
                        ))
                    })?),
                };
                let y_same = matches!(&other, Value::Tensor(o) if Rc::ptr_eq(o, this));
                let x = ElementwiseInput::Tensor(t.clone());
                if y_same {
                    // `a.add_(a)`: the input is the output itself (a full overlap).
                    self.elementwise(op, &x, &x, Some(&t))?;
                } else {
                    self.elementwise(op, &x, &y, Some(&t))?;
                }
                Ok(same(this))
            }
            "copy_" => {
                let a = args.bind(&["src", "non_blocking"], 1)?;
                match &a[0] {
                    Some(Value::Tensor(src)) => {
                        let s = src.borrow().tensor.clone();
                        self.copy_into(&t, &s, Rc::ptr_eq(src, this))?;
                        Ok(same(this))
                    }
                    Some(other) => Err(ScriptError::Type(format!(
                        "copy_(): argument 'src' (position 1) must be Tensor, not {}",
                        other.type_name()
                    ))),
                    None => unreachable_missing(name),
                }
            }
            "fill_" => {
                let a = args.bind(&["value"], 1)?;
                let v = match &a[0] {
                    Some(Value::Tensor(v)) => {
                        let v = v.borrow().tensor.clone();
                        if v.ndim() != 0 {
                            return Err(ScriptError::Runtime(format!(
                                "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                                v.ndim()
                            )));
                        }
                        self.engine
                            .values(&v)
                            .first()
                            .copied()
                            .unwrap_or(Scalar::Int(0))
                    }
                    other => {
                        let v = self
                            .scalar_arg(other, name, "value")?
                            .unwrap_or(Scalar::Int(0));
                        // A Python number goes through `Scalar::to<T>()`, which checks range.
                        t.dtype.checked_number(v).map_err(ScriptError::Runtime)?
                    }
                };
                self.fill(&t, v)?;
                Ok(same(this))
            }
            "zero_" => {
                args.bind(&[], 0)?;
                self.fill(&t, Scalar::Int(0))?;
                Ok(same(this))
            }
            "clamp" | "clamp_" => {
                let a = args.bind(&["min", "max"], 0)?;
                let min = self.scalar_arg(&a[0], name, "min")?;
                let max = self.scalar_arg(&a[1], name, "max")?;
                let inplace = name == "clamp_";
                let out = self.unary_op(UnaryOp::Clamp { min, max }, &t, inplace, "clamp")?;
                if inplace {
                    Ok(same(this))
                } else {
                    Ok(Value::tensor(out, "clamp", None))
                }
            }
            "relu" | "relu_" | "neg" | "abs" => {
                args.bind(&[], 0)?;
                let op = match name {
                    "relu" | "relu_" => UnaryOp::Relu,
                    "neg" => UnaryOp::Neg,
                    _ => UnaryOp::Abs,
                };
                let inplace = name.ends_with('_');
                let out = self.unary_op(op, &t, inplace, name.trim_end_matches('_'))?;
                if inplace {
                    Ok(same(this))
                } else {
                    Ok(Value::tensor(out, name, None))
                }
            }
            "sum" | "mean" | "amax" | "amin" => {
                let a = args.bind(&["dim", "keepdim", "dtype"], 0)?;
                let dims = self.opt_dims(&a[0], name)?;
                let keepdim = self.opt_bool(&a[1], false)?;
                let dtype = self.opt_dtype(&a[2], name)?;
                let op = match name {
                    "sum" => ReduceOp::Sum,
                    "mean" => ReduceOp::Mean,
                    "amax" => ReduceOp::Amax,
                    _ => ReduceOp::Amin,
                };
                let dims = match (op, dims) {
                    (ReduceOp::Amax | ReduceOp::Amin, None) => Some(vec![]),
                    (_, d) => d,
                };
                let out = self.reduce(op, &t, dims.as_deref(), keepdim, dtype)?;
                Ok(Value::tensor(out, name, None))
            }
            "stride" | "size" => {
                let a = args.bind(&["dim"], 0)?;
                let values = if name == "stride" {
                    t.strides().to_vec()
                } else {
                    t.shape().to_vec()
                };
                match &a[0] {
                    None | Some(Value::None) => Ok(if name == "size" {
                        Value::Size(values)
                    } else {
                        Value::Tuple(values.into_iter().map(Value::Int).collect())
                    }),
                    Some(v) => {
                        let d = self.int_arg(v, name, "dim", 1)?;
                        if t.ndim() == 0 {
                            return Err(ScriptError::Index(format!(
                                "Dimension specified as {d} but tensor has no dimensions"
                            )));
                        }
                        let w = crate::tensor::layout::wrap_dim(d, t.ndim())
                            .map_err(ScriptError::Index)?;
                        Ok(Value::Int(values[w]))
                    }
                }
            }
            "dim" | "ndimension" => {
                args.bind(&[], 0)?;
                Ok(Value::Int(t.ndim() as i64))
            }
            "numel" | "nelement" => {
                args.bind(&[], 0)?;
                Ok(Value::Int(t.numel()))
            }
            "element_size" => {
                args.bind(&[], 0)?;
                Ok(Value::Int(t.dtype.item_size() as i64))
            }
            "storage_offset" => {
                args.bind(&[], 0)?;
                Ok(Value::Int(t.layout.offset))
            }
            "is_contiguous" => {
                let a = args.bind(&["memory_format"], 0)?;
                let f = self.opt_format(&a[0], name, MemoryFormat::Contiguous)?;
                Ok(Value::Bool(t.layout.is_contiguous_as(f)))
            }
            "is_floating_point" => {
                args.bind(&[], 0)?;
                Ok(Value::Bool(t.dtype.is_floating()))
            }
            "data_ptr" => {
                args.bind(&[], 0)?;
                let base = self
                    .storages
                    .get(&t.storage)
                    .map(|s| s.base_address)
                    .unwrap_or(0);
                Ok(Value::Int(
                    base as i64 + t.layout.offset * t.dtype.item_size() as i64,
                ))
            }
            "item" => {
                args.bind(&[], 0)?;
                if t.numel() != 1 {
                    return Err(ScriptError::Runtime(format!(
                        "a Tensor with {} elements cannot be converted to Scalar",
                        t.numel()
                    )));
                }
                let v = self
                    .engine
                    .values(&t)
                    .first()
                    .copied()
                    .unwrap_or(Scalar::Int(0));
                Ok(match v {
                    Scalar::Bool(b) => Value::Bool(b),
                    Scalar::Int(i) => Value::Int(i),
                    Scalar::Float(f) => Value::Float(f),
                })
            }
            "tolist" => {
                args.bind(&[], 0)?;
                self.check_work(t.numel(), "tolist")?;
                let values = self.engine.values(&t);
                Ok(nest(&values, t.shape()))
            }
            "type" => {
                args.bind(&[], 0)?;
                Ok(Value::Str(t.dtype.legacy_type_name()))
            }
            "is_set_to" => {
                let a = args.bind(&["tensor"], 1)?;
                let o = self.tensor_arg(&a[0], name)?;
                Ok(Value::Bool(o.storage == t.storage && o.layout == t.layout))
            }
            other => Err(ScriptError::Attribute(format!(
                "'Tensor' object has no attribute '{other}'"
            ))),
        }
    }

    /// Applies a metadata op: in place (`t_`, `transpose_`, `unsqueeze_`) changes the object
    /// every name shares; otherwise a new view.
    pub(super) fn metadata_result(&mut self, this: &TensorRef, out: Tensor, name: &str) -> R<Value> {
        if let Some(base) = name.strip_suffix('_') {
            let mut obj = this.borrow_mut();
            obj.tensor = out;
            obj.made_by = base.to_string();
            drop(obj);
            return Ok(Value::Tensor(Rc::clone(this)));
        }
        Ok(Value::tensor(out, name, None))
    }

    fn to(&mut self, this: &TensorRef, t: &Tensor, args: Args) -> R<Value> {
        let mut dtype = None;
        let mut format = MemoryFormat::Preserve;
        let mut copy = false;
        for v in &args.pos {
            match v {
                Value::DType(d) => dtype = Some(*d),
                Value::Tensor(o) => dtype = Some(o.borrow().tensor.dtype),
                Value::Str(s) if s == "cpu" => {}
                Value::Bool(_) => {}
                Value::Str(s) => {
                    return Err(ScriptError::Runtime(format!(
                    "Stridescope runs on the CPU or WebGPU engine; device '{s}' is not available"
                )))
                }
                other => {
                    return Err(ScriptError::Type(format!(
                        "to() received an invalid combination of arguments - got ({}, )",
                        other.type_name()
                    )))
                }
            }
        }
        for (k, v) in &args.kw {
            match (k.as_str(), v) {
                ("dtype", Value::DType(d)) => dtype = Some(*d),
                ("dtype", Value::None) => {}
                ("memory_format", Value::MemoryFormat(f)) => format = *f,
                ("copy", v) => copy = self.truthy(v)?,
                ("non_blocking", _) | ("device", _) => {}
                (k, _) => {
                    return Err(ScriptError::Type(format!(
                        "to() got an unexpected keyword argument '{k}'"
                    )))
                }
            }
        }
        let d = dtype.unwrap_or(t.dtype);
        self.convert_to(this, t, d, format, copy, "to")
    }

    fn convert_to(
        &mut self,
        this: &TensorRef,
        t: &Tensor,
        dtype: DType,
        format: MemoryFormat,
        copy: bool,
        name: &str,
    ) -> R<Value> {
        if dtype == t.dtype
            && !copy
            && (format == MemoryFormat::Preserve || t.layout.suggest_memory_format() == format)
        {
            return Ok(Value::Tensor(Rc::clone(this)));
        }
        let out = self.convert(t, dtype, format, name)?;
        Ok(Value::tensor(out, name, Some(t.storage)))
    }
}

fn unreachable_missing(name: &str) -> R<Value> {
    Err(ScriptError::Type(format!(
        "{name}() missing 1 required positional arguments"
    )))
}

/// Nests row-major values into Python lists of `shape`.
fn nest(values: &[Scalar], shape: &[i64]) -> Value {
    let to_value = |s: &Scalar| match *s {
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::Int(i),
        Scalar::Float(f) => Value::Float(f),
    };
    if shape.is_empty() {
        return values.first().map(to_value).unwrap_or(Value::None);
    }
    let inner: i64 = crate::tensor::layout::numel_of(&shape[1..]);
    let items = (0..shape[0])
        .map(|i| {
            let start = (i * inner) as usize;
            let end = ((i + 1) * inner) as usize;
            nest(values.get(start..end).unwrap_or(&[]), &shape[1..])
        })
        .collect();
    Value::List(items)
}

/// Python slice indices of a sequence of `len`.
fn py_slice(len: i64, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> R<Vec<usize>> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(ScriptError::Value("slice step cannot be zero".into()));
    }
    let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: i64| if v < 0 { v + len } else { v };
    let mut out = Vec::new();
    if step > 0 {
        let s = clamp(start.map(norm).unwrap_or(0), 0, len);
        let e = clamp(stop.map(norm).unwrap_or(len), 0, len);
        let mut i = s;
        while i < e {
            out.push(i as usize);
            i += step;
        }
    } else {
        let s = clamp(start.map(norm).unwrap_or(len - 1), -1, len - 1);
        let e = clamp(stop.map(norm).unwrap_or(-1), -1, len - 1);
        let mut i = s;
        while i > e {
            out.push(i as usize);
            i += step;
        }
    }
    Ok(out)
}
