//! The buffers PyTorch's CPU convolution allocates inside itself (what the allocator sees,
//! measured with `torch.profiler` on an AVX-512 box; `/tmp/team/alloc_rules.md` §5b): a
//! float32 2-d convolution runs oneDNN (`mkldnn_convolution`), which reorders the weight
//! (and the input, the bias) into blocks of 16 channels and writes a blocked output before
//! copying it to the plain result; the slow path (one small image) unfolds the input into
//! columns first.

use crate::core::tensor::DType;
use crate::interp::torch::nn::conv::Params;
use crate::interp::Evaluator;

/// `c` rounded up to oneDNN's channel block.
fn up16(c: i64) -> i64 {
    (c + 15) / 16 * 16
}

/// The buffers of one forward convolution: the events before the result is allocated
/// (`+n` allocated, `-n` freed) and the bytes still alive while it is.
struct Buffers {
    before: Vec<i64>,
    during: i64,
}

/// ATen's choice of kernel and its buffers for a float32, non-transposed 2-d (or 1-d)
/// convolution of an input `x` [N, Cin, H, W] (contiguous) by `w` [Cout, Cin/groups, kh, kw]
/// into `out`.
fn buffers(x: &[i64], w: &[i64], out: &[i64], bias: bool, p: &Params) -> Option<Buffers> {
    // A 1-d convolution runs as a 2-d one of height 1.
    let four = |s: &[i64]| -> Option<[i64; 4]> {
        match *s {
            [a, b, c] => Some([a, b, 1, c]),
            [a, b, c, d] => Some([a, b, c, d]),
            _ => None,
        }
    };
    let [n, cin, h, wd] = four(x)?;
    let [cout, _, kh, kw] = four(w)?;
    let [_, _, ho, wo] = four(out)?;
    let f = 4;
    // `_use_mkldnn` (CPU, float): grouped, a kernel larger than 3x3, a batch, or a large image.
    let mkldnn = p.groups > 1 || (kh > 3 && kw > 3) || n > 1 || n * cin * h * wd > 20480;
    if !mkldnn {
        let one_by_one = kh == 1
            && kw == 1
            && p.stride.iter().all(|&s| s == 1)
            && p.pad.iter().chain(&p.pad_after).all(|&q| q == 0);
        let columns = if one_by_one {
            0
        } else {
            cin * kh * kw * ho * wo * f
        };
        return Some(Buffers {
            before: vec![columns],
            during: columns,
        });
    }
    let depthwise = p.groups > 1 && p.groups == cin;
    let grouped = p.groups > 1 && !depthwise;
    let reorder_in = cin % 16 == 0 || (kh == 1 && kw == 1) || depthwise;
    let bias_buf = if bias && cout % 16 != 0 {
        4 * up16(cout) + 128
    } else {
        0
    };
    // (Grouped, not depthwise: the input copied without padding; measured with 2 groups.)
    let input = if grouped {
        n * cin * h * wd * f
    } else if reorder_in {
        n * up16(cin) * h * wd * f
    } else {
        0
    };
    let cin_w = if reorder_in && p.groups == 1 {
        up16(cin)
    } else {
        cin / p.groups.max(1)
    };
    let weight = up16(cout) * cin_w * kh * kw * f;
    let blocked = n * up16(cout) * ho * wo * f;
    Some(Buffers {
        before: vec![bias_buf, input, weight, blocked],
        during: blocked,
    })
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
    if dtype != DType::Float32 || p.transposed {
        return;
    }
    if let Some(b) = buffers(x, w, out, bias, p) {
        ev.note_kernel_events(&b.before);
        ev.note_transient(b.during as u64);
    }
}

/// Ends the buffers [`begin`] noted (the result was allocated).
pub(crate) fn end(ev: &mut Evaluator) {
    ev.end_transient();
}
