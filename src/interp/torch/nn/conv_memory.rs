//! The buffers PyTorch's CPU convolution allocates inside itself (what the allocator sees,
//! measured with `torch.profiler` on an AVX-512 box, the 3-d and transposed ones on an AVX2 box; `/tmp/team/alloc_rules.md` §5b): a
//! float32 convolution (1-d, 2-d or 3-d) runs oneDNN (`mkldnn_convolution`), which reorders the weight
//! (and the input, the bias) into blocks of 16 channels and writes a blocked output before
//! copying it to the plain result; the slow path (one small image) unfolds the input into
//! columns first.

use crate::core::tensor::DType;
use crate::interp::torch::nn::conv::Params;
use crate::interp::Evaluator;

/// `c` rounded up to oneDNN's channel block: 16 floats on an AVX-512 machine (where the
/// `memory` set was recorded; an AVX2 machine blocks by 8, which gives the same sizes when
/// the channels are multiples of 16, as the `pools_norms` set's are).
fn up16(c: i64) -> i64 {
    (c + 15) / 16 * 16
}

/// The buffers of one forward convolution: the events before the result is allocated
/// (`+n` allocated, `-n` freed) and the bytes still alive while it is.
struct Buffers {
    before: Vec<i64>,
    during: i64,
}

/// `[n, c, d, h, w]` of an input or weight of a 1-d, 2-d or 3-d convolution (the missing
/// leading spatial dimensions are 1).
fn five(s: &[i64]) -> Option<[i64; 5]> {
    match *s {
        [a, b, c] => Some([a, b, 1, 1, c]),
        [a, b, c, d] => Some([a, b, 1, c, d]),
        [a, b, c, d, e] => Some([a, b, c, d, e]),
        _ => None,
    }
}

/// ATen's `ConvParams::use_mkldnn` for a float32 input `x` and weight `w` (batched shapes):
/// grouped, a kernel larger than 3x3 in its last two dimensions, a batch, or a large image
/// (`x.size(0) * x.size(1) * x.size(2) * x.size(3) > 20480`, the first four sizes of the
/// 4-d or 5-d input ATen sees).
pub(crate) fn uses_mkldnn(x: &[i64], w: &[i64], p: &Params) -> bool {
    let (Some(xs), Some(ws)) = (five(x), five(w)) else {
        return false;
    };
    let (kh, kw) = (ws[3], ws[4]);
    let first_four = if x.len() == 5 {
        xs[0] * xs[1] * xs[2] * xs[3]
    } else {
        xs[0] * xs[1] * xs[3] * xs[4]
    };
    p.groups > 1 || (kh > 3 && kw > 3) || xs[0] > 1 || first_four > 20480
}

/// ATen's choice of kernel and its buffers for a float32, non-transposed convolution of an
/// input `x` [N, Cin, (D,) (H,) W] (contiguous) by `w` [Cout, Cin/groups, (kd,) (kh,) kw]
/// into `out`.
fn buffers(x: &[i64], w: &[i64], out: &[i64], bias: bool, p: &Params) -> Option<Buffers> {
    let [n, cin, d, h, wd] = five(x)?;
    let [cout, _, kd, kh, kw] = five(w)?;
    let [_, _, od, ho, wo] = five(out)?;
    let f = 4;
    if !uses_mkldnn(x, w, p) {
        let one_by_one = kd == 1
            && kh == 1
            && kw == 1
            && p.stride.iter().all(|&s| s == 1)
            && p.pad.iter().chain(&p.pad_after).all(|&q| q == 0);
        let columns = if one_by_one {
            0
        } else {
            cin * kd * kh * kw * od * ho * wo * f
        };
        return Some(Buffers {
            before: vec![columns],
            during: columns,
        });
    }
    let depthwise = p.groups > 1 && p.groups == cin;
    let grouped = p.groups > 1 && !depthwise;
    let one_by_one = kd == 1 && kh == 1 && kw == 1;
    // A strided 1x1 kernel over an input its strides divide reads it through a
    // "reduce to unit stride" buffer: one subsampled image per thread (two threads on the
    // machines measured), 64 bytes apart; over any other input it takes the plain kernel.
    let strided = p.stride.iter().any(|&s| s > 1);
    let spatial = [d, h, wd];
    let divides = spatial[3 - p.stride.len().min(3)..]
        .iter()
        .zip(&p.stride)
        .all(|(&size, &s)| s > 0 && size % s == 0);
    let unit_stride_buffer = if one_by_one && strided && divides && !grouped {
        2 * (up16(cin) * od * ho * wo * f + 64)
    } else {
        0
    };
    let reorder_in = cin % 16 == 0 || (one_by_one && (!strided || divides)) || depthwise;
    let bias_buf = if bias && cout % 16 != 0 {
        4 * up16(cout) + 128
    } else {
        0
    } + unit_stride_buffer;
    // (Grouped, not depthwise: the input copied without padding; measured with 2 groups.)
    let input = if grouped {
        n * cin * d * h * wd * f
    } else if reorder_in {
        n * up16(cin) * d * h * wd * f
    } else {
        0
    };
    let cin_w = if reorder_in && p.groups == 1 {
        up16(cin)
    } else {
        cin / p.groups.max(1)
    };
    let weight = up16(cout) * cin_w * kd * kh * kw * f;
    let blocked = n * up16(cout) * od * ho * wo * f;
    Some(Buffers {
        before: vec![bias_buf, input, weight, blocked],
        during: blocked,
    })
}

/// The buffers of a float32 transposed convolution of `x` [N, Cin, ...] by `w` [Cin,
/// Cout/groups, ...] into `out`. The slow kernels (one small image) unfold into columns
/// `[Cout * k, input positions]` (the 3-d one after an input-sized buffer, with a row of
/// ones for the bias); oneDNN, when a stride is above 1, takes a scratch buffer (its size
/// as measured: 98480 bytes, 61616 when the output's last size is even), a plain copy of
/// the input, the weight with Cout padded to the block and the output, then allocates the result
/// and a clone of it; with all strides 1 it blocks the input, weight and output as a
/// convolution does.
fn transposed_buffers(
    x: &[i64],
    w: &[i64],
    out: &[i64],
    bias: bool,
    p: &Params,
) -> Option<Buffers> {
    let [n, cin, d, h, wd] = five(x)?;
    let [_, cout_g, kd, kh, kw] = five(w)?;
    let [_, _, od, ho, wo] = five(out)?;
    let cout = cout_g * p.groups.max(1);
    let f = 4;
    let (in_positions, out_positions, k) = (d * h * wd, od * ho * wo, kd * kh * kw);
    if !uses_mkldnn(x, w, p) {
        let columns = cout * k * in_positions * f;
        let during = if x.len() == 5 {
            let ones = if bias { out_positions * f } else { 0 };
            (n * cin * in_positions * f).max(columns + ones)
        } else {
            columns
        };
        return Some(Buffers {
            before: vec![],
            during,
        });
    }
    if p.stride.iter().any(|&s| s > 1) {
        let scratch = if wo % 2 == 0 { 61616 } else { 98480 };
        let output = n * cout * out_positions * f;
        return Some(Buffers {
            before: vec![
                scratch,
                n * cin * in_positions * f,
                up16(cout) * cin * k * f,
                output,
            ],
            during: 2 * output,
        });
    }
    let blocked = n * up16(cout) * out_positions * f;
    Some(Buffers {
        before: vec![
            n * up16(cin) * in_positions * f,
            up16(cout) * up16(cin) * k * f,
            blocked,
        ],
        during: blocked,
    })
}

/// The buffers of a float32 convolution's backward, as measured: `(after the input's
/// gradient, after the weight's and bias's)`, the bytes each part holds at its most on top
/// of the gradients already allocated. On ATen's slow kernels (one small image) each part
/// works on a contiguous copy of the output's gradient `g` when `g` is not contiguous
/// (`clone`), and unfolds into columns: the convolution's input `[Cin * k, output
/// positions]` (not for the 2-d input gradient), the transposed one's output `[Cout * k,
/// input positions]`. On oneDNN see [`mkldnn_backward_buffers`]. `None` for another dtype
/// or a transposed or grouped oneDNN convolution (not modelled).
pub(crate) fn backward_buffers(
    x: &[i64],
    w: &[i64],
    g: &[i64],
    (dtype, clone, bias): (DType, bool, bool),
    p: &Params,
) -> Option<(i64, i64)> {
    if dtype != DType::Float32 {
        return None;
    }
    if uses_mkldnn(x, w, p) {
        if p.transposed || p.groups > 1 {
            return None;
        }
        return mkldnn_backward_buffers(x, w, g, bias);
    }
    let [n, cin, d, h, wd] = five(x)?;
    let [_, _, kd, kh, kw] = five(w)?;
    let [_, gc, od, ho, wo] = five(g)?;
    let f = 4;
    let k = kd * kh * kw;
    let clone = if clone { n * gc * od * ho * wo * f } else { 0 };
    if p.transposed {
        // (g is the transposed convolution's output: its channels are Cout.)
        let columns = gc * k * d * h * wd * f;
        return Some((clone + columns, clone + columns));
    }
    // (A 1x1 kernel with stride 1 and no padding reads the input as it is.)
    let one_by_one = k == 1
        && p.stride.iter().all(|&s| s == 1)
        && p.pad.iter().chain(&p.pad_after).all(|&q| q == 0);
    let columns = if one_by_one {
        0
    } else {
        cin * k * od * ho * wo * f
    };
    let first = if x.len() == 5 { clone + columns } else { clone };
    Some((first, clone + columns))
}

/// Notes the convolution's buffers before its result is allocated; the result's allocation
/// then sees what is still alive ([`end`] ends them).
pub(crate) fn begin(
    ev: &mut Evaluator,
    x: &[i64],
    w: &[i64],
    out: &[i64],
    dtype: DType,
    bias: bool,
    p: &Params,
) {
    // `padding='same'` with an even kernel: ATen pads a copy of the input on the side that
    // needs more (`constant_pad_nd`) and convolves it with the symmetric padding.
    let (x, p, padded) = if p.pad != p.pad_after {
        let mut shape = x.to_vec();
        for (i, (b, a)) in p.pad.iter().zip(&p.pad_after).enumerate() {
            if let Some(d) = shape.get_mut(i + 2) {
                *d += a - b;
            }
        }
        let bytes = shape.iter().product::<i64>() * dtype.item_size() as i64;
        let symmetric = Params {
            pad_after: p.pad.clone(),
            ..p.clone()
        };
        (shape, symmetric, bytes)
    } else {
        (x.to_vec(), p.clone(), 0)
    };
    let buffers = if dtype != DType::Float32 {
        None
    } else if p.transposed {
        transposed_buffers(&x, w, out, bias, &p)
    } else {
        buffers(&x, w, out, bias, &p)
    };
    let b = buffers.unwrap_or(Buffers {
        before: vec![],
        during: 0,
    });
    let mut before = vec![padded];
    before.extend(b.before);
    ev.note_kernel_events(&before);
    ev.note_transient((padded + b.during) as u64);
}

/// Ends the buffers [`begin`] noted (the result was allocated).
pub(crate) fn end(ev: &mut Evaluator) {
    ev.end_transient();
}

/// A non-transposed, ungrouped float32 convolution's backward on oneDNN (measured with
/// `torch.profiler` at 11 shapes, `Cin` 1 to 16, kernels 1 to 5, two threads), as
/// [`backward_buffers`] gives it. The input's gradient: the output's gradient `g` and the
/// weight reordered into blocks of 16 channels, the gradient computed blocked and copied out
/// (the blocked one freed after the copy). The weight's: `g` blocked again (by 8 channels,
/// or 16 for a 1x1 kernel or an input of fewer than 4 channels), the input blocked likewise
/// (not under 4 channels), the weight's gradient blocked, the bias's gradient; then the
/// plain weight gradient beside the blocked one and a second bias gradient. (oneDNN's
/// reduction scratch for the weight's gradient, which depends on its threads, is left out.)
fn mkldnn_backward_buffers(x: &[i64], w: &[i64], g: &[i64], bias: bool) -> Option<(i64, i64)> {
    let [n, cin, d, h, wd] = five(x)?;
    let [cout, _, kd, kh, kw] = five(w)?;
    let [_, _, od, ho, wo] = five(g)?;
    let f = 4;
    let (k, in_positions, out_positions) = (kd * kh * kw, d * h * wd, od * ho * wo);
    let input_grad = n * cin * in_positions * f;
    let input_part = {
        let g_blocked = n * up16(cout) * out_positions * f;
        let w_blocked = up16(cout) * up16(cin) * k * f;
        let grad_blocked = n * up16(cin) * in_positions * f;
        (g_blocked + w_blocked + grad_blocked - input_grad).max(grad_blocked)
    };
    let up = |c: i64| {
        if k == 1 || cin < 4 {
            up16(c)
        } else {
            (c + 7) / 8 * 8
        }
    };
    let weight_grad = cout * cin * k * f;
    let bias_grad = if bias { cout * f } else { 0 };
    let weight_part = {
        let g_blocked = n * up(cout) * out_positions * f;
        let (input_blocked, cin_blocked) = if cin < 4 {
            (0, cin)
        } else {
            (n * up(cin) * in_positions * f, up(cin))
        };
        let grad_blocked = up(cout) * cin_blocked * k * f;
        let computing = g_blocked + input_blocked + grad_blocked + bias_grad;
        let copying = grad_blocked + 2 * bias_grad + weight_grad;
        (computing.max(copying) - weight_grad - bias_grad).max(0)
    };
    Some((input_part, weight_part))
}
