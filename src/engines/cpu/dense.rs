//! The densest case of a binary op, straight from bytes to bytes: float32 operands and
//! destination, all contiguous with one shape (or numbers), computed in float32's opmath
//! (`f64` arithmetic rounded to `f32` once, exactly as [`super::apply_binary`] computes
//! and `DType::write` stores it), with no `f64` copy of the operands. An operand in the
//! destination's storage is allowed only at the destination's own elements (an in-place
//! `w -= g`), where reading each element before writing it is what reading all first gives.

use crate::core::tensor::{DType, Tensor};
use crate::engines::cpu::typed::Storages;
use crate::engines::{BinaryOp, Operand};

/// One operand: a number in float32's precision, or a run of float32 bytes.
enum Input<'a> {
    Number(f64),
    Run(&'a [u8]),
    /// The destination's own elements.
    Own,
}

#[inline(always)]
fn at(bytes: &[u8], i: usize) -> f64 {
    f64::from(f32::from_le_bytes([
        bytes[4 * i],
        bytes[4 * i + 1],
        bytes[4 * i + 2],
        bytes[4 * i + 3],
    ]))
}

/// `out[i] = f(x[i], y[i])` rounded to float32, over `out`'s elements.
#[inline(always)]
fn run(out: &mut [u8], x: &Input, y: &Input, f: impl Fn(f64, f64) -> f64) {
    let value = |input: &Input, own: f64, i: usize| match input {
        Input::Number(v) => *v,
        Input::Run(bytes) => at(bytes, i),
        Input::Own => own,
    };
    for (i, o) in out.chunks_exact_mut(4).enumerate() {
        let own = f64::from(f32::from_le_bytes([o[0], o[1], o[2], o[3]]));
        let r = f(value(x, own, i), value(y, own, i));
        o.copy_from_slice(&(r as f32).to_le_bytes());
    }
}

/// An operand seen as float32 elements, where its bytes are aligned for it.
enum Lanes<'a> {
    Number(f32),
    Run(&'a [f32]),
    Own,
}

fn lanes<'a>(input: &'a Input) -> Option<Lanes<'a>> {
    Some(match input {
        // A number "in float32's precision" is a float32 value.
        Input::Number(v) => Lanes::Number(*v as f32),
        Input::Run(bytes) => Lanes::Run(bytemuck::try_cast_slice(bytes).ok()?),
        Input::Own => Lanes::Own,
    })
}

/// [`run`] on aligned float32 lanes, each case its own loop (which the compiler vectorizes).
/// `+ - * /` of two float32 values computed in float32 are the float64 results rounded once
/// (float64 has more than twice float32's precision), so the values are [`run`]'s.
#[inline(always)]
fn run_lanes(out: &mut [f32], x: Lanes, y: Lanes, f: impl Fn(f32, f32) -> f32 + Copy) {
    match (x, y) {
        (Lanes::Run(a), Lanes::Run(b)) => {
            for ((o, &p), &q) in out.iter_mut().zip(a).zip(b) {
                *o = f(p, q);
            }
        }
        (Lanes::Run(a), Lanes::Number(q)) => {
            for (o, &p) in out.iter_mut().zip(a) {
                *o = f(p, q);
            }
        }
        (Lanes::Number(p), Lanes::Run(b)) => {
            for (o, &q) in out.iter_mut().zip(b) {
                *o = f(p, q);
            }
        }
        (Lanes::Own, Lanes::Run(b)) => {
            for (o, &q) in out.iter_mut().zip(b) {
                *o = f(*o, q);
            }
        }
        (Lanes::Run(a), Lanes::Own) => {
            for (o, &p) in out.iter_mut().zip(a) {
                *o = f(p, *o);
            }
        }
        (Lanes::Own, Lanes::Number(q)) => {
            for o in out.iter_mut() {
                *o = f(*o, q);
            }
        }
        (Lanes::Number(p), Lanes::Own) => {
            for o in out.iter_mut() {
                *o = f(p, *o);
            }
        }
        (Lanes::Own, Lanes::Own) => {
            for o in out.iter_mut() {
                *o = f(*o, *o);
            }
        }
        (Lanes::Number(p), Lanes::Number(q)) => out.fill(f(p, q)),
    }
}

/// `out = x op y`: on float32 lanes when every run is aligned, else byte by byte.
fn compute_run(op: BinaryOp, out: &mut [u8], x: &Input, y: &Input) {
    if let (Some(a), Some(b), Ok(o)) = (lanes(x), lanes(y), bytemuck::try_cast_slice_mut(out)) {
        match op {
            BinaryOp::Add => run_lanes(o, a, b, |p, q| p + q),
            BinaryOp::Sub => run_lanes(o, a, b, |p, q| p - q),
            BinaryOp::Mul => run_lanes(o, a, b, |p, q| p * q),
            _ => run_lanes(o, a, b, |p, q| p / q),
        }
        return;
    }
    match op {
        BinaryOp::Add => run(out, x, y, |p, q| p + q),
        BinaryOp::Sub => run(out, x, y, |p, q| p - q),
        BinaryOp::Mul => run(out, x, y, |p, q| p * q),
        _ => run(out, x, y, |p, q| p / q),
    }
}

/// `dst = a op b` on the dense float32 case; `false` (nothing written) for any other.
pub(super) fn binary(
    storages: &mut Storages,
    op: BinaryOp,
    dst: &Tensor,
    a: &Operand,
    b: &Operand,
    compute: DType,
) -> bool {
    if compute != DType::Float32
        || dst.dtype != DType::Float32
        || !dst.layout.is_contiguous()
        || dst.layout.offset < 0
        || !matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
        )
    {
        return false;
    }
    let n = dst.layout.numel().max(0) as usize;
    let first = dst.layout.offset as usize;
    // Where each operand's run starts in its storage (`None`: a number).
    let start = |o: &Operand| -> Option<Option<usize>> {
        match o {
            Operand::Scalar(_) => Some(None),
            Operand::Tensor(t) => {
                let fits = t.dtype == DType::Float32
                    && t.layout.is_contiguous()
                    && t.layout.numel() == dst.layout.numel()
                    && t.layout.offset >= 0
                    && (t.storage != dst.storage || t.layout.offset == dst.layout.offset);
                fits.then_some(Some(t.layout.offset as usize))
            }
        }
    };
    let (Some(sa), Some(sb)) = (start(a), start(b)) else {
        return false;
    };
    let Some(mut out) = storages.remove(&dst.storage) else {
        return false;
    };
    let written = {
        let input = |o: &Operand, s: Option<usize>| -> Option<Input> {
            match (o, s) {
                (Operand::Scalar(v), _) => Some(Input::Number(
                    super::to_compute(*v, DType::Float32).to_f64(),
                )),
                (Operand::Tensor(t), Some(_)) if t.storage == dst.storage => Some(Input::Own),
                (Operand::Tensor(t), Some(s)) => storages
                    .get(&t.storage)
                    .and_then(|bytes| bytes.get(4 * s..4 * (s + n)))
                    .map(Input::Run),
                _ => None,
            }
        };
        match (
            input(a, sa),
            input(b, sb),
            out.get_mut(4 * first..4 * (first + n)),
        ) {
            (Some(x), Some(y), Some(out)) => {
                compute_run(op, out, &x, &y);
                true
            }
            _ => false,
        }
    };
    storages.insert(dst.storage, out);
    written
}
