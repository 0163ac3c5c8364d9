//! NumPy's layout functions that a stride lesson reaches for: `np.ascontiguousarray` (a C-order
//! copy only when needed; `np.asfortranarray` the Fortran-order one), `np.expand_dims` (a
//! reshape, so a view), `np.broadcast_to` (a
//! view with stride 0 where it repeats), and the `flags` of an array.

use crate::core::tensor::{Layout, ScriptError, Tensor};
use crate::interp::numpy::ndarray;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The functions of this module.
pub(in crate::interp) const LAYOUT_FUNCTIONS: &[&str] = &[
    "ascontiguousarray",
    "asfortranarray",
    "expand_dims",
    "broadcast_to",
];

impl Evaluator {
    /// `np.<name>(...)` for [`LAYOUT_FUNCTIONS`].
    pub(in crate::interp) fn numpy_layout_function(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let mut args = pos.into_iter();
        let a = args.next().ok_or_else(|| {
            ScriptError::Type(format!(
                "{name}() missing 1 required positional argument: 'a'"
            ))
        })?;
        let second = args.next().or_else(|| {
            kw.iter()
                .find(|(k, _)| k == "axis" || k == "shape")
                .map(|(_, v)| v.clone())
        });
        match name {
            "ascontiguousarray" | "asfortranarray" => {
                let order = if name == "asfortranarray" { "F" } else { "C" };
                let mut kw = kw;
                kw.retain(|(k, _)| k != "order");
                kw.push(("order".into(), Value::Str(order.into())));
                let mut pos = vec![a];
                pos.extend(second);
                self.call_numpy("asarray", pos, kw)
            }
            "expand_dims" => {
                let array = self.numpy_array(&a, None, false)?;
                let Value::NdArray(t) = &array else {
                    return Ok(array);
                };
                let shape = t.borrow().tensor.shape().to_vec();
                let axes = match second {
                    Some(v @ (Value::Tuple(_) | Value::List(_))) => {
                        self.int_list(&v, name, "axis")?
                    }
                    Some(v) => vec![self.index_int(&v)?],
                    None => {
                        return Err(ScriptError::Type(
                            "expand_dims() missing 1 required positional argument: 'axis'".into(),
                        ))
                    }
                };
                let ndim = (shape.len() + axes.len()) as i64;
                let mut wrapped = Vec::with_capacity(axes.len());
                for axis in axes {
                    let w = if axis < 0 { axis + ndim } else { axis };
                    if w < 0 || w >= ndim {
                        return Err(ScriptError::Other {
                            class: "AxisError".into(),
                            message: format!(
                                "axis {axis} is out of bounds for array of dimension {ndim}"
                            ),
                        });
                    }
                    if wrapped.contains(&w) {
                        return Err(ScriptError::Value("repeated axis".into()));
                    }
                    wrapped.push(w);
                }
                let mut rest = shape.into_iter();
                let new_shape: Vec<Value> = (0..ndim)
                    .map(|d| {
                        Value::Int(if wrapped.contains(&d) {
                            1
                        } else {
                            rest.next().unwrap_or(1)
                        })
                    })
                    .collect();
                self.call(
                    Value::Method(Box::new(array), "reshape".into()),
                    vec![Value::Tuple(new_shape)],
                    vec![],
                )
            }
            _ => {
                let array = self.numpy_array(&a, None, false)?;
                let Value::NdArray(t) = &array else {
                    return Ok(array);
                };
                let shape = match second {
                    Some(v @ (Value::Tuple(_) | Value::List(_) | Value::Size(_))) => {
                        self.int_list(&v, name, "shape")?
                    }
                    Some(v) => vec![self.index_int(&v)?],
                    None => {
                        return Err(ScriptError::Type(
                            "broadcast_to() missing 1 required positional argument: 'shape'".into(),
                        ))
                    }
                };
                let view = broadcast_to(&t.borrow().tensor, &shape)?;
                Ok(ndarray(view, "broadcast_to"))
            }
        }
    }

    /// `a.flags`: its layout flags, read as `a.flags['C_CONTIGUOUS']`.
    pub(in crate::interp) fn ndarray_flags(&self, a: &TensorRef) -> Value {
        let t = a.borrow().tensor.clone();
        let reversed = Layout {
            shape: t.shape().iter().rev().copied().collect(),
            strides: t.strides().iter().rev().copied().collect(),
            offset: 0,
        };
        let flag = |k: &str, v: bool| (Value::Str(k.into()), Value::Bool(v));
        Value::Dict(vec![
            flag("C_CONTIGUOUS", t.layout.is_contiguous()),
            flag("F_CONTIGUOUS", reversed.is_contiguous()),
            flag("WRITEABLE", !t.strides().contains(&0) || t.numel() <= 1),
            flag("ALIGNED", true),
            flag("WRITEBACKIFCOPY", false),
        ])
    }
}

/// NumPy's `broadcast_to`: `t` seen with `shape` (stride 0 where it repeats).
fn broadcast_to(t: &Tensor, shape: &[i64]) -> R<Tensor> {
    let text = |s: &[i64]| match s {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    if shape.len() < t.ndim() {
        return Err(ScriptError::Value(
            "input operand has more dimensions than allowed by the axis remapping".into(),
        ));
    }
    if shape.iter().any(|&d| d < 0) {
        return Err(ScriptError::Value(
            "all elements of broadcast shape must be non-negative".into(),
        ));
    }
    let lead = shape.len() - t.ndim();
    let mut strides = vec![0; shape.len()];
    for (i, (&size, &stride)) in t.shape().iter().zip(t.strides()).enumerate() {
        let want = shape[lead + i];
        strides[lead + i] = if size == want {
            stride
        } else if size == 1 {
            0
        } else {
            return Err(ScriptError::Value(format!(
                "operands could not be broadcast together with remapped shapes [original->remapped]: {}  and requested shape {}",
                text(t.shape()),
                text(shape)
            )));
        };
    }
    Ok(Tensor {
        storage: t.storage,
        dtype: t.dtype,
        layout: Layout {
            shape: shape.to_vec(),
            strides,
            offset: t.layout.offset,
        },
    })
}
