//! Tensor semantics: what each op does to shapes, strides, offsets, dtypes and storages,
//! with PyTorch's rules and error messages. Data movement goes through the engine.

mod activation;
mod activation_more;
mod addc;
mod arith;
mod complex;
mod complex_math;
mod complex_ops;
mod composites;
pub(crate) mod convert;
mod einsum;
mod elementwise;
pub(crate) use elementwise::wrapped_number_dtype;
mod factory;
mod host_pointwise;
mod index;
mod index_along;
mod indexed;
mod join;
mod linalg;
mod logical;
mod losses;
mod math;
mod matmul;
mod mkl_sqrt;
mod nn_functional;
mod norms;
mod numpy_bridge;
mod ordered;
mod pointwise;
mod query;
mod random;
mod random_normal;
mod reduce;
mod reorder;
mod rounding;
mod shape_helpers;
mod split;
mod stats;
pub(crate) mod vec_float;
mod view_rules;
mod views;

use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
pub(crate) use activation::erf;
pub(crate) use activation::Activation;
pub(crate) use complex_math::takes_complex_number;
pub(crate) use losses::Reduction;

/// Every family's table of ops (see [`crate::interp::torch::registry`]).
pub(crate) static FAMILIES: &[&[OpDef]] = &[
    views::OPS,
    complex::OPS,
    complex_ops::OPS,
    split::OPS,
    crate::interp::torch::storage::OPS,
    crate::interp::torch::storage_set::OPS,
    random::OPS,
    random_normal::OPS,
    crate::interp::torch::device::OPS,
    join::OPS,
    reorder::OPS,
    indexed::OPS,
    index_along::OPS,
    index::OPS,
    arith::OPS,
    pointwise::OPS,
    factory::OPS,
    reduce::OPS,
    convert::OPS,
    query::OPS,
    numpy_bridge::OPS,
    ordered::OPS,
    math::OPS,
    rounding::OPS,
    addc::OPS,
    logical::OPS,
    stats::OPS,
    norms::OPS,
    activation::OPS,
    activation_more::OPS,
    linalg::OPS,
    composites::OPS,
    einsum::OPS,
    shape_helpers::OPS,
    crate::interp::torch::nn::functional::OPS,
    crate::interp::torch::nn::functional_more::OPS,
    crate::interp::torch::nn::fold::OPS,
    crate::interp::torch::nn::attention::OPS,
    crate::interp::torch::nn::baddbmm::OPS,
    crate::interp::torch::nn::conv::OPS,
    crate::interp::torch::nn::pool::OPS,
    crate::interp::torch::nn::pool3d::OPS,
    crate::interp::torch::nn::pool_composed::OPS,
    crate::interp::torch::nn::upsample::OPS,
    crate::interp::torch::nn::losses::OPS,
    crate::interp::torch::nn::losses_extra::OPS,
    crate::interp::torch::nn::losses_composed::OPS,
    crate::interp::torch::nn::losses_margin::OPS,
    crate::interp::torch::nn::norm::OPS,
    crate::interp::torch::nn::norm_composed::OPS,
    crate::interp::torch::nn::dense::OPS,
    crate::interp::torch::nn::embedding_bag::OPS,
    crate::interp::torch::serialization::OPS,
    crate::interp::torch::cuda_ops::OPS,
];
use crate::core::tensor::layout::{
    broadcast_shapes, contiguous_strides, infer_dense_strides, iteration_order, list_str,
};
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::engines::BinaryOp;
use crate::lang::ast::BinOp;
pub use elementwise::ElementwiseInput;
use elementwise::*;

/// `computeStorageNbytes`: bytes a storage needs to hold a view (0 when it has no elements).
pub fn storage_nbytes_for(
    shape: &[i64],
    strides: &[i64],
    offset: i64,
    item_size: usize,
) -> Option<u64> {
    if shape.contains(&0) {
        return Some(0);
    }
    let mut last: i64 = offset;
    for (&n, &s) in shape.iter().zip(strides) {
        last = last.checked_add((n - 1).checked_mul(s)?)?;
    }
    u64::try_from(last.checked_add(1)?)
        .ok()?
        .checked_mul(item_size as u64)
}

fn index_err(msg: String) -> ScriptError {
    ScriptError::Index(msg)
}

/// How PyTorch names a memory overlap between a written tensor and an input.
#[derive(PartialEq)]
enum Overlap {
    No,
    Full,
    Partial,
    TooHard,
}

/// `canCast(from, to)` for in-place results.
fn can_cast(from: DType, to: DType) -> bool {
    let float_to_int = from.is_floating() && to.is_integral();
    let to_bool = from != DType::Bool && to == DType::Bool;
    !(float_to_int || to_bool)
}

/// The checks `clamp` makes on its bounds once the result dtype is known: bool has no
/// kernel; an integer dtype refuses a `min` above its range or a `max` below it (bounds past
/// the other end simply clamp); a floating dtype converts both bounds with c10's range check.
fn check_clamp_bounds(dtype: DType, min: Option<Scalar>, max: Option<Scalar>) -> R<()> {
    if dtype == DType::Bool {
        return Err(ScriptError::NotImplemented(
            "\"clamp_scalar_cpu\" not implemented for 'Bool'".into(),
        ));
    }
    if dtype.is_integral() {
        let (lowest, highest) = dtype.finite_range();
        let outside = |which: &str, v: Scalar| {
            ScriptError::Runtime(format!(
                "Clamp {which} value {} is outside the representable range of {}",
                crate::core::print::pyfmt::general(v.to_f64(), 6),
                dtype.scalar_type_name()
            ))
        };
        if let Some(v) = min {
            if v.to_f64() > highest {
                return Err(outside("min", v));
            }
        }
        if let Some(v) = max {
            if v.to_f64() < lowest {
                return Err(outside("max", v));
            }
        }
        return Ok(());
    }
    for v in [min, max].into_iter().flatten() {
        dtype.checked_number(v).map_err(ScriptError::Runtime)?;
    }
    Ok(())
}

/// The engine's operator for a Python binary operator; `None` for those that are not
/// elementwise (`@`, `in`, `is`).
pub(in crate::interp) fn binary_op(op: BinOp) -> Option<BinaryOp> {
    Some(match op {
        BinOp::Add => BinaryOp::Add,
        BinOp::Sub => BinaryOp::Sub,
        BinOp::Mul => BinaryOp::Mul,
        BinOp::Div => BinaryOp::Div,
        BinOp::FloorDiv => BinaryOp::FloorDiv,
        BinOp::Mod => BinaryOp::Rem,
        BinOp::Pow => BinaryOp::Pow,
        BinOp::Eq => BinaryOp::Eq,
        BinOp::Ne => BinaryOp::Ne,
        BinOp::Lt => BinaryOp::Lt,
        BinOp::Le => BinaryOp::Le,
        BinOp::Gt => BinaryOp::Gt,
        BinOp::Ge => BinaryOp::Ge,
        BinOp::BitAnd => BinaryOp::BitAnd,
        BinOp::BitOr => BinaryOp::BitOr,
        BinOp::BitXor => BinaryOp::BitXor,
        BinOp::MatMul | BinOp::In | BinOp::NotIn | BinOp::Is | BinOp::IsNot => return None,
    })
}

/// [`binary_op`] for the elementwise paths, which never see the other operators.
fn bin_op(op: BinOp) -> BinaryOp {
    binary_op(op).unwrap_or(BinaryOp::Mul)
}

impl Evaluator {
    /// The check of an in-place op's result against its output (`a %= 2.5` on an int tensor):
    /// PyTorch's "result type Float can't be cast to the desired output type Long".
    pub(crate) fn check_in_place_cast(&self, result: &Tensor, out: &Tensor) -> R<()> {
        if can_cast(result.dtype, out.dtype) {
            return Ok(());
        }
        Err(ScriptError::Runtime(format!(
            "result type {} can't be cast to the desired output type {}",
            result.dtype.scalar_type_name(),
            out.dtype.scalar_type_name()
        )))
    }
}

/// Expands a layout to `shape` for reading (stride 0 on broadcast dims).
fn broadcast_view(t: &Tensor, shape: &[i64]) -> Tensor {
    let n = shape.len();
    let offset = n - t.ndim();
    let mut strides = vec![0; n];
    for i in 0..t.ndim() {
        strides[offset + i] = if t.shape()[i] == 1 && shape[offset + i] != 1 {
            0
        } else {
            t.strides()[i]
        };
    }
    t.with_layout(Layout {
        shape: shape.to_vec(),
        strides,
        offset: t.layout.offset,
    })
}

impl Evaluator {
    // ----- storages and new tensors -----

    /// A new uninitialised (zeroed) tensor with explicit strides.
    pub(crate) fn empty_strided(
        &mut self,
        shape: &[i64],
        strides: &[i64],
        dtype: DType,
        what: &str,
    ) -> R<Tensor> {
        let nbytes = storage_nbytes_for(shape, strides, 0, dtype.item_size())
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| ScriptError::Runtime(format!("{what}: tensor is too large")))?;
        let storage = self.allocate(nbytes, dtype, what)?;
        Ok(Tensor {
            storage,
            dtype,
            layout: Layout {
                shape: shape.to_vec(),
                strides: strides.to_vec(),
                offset: 0,
            },
        })
    }

    /// A new tensor in a dense memory format.
    pub(crate) fn empty(
        &mut self,
        shape: &[i64],
        dtype: DType,
        format: MemoryFormat,
        what: &str,
    ) -> R<Tensor> {
        if format == MemoryFormat::ChannelsLast && shape.len() != 4 {
            return Err(ScriptError::Runtime(
                "required rank 4 tensor to use channels_last format".into(),
            ));
        }
        let layout = Layout::with_format(shape, format);
        self.empty_strided(shape, &layout.strides, dtype, what)
    }

    /// Checks a requested shape: no negative sizes, no overflow.
    pub(crate) fn check_shape(&self, shape: &[i64]) -> R<()> {
        for &n in shape {
            if n < 0 {
                return Err(ScriptError::Runtime(format!(
                    "Trying to create tensor with negative dimension {n}: {}",
                    list_str(shape)
                )));
            }
        }
        let mut total: i64 = 1;
        for &n in shape {
            total = total.checked_mul(n).ok_or_else(|| {
                ScriptError::Runtime(format!(
                    "Storage size calculation overflowed with sizes={}",
                    list_str(shape)
                ))
            })?;
        }
        Ok(())
    }

    /// The `input` of `torch.add(5, x)`: PyTorch's ops that take numbers as tensors
    /// (`should_allow_numbers_as_tensors`) wrap a number `input` into a 0-dim tensor. Against a
    /// tensor `other` it stays a number (a wrapped number in type promotion, as Python's
    /// `5 + x`); against another number it is a 0-dim tensor of the number's default dtype.
    /// Anything else (or `out=`) is PyTorch's "must be Tensor" error.
    pub(crate) fn number_input(&mut self, call: &OpCall) -> R<ElementwiseInput> {
        let input = call.value("input").cloned().unwrap_or(Value::None);
        let Some(n) = self
            .scalar_of(&input)
            .filter(|_| call.value("out").is_none())
        else {
            return Err(ScriptError::Type(format!(
                "{}(): argument 'input' (position 1) must be Tensor, not {}",
                call.name,
                input.type_name()
            )));
        };
        if matches!(call.value("other"), Some(Value::Tensor(_))) {
            return Ok(ElementwiseInput::Number(n));
        }
        let dtype = match n {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::Float32,
        };
        let wrapped = self.tensor_from_values(&[], dtype, &[n], &call.name)?;
        Ok(ElementwiseInput::Tensor(wrapped))
    }

    /// A tensor from host values in row-major order.
    pub(crate) fn tensor_from_values(
        &mut self,
        shape: &[i64],
        dtype: DType,
        values: &[Scalar],
        what: &str,
    ) -> R<Tensor> {
        // Host values are real numbers: an op computing on values in the evaluator does not
        // know complex elements (complex literals and draws build their float halves).
        complex::refuse_complex_dtype(what, dtype)?;
        let item = dtype.item_size();
        let nbytes = values
            .len()
            .checked_mul(item)
            .ok_or_else(|| ScriptError::Runtime("tensor is too large".into()))?;
        if self.torch.device.meta_op {
            // A meta result has no values: nothing to write.
            let storage = self.allocate_meta(nbytes, dtype);
            return Ok(Tensor {
                storage,
                dtype,
                layout: Layout::contiguous(shape),
            });
        }
        // Before building the host bytes, so a huge literal is refused without allocating.
        self.check_memory(nbytes, what)?;
        let mut bytes = vec![0u8; nbytes];
        for (i, v) in values.iter().enumerate() {
            dtype.write(&mut bytes, i, *v);
        }
        let storage = self.allocate_with(bytes, dtype, what)?;
        Ok(Tensor {
            storage,
            dtype,
            layout: Layout::contiguous(shape),
        })
    }

    /// A new tensor of `shape` filled with `value`.
    pub(crate) fn full(
        &mut self,
        shape: &[i64],
        value: Scalar,
        dtype: DType,
        what: &str,
    ) -> R<Tensor> {
        self.check_shape(shape)?;
        let t = self.empty(shape, dtype, MemoryFormat::Contiguous, what)?;
        if value != Scalar::Int(0) && value != Scalar::Float(0.0) && value != Scalar::Bool(false) {
            self.engine.fill(&t, value);
        }
        Ok(t)
    }

    // ----- copies -----

    /// Copies `src` into a fresh tensor with `strides`.
    pub(crate) fn materialize(
        &mut self,
        src: &Tensor,
        strides: &[i64],
        dtype: DType,
        what: &str,
    ) -> R<Tensor> {
        let out = self.empty_strided(src.shape(), strides, dtype, what)?;
        self.engine.copy(&out, src);
        Ok(out)
    }

    /// `clone(memory_format)`.
    pub(crate) fn clone_tensor(&mut self, t: &Tensor, format: MemoryFormat) -> R<Tensor> {
        self.convert(t, t.dtype, format, "clone")
    }

    /// A copy in `dtype` and `format` (`Preserve` keeps dense strides, or the dim order of
    /// non-dense views), as `clone` and `_to_copy` allocate.
    pub(crate) fn convert(
        &mut self,
        t: &Tensor,
        dtype: DType,
        format: MemoryFormat,
        what: &str,
    ) -> R<Tensor> {
        let strides = match format {
            MemoryFormat::Preserve => {
                if t.layout.is_non_overlapping_and_dense() {
                    t.strides().to_vec()
                } else {
                    infer_dense_strides(t.shape(), t.strides())
                }
            }
            MemoryFormat::ChannelsLast => {
                if t.ndim() != 4 {
                    return Err(ScriptError::Runtime(
                        "required rank 4 tensor to use channels_last format".into(),
                    ));
                }
                Layout::with_format(t.shape(), format).strides
            }
            MemoryFormat::Contiguous => contiguous_strides(t.shape()),
        };
        self.materialize(t, &strides, dtype, what)
    }

    // ----- writes through views -----

    fn overlap(&self, a: &Tensor, b: &Tensor, same_object: bool) -> Overlap {
        if same_object {
            return Overlap::Full;
        }
        if a.numel() == 0 || b.numel() == 0 {
            return Overlap::No;
        }
        if !a.layout.is_non_overlapping_and_dense() || !b.layout.is_non_overlapping_and_dense() {
            return Overlap::TooHard;
        }
        if a.storage != b.storage {
            return Overlap::No;
        }
        let a_begin = a.layout.offset * a.dtype.item_size() as i64;
        let a_end = a_begin + a.numel() * a.dtype.item_size() as i64;
        let b_begin = b.layout.offset * b.dtype.item_size() as i64;
        let b_end = b_begin + b.numel() * b.dtype.item_size() as i64;
        if a_begin == b_begin && a_end == b_end {
            return if a.strides() == b.strides() {
                Overlap::Full
            } else {
                Overlap::Partial
            };
        }
        if a_begin < b_end && b_begin < a_end {
            return Overlap::Partial;
        }
        Overlap::No
    }

    fn check_no_internal_overlap(&self, t: &Tensor) -> R<()> {
        if !t.layout.is_non_overlapping_and_dense()
            && t.shape()
                .iter()
                .zip(t.strides())
                .any(|(&n, &s)| s == 0 && n > 1)
        {
            return Err(ScriptError::Runtime(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
            ));
        }
        Ok(())
    }

    fn check_no_partial_overlap(&self, out: &Tensor, input: &Tensor, same_object: bool) -> R<()> {
        if self.overlap(out, input, same_object) == Overlap::Partial {
            return Err(ScriptError::Runtime(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.".into(),
            ));
        }
        Ok(())
    }

    /// `dst.copy_(src)`; `same_object` when they are the same tensor object.
    pub(crate) fn copy_into(&mut self, dst: &Tensor, src: &Tensor, same_object: bool) -> R<()> {
        if same_object {
            return Ok(());
        }
        if dst.storage == src.storage && dst.layout == src.layout && dst.dtype == src.dtype {
            return Ok(());
        }
        self.check_no_internal_overlap(dst)?;
        self.check_no_partial_overlap(dst, src, false)?;
        let shape = broadcast_shapes(dst.shape(), src.shape()).map_err(ScriptError::Runtime)?;
        if shape != dst.shape() {
            return Err(ScriptError::Runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                list_str(dst.shape()),
                list_str(&shape)
            )));
        }
        let src = broadcast_view(src, dst.shape());
        self.check_work(dst.numel(), "copy_")?;
        match sequential_order(&self.memory.rooted(dst), &[&self.memory.rooted(&src)]) {
            None => self.engine.copy(dst, &src),
            Some(order) => {
                for index in order {
                    self.engine
                        .copy(&element_view(dst, &index), &element_view(&src, &index));
                }
            }
        }
        self.note_write(dst);
        Ok(())
    }

    /// `dst.fill_(value)` (no overlap check: filling is idempotent).
    pub(crate) fn fill(&mut self, dst: &Tensor, value: Scalar) -> R<()> {
        self.check_work(dst.numel(), "fill_")?;
        self.engine.fill(dst, value);
        self.note_write(dst);
        Ok(())
    }

    /// A Python number as a scalar.
    pub(crate) fn scalar_of(&self, v: &Value) -> Option<Scalar> {
        match v {
            Value::Bool(b) => Some(Scalar::Bool(*b)),
            Value::Int(i) => Some(Scalar::Int(*i)),
            Value::Float(f) => Some(Scalar::Float(*f)),
            _ => None,
        }
    }
}

/// The 0-dim view of `t`'s element at `index`.
fn element_view(t: &Tensor, index: &[i64]) -> Tensor {
    t.with_layout(Layout {
        shape: vec![],
        strides: vec![],
        offset: t.layout.element_offset(index),
    })
}

/// PyTorch's CPU loops compute an elementwise op element by element, in TensorIterator's
/// order, reading each input just before writing the output element. Engines read all
/// inputs first. The two differ only when a location the op writes is read again (or
/// written again) at a later element: an output that sees a memory location twice (an
/// `unfold`, an overlapping `as_strided`), or an input overlapping the output elsewhere
/// (which PyTorch's overlap check lets through when it cannot decide). Then this returns the
/// element indices in PyTorch's order, to be run one by one; otherwise None.
/// `inputs` are broadcast to `dst`'s shape.
fn sequential_order(dst: &Tensor, inputs: &[&Tensor]) -> Option<Vec<Vec<i64>>> {
    if dst.numel() <= 1 || !inputs.iter().any(|t| t.storage == dst.storage) {
        return None;
    }
    // An input that is the output itself (`w.add_(w)`) reads each element just before it is
    // written, and no other: no element sees another's write.
    let is_dst_or_apart = |t: &Tensor| {
        t.storage != dst.storage
            || (t.layout == dst.layout && t.dtype.item_size() == dst.dtype.item_size())
    };
    if dst.layout.is_non_overlapping_and_dense() && inputs.iter().all(|t| is_dst_or_apart(t)) {
        return None;
    }
    let shape = dst.shape();
    let byte_strides = |t: &Tensor| -> Vec<i64> {
        let size = t.dtype.item_size() as i64;
        t.strides().iter().map(|s| s * size).collect()
    };
    let mut all_strides = vec![byte_strides(dst)];
    all_strides.extend(inputs.iter().map(|t| byte_strides(t)));
    let order = iteration_order(shape, &all_strides);
    let mut indices = Vec::with_capacity(dst.numel().max(0) as usize);
    let mut index = vec![0i64; shape.len()];
    for _ in 0..dst.numel() {
        indices.push(index.clone());
        for &d in &order {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    // Bytes written so far, and whether a later element reads or rewrites one of them.
    let bytes_of = |t: &Tensor, index: &[i64]| {
        let size = t.dtype.item_size() as i64;
        let start = t.layout.element_offset(index) * size;
        start..start + size
    };
    let mut written = std::collections::HashSet::new();
    let mut differs = false;
    for index in &indices {
        let aliased = inputs.iter().filter(|t| t.storage == dst.storage);
        let reads_written = aliased
            .flat_map(|t| bytes_of(t, index))
            .any(|b| written.contains(&b));
        let rewrites = bytes_of(dst, index).any(|b| !written.insert(b));
        if reads_written || rewrites {
            differs = true;
            break;
        }
    }
    differs.then_some(indices)
}

/// The `NotImplementedError` of a CPU kernel that has no bool version.
fn not_for_bool(dtype: DType, kernel: &str) -> R<()> {
    if dtype == DType::Bool {
        return Err(ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for 'Bool'"
        )));
    }
    Ok(())
}

fn op_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::Mul => "mul",
        BinaryOp::Div => "div",
        BinaryOp::FloorDiv => "floor_divide",
        BinaryOp::TruncDiv => "div",
        BinaryOp::Rem => "remainder",
        BinaryOp::Pow => "pow",
        BinaryOp::Eq => "eq",
        BinaryOp::Ne => "ne",
        BinaryOp::Lt => "lt",
        BinaryOp::Le => "le",
        BinaryOp::Gt => "gt",
        BinaryOp::Ge => "ge",
        BinaryOp::BitAnd => "bitwise_and",
        BinaryOp::BitOr => "bitwise_or",
        BinaryOp::BitXor => "bitwise_xor",
    }
}

fn op_label(op: BinOp) -> &'static str {
    op_name(bin_op(op))
}
