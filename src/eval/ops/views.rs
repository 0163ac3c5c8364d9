//! View ops from PyTorch's "Tensor Views" page that are pure metadata: the result shares the
//! input's storage; only shape, strides and offset change.

use super::super::registry::{Forms, OpCall, OpDef};
use super::super::value::Value;
use super::super::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[OpDef {
    names: &["transpose", "transpose_", "swapaxes", "swapaxes_", "swapdims", "swapdims_"],
    schemas: &["Tensor self, int dim0, int dim1"],
    forms: Forms::Both,
    rule: transpose,
}];

/// `transpose(dim0, dim1)` and its aliases `swapaxes`/`swapdims`; the `_` forms change the
/// object in place.
fn transpose(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let d0 = ev.arg_int(call, "dim0", 0)?;
    let d1 = ev.arg_int(call, "dim1", 0)?;
    let out = ev.transpose(&t, d0, d1)?;
    ev.metadata_result(&call.self_ref()?, out, &call.name)
}
