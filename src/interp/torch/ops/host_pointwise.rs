//! Pointwise ops computed in the evaluator from the operands' values, for the functions the
//! engines have no kernels for (rounding, `sign`, `lerp`, the logical ops, `isclose`). The
//! result has the shape of the broadcast operands and the strides TensorIterator gives it, so
//! it is laid out as PyTorch lays it out; `out=` and in-place forms write it back with one
//! engine copy.

use std::rc::Rc;

use crate::core::tensor::layout::{
    broadcast_shapes, elementwise_output_strides, numel_of, OperandLayout,
};
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::{broadcast_view, ElementwiseInput};
use crate::interp::torch::registry::OpCall;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `f` applied element by element to the broadcast `inputs` (each element read in its
    /// own dtype, numbers as they are), rounded to `dtype`.
    pub(super) fn host_pointwise(
        &mut self,
        inputs: &[ElementwiseInput],
        dtype: DType,
        what: &str,
        f: impl Fn(&[Scalar]) -> Scalar,
    ) -> R<Tensor> {
        let mut shape: Vec<i64> = vec![];
        for input in inputs {
            shape = broadcast_shapes(&shape, input.shape()).map_err(ScriptError::Runtime)?;
        }
        self.check_work(numel_of(&shape), what)?;
        let layouts: Vec<(Vec<i64>, Vec<i64>, i64)> = inputs
            .iter()
            .map(|i| match i {
                ElementwiseInput::Tensor(t) => (
                    t.shape().to_vec(),
                    t.strides().to_vec(),
                    t.dtype.item_size() as i64,
                ),
                ElementwiseInput::Number(_) => (vec![], vec![], dtype.item_size() as i64),
            })
            .collect();
        let operands: Vec<OperandLayout<'_>> = layouts
            .iter()
            .map(|(s, st, item)| OperandLayout {
                shape: s,
                strides: st,
                item_size: *item,
            })
            .collect();
        let strides = elementwise_output_strides(&shape, &operands);
        if self.torch.device.meta_op {
            // On the meta device nothing is computed: the result has its layout, no values.
            return self.empty_strided(&shape, &strides, dtype, what);
        }
        let n = usize::try_from(numel_of(&shape)).unwrap_or(0);
        let columns: Vec<Vec<Scalar>> = inputs
            .iter()
            .map(|i| match i {
                ElementwiseInput::Tensor(t) => self.engine.values(&broadcast_view(t, &shape)),
                ElementwiseInput::Number(s) => vec![*s; n],
            })
            .collect();
        let mut args = vec![Scalar::Int(0); inputs.len()];
        let values: Vec<Scalar> = (0..n)
            .map(|k| {
                for (a, column) in args.iter_mut().zip(&columns) {
                    *a = column.get(k).copied().unwrap_or(Scalar::Int(0));
                }
                round(dtype, f(&args))
            })
            .collect();
        self.strided_from_values(&shape, &strides, dtype, &values, what)
    }

    /// [`Evaluator::host_pointwise`] delivered as the call asks ([`Evaluator::deliver_pointwise`]).
    /// Written back into `self` or `out=`, the values are not a tensor PyTorch allocates (its
    /// kernel writes the output in place), so they are not counted.
    pub(super) fn pointwise_result(
        &mut self,
        call: &OpCall,
        inputs: &[ElementwiseInput],
        dtype: DType,
        what: &str,
        f: impl Fn(&[Scalar]) -> Scalar,
    ) -> R<Value> {
        let written_back =
            call.name.ends_with('_') || matches!(call.value("out"), Some(Value::Tensor(_)));
        let result = if written_back {
            self.uncounted(|ev| ev.host_pointwise(inputs, dtype, what, f))?
        } else {
            self.host_pointwise(inputs, dtype, what, f)?
        };
        self.deliver_pointwise(call, result, what)
    }

    /// Where a pointwise result goes: back into `self` (an in-place `name_`), into `out=`
    /// (resized to the result's shape), or a new tensor.
    pub(super) fn deliver_pointwise(
        &mut self,
        call: &OpCall,
        result: Tensor,
        what: &str,
    ) -> R<Value> {
        if call.name.ends_with('_') {
            let this = call.self_ref()?;
            let target = this.borrow().tensor.clone();
            if target.shape() != result.shape() {
                return Err(ScriptError::Runtime(format!(
                    "output with shape {} doesn't match the broadcast shape {}",
                    crate::core::tensor::layout::list_str(target.shape()),
                    crate::core::tensor::layout::list_str(result.shape())
                )));
            }
            self.copy_into(&target, &result, false)?;
            return Ok(Value::Tensor(this));
        }
        if let Some(Value::Tensor(out)) = call.value("out") {
            let out: TensorRef = Rc::clone(out);
            let target = self.resize_out(&out, result.shape(), MemoryFormat::Contiguous)?;
            self.copy_into(&target, &result, false)?;
            return Ok(Value::Tensor(out));
        }
        Ok(Value::tensor(result, what, None))
    }
}

/// `dtype.round(value)`, without the round trip through bytes for the float dtypes.
#[inline]
fn round(dtype: DType, value: Scalar) -> Scalar {
    match dtype {
        DType::Float32 => Scalar::Float(f64::from(value.to_f32())),
        DType::Float64 => Scalar::Float(value.to_f64()),
        _ => dtype.round(value),
    }
}

/// An operand of a pointwise call: a tensor argument, or a number (`None` for anything else).
pub(super) fn operand(ev: &Evaluator, v: Option<&Value>) -> Option<ElementwiseInput> {
    match v? {
        Value::Tensor(t) => Some(ElementwiseInput::Tensor(t.borrow().tensor.clone())),
        other => ev.scalar_of(other).map(ElementwiseInput::Number),
    }
}
