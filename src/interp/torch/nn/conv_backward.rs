//! `ConvolutionBackward0`: the gradients of a convolution's `input`, `weight` and `bias`
//! (`convolution_backward` in `derivatives.yaml`), from the saved input and weight and the
//! parameters the forward expanded ([`crate::interp::torch::nn::conv::Params`]).

use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::nn::conv::{geometry, host, host_tensor, Params};
use crate::interp::torch::nn::conv_kernel::{self as kernel, Elem, Geometry};
use crate::interp::torch::nn::conv_memory;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// `convolution(Tensor input, Tensor weight, Tensor? bias, ...)`: saves `input` and `weight`.
pub(crate) static CONVOLUTION: Formula = Formula {
    inputs: &["input", "weight", "bias"],
    saves: &["input", "weight"],
    args: &[
        "stride",
        "padding",
        "padding_after",
        "dilation",
        "output_padding",
        "groups",
        "transposed",
    ],
    backward: convolution_backward,
};

fn ints_arg(b: &Backward, name: &str) -> Vec<i64> {
    b.int_list(name)
}

fn tensor_of(v: &Value) -> R<Tensor> {
    v.as_tensor().ok_or_else(|| {
        ScriptError::Runtime("convolution_backward: a saved tensor is missing".into())
    })
}

/// A shape with a batch dimension (an unbatched input gets one of 1).
fn batched(shape: &[i64], spatial: usize) -> Vec<i64> {
    if shape.len() == spatial + 2 {
        shape.to_vec()
    } else {
        let mut s = vec![1];
        s.extend_from_slice(shape);
        s
    }
}

fn convolution_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let params = Params {
        stride: ints_arg(b, "stride"),
        pad: ints_arg(b, "padding"),
        pad_after: ints_arg(b, "padding_after"),
        dilation: ints_arg(b, "dilation"),
        output_padding: ints_arg(b, "output_padding"),
        groups: match b.arg("groups") {
            Some(Value::Int(g)) => *g,
            _ => 1,
        },
        transposed: matches!(b.arg("transposed"), Some(Value::Bool(true))),
    };
    let input = tensor_of(&ev.saved_input(b, "input")?)?;
    let weight = tensor_of(&ev.saved_input(b, "weight")?)?;
    let grad = tensor_of(&b.g())?;
    let spatial = weight.ndim().saturating_sub(2);
    let xs = batched(input.shape(), spatial);
    let (geo, _) = geometry(&xs, weight.shape(), &params);
    let mut out = b.none();
    let dtype = input.dtype;
    let channels_last = input.ndim() == 4
        && [&input, &weight]
            .iter()
            .any(|t| t.layout.suggest_memory_format() == MemoryFormat::ChannelsLast);
    let format = if channels_last {
        MemoryFormat::ChannelsLast
    } else {
        MemoryFormat::Contiguous
    };
    if crate::interp::torch::nn::conv::meta_op(ev) {
        // On the meta device the gradients have shapes and strides but no values.
        for (i, slot) in out.iter_mut().enumerate().take(3) {
            if b.needs(i) {
                let format = if i < 2 {
                    format
                } else {
                    MemoryFormat::Contiguous
                };
                let t = crate::interp::torch::nn::conv::empty_output(
                    ev,
                    &b.shape(i),
                    format,
                    dtype,
                    "backward",
                )?;
                *slot = Some(Value::tensor(t, "backward", None));
            }
        }
        return Ok(out);
    }
    let gs = batched(grad.shape(), spatial);
    let clone = !grad.layout.is_contiguous();
    let buffers = conv_memory::backward_buffers(
        &xs,
        weight.shape(),
        &gs,
        (dtype, clone, b.needs(2)),
        &params,
    );
    if dtype.is_floating() {
        let grads = compute(ev, &geo, &params, [&input, &weight, &grad], Scalar::to_f64)?;
        finish(
            ev,
            b,
            grads,
            (dtype, format),
            &mut out,
            Scalar::Float,
            buffers,
        )?;
    } else {
        let of = Scalar::to_wrapped_int;
        let grads = compute(ev, &geo, &params, [&input, &weight, &grad], of)?;
        finish(
            ev,
            b,
            grads,
            (dtype, format),
            &mut out,
            Scalar::Int,
            buffers,
        )?;
    }
    Ok(out)
}

/// The three gradients as host values (input, weight, bias).
fn compute<T: Elem>(
    ev: &mut Evaluator,
    geo: &Geometry,
    p: &Params,
    [input, weight, grad]: [&Tensor; 3],
    of: fn(Scalar) -> T,
) -> R<[Vec<T>; 3]> {
    let (x, w, g) = (
        host(ev, input, of),
        host(ev, weight, of),
        host(ev, grad, of),
    );
    let positions: usize = grad.shape().iter().skip(2).product::<i64>().max(0) as usize;
    let (channels, positions, n) = if grad.ndim() == weight.ndim() {
        (
            grad.shape()[1] as usize,
            positions,
            grad.shape()[0] as usize,
        )
    } else {
        let positions: usize = grad.shape().iter().skip(1).product::<i64>().max(0) as usize;
        (grad.shape()[0] as usize, positions, 1)
    };
    Ok(if p.transposed {
        // `x` is the output (the gradient), `y` the input.
        [
            kernel::y_from_x(&g, &w, geo),
            kernel::weight_from(&g, &x, geo),
            kernel::bias_from(&g, n, channels, positions),
        ]
    } else {
        [
            kernel::x_from_y(&g, &w, geo),
            kernel::weight_from(&x, &g, geo),
            kernel::bias_from(&g, n, channels, positions),
        ]
    })
}

/// The gradients as tensors of their operands' shapes, for the operands that need them.
/// The input's and weight's gradients come in the convolution's memory format
/// (channels_last when the input or the weight suggests it), the bias's dense. `buffers`:
/// the kernel's scratch after the input's gradient and after the weight's
/// ([`conv_memory::backward_buffers`]).
fn finish<T: Copy>(
    ev: &mut Evaluator,
    b: &Backward,
    grads: [Vec<T>; 3],
    (dtype, format): (DType, MemoryFormat),
    out: &mut [Option<Value>],
    to: fn(T) -> Scalar,
    buffers: Option<(i64, i64)>,
) -> R<()> {
    for (i, values) in grads.into_iter().enumerate() {
        if !b.needs(i) {
            continue;
        }
        let shape = b.shape(i);
        let values: Vec<Scalar> = values.into_iter().map(to).collect();
        let format = if i < 2 {
            format
        } else {
            MemoryFormat::Contiguous
        };
        let t = host_tensor(ev, &shape, format, dtype, &values, "backward")?;
        out[i] = Some(Value::tensor(t, "backward", None));
        match (i, buffers) {
            (0, Some((after_input, _))) => ev.note_kernel_events(&[after_input]),
            (1, Some((_, after_weight))) if !b.needs(2) => ev.note_kernel_events(&[after_weight]),
            (2, Some((_, after_weight))) if b.needs(1) => ev.note_kernel_events(&[after_weight]),
            _ => {}
        }
    }
    Ok(())
}
