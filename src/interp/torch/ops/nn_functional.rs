//! The tensor ops of `torch.nn.functional` that are not activations: `one_hot`, `pad`
//! (constant mode), `normalize` and `unfold` (im2col). They are reached through `F.` only (see
//! `eval/functional.rs`), not as `torch.` functions.

use crate::core::tensor::layout::{list_str, numel_of, wrap_dim};
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::linalg::vector_norm as reduce_norm;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `F.one_hot(tensor, num_classes=-1)`: int64, the input's shape plus one dim.
    pub(crate) fn one_hot(&mut self, t: &Tensor, num_classes: i64) -> R<Value> {
        if t.dtype != DType::Int64 {
            return Err(ScriptError::Runtime(
                "one_hot is only applicable to index tensor of type LongTensor.".into(),
            ));
        }
        let values: Vec<i64> = self
            .engine
            .values(t)
            .into_iter()
            .map(|v| v.to_f64() as i64)
            .collect();
        let classes = if values.is_empty() {
            if num_classes == -1 {
                return Err(ScriptError::Runtime(
                    "Can not infer total number of classes from empty tensor.".into(),
                ));
            }
            num_classes
        } else {
            let min = values.iter().copied().min().unwrap_or(0);
            let max = values.iter().copied().max().unwrap_or(0);
            if min < 0 {
                return Err(ScriptError::Runtime(
                    "Class values must be non-negative.".into(),
                ));
            }
            if num_classes == -1 {
                max + 1
            } else if max >= num_classes {
                return Err(ScriptError::Runtime(
                    "Class values must be smaller than num_classes.".into(),
                ));
            } else {
                num_classes
            }
        };
        let mut shape = t.shape().to_vec();
        shape.push(classes);
        self.check_shape(&shape)?;
        self.check_work(numel_of(&shape), "one_hot")?;
        let mut out = vec![Scalar::Int(0); numel_of(&shape).max(0) as usize];
        for (i, &v) in values.iter().enumerate() {
            if let Some(slot) = out.get_mut(i * classes as usize + v as usize) {
                *slot = Scalar::Int(1);
            }
        }
        let t = self.tensor_from_values(&shape, DType::Int64, &out, "one_hot")?;
        Ok(Value::tensor(t, "one_hot", None))
    }

    /// `F.pad(input, pad, mode='constant', value=None)`: `constant_pad_nd`, a new tensor in
    /// the input's suggested memory format (negative pads crop).
    pub(crate) fn pad(
        &mut self,
        t: &Tensor,
        pad: &[i64],
        mode: &str,
        value: Option<Scalar>,
    ) -> R<Value> {
        if !pad.len().is_multiple_of(2) {
            return Err(ScriptError::Runtime(
                "Padding length must be divisible by 2".into(),
            ));
        }
        if pad.len() / 2 > t.ndim() {
            return Err(ScriptError::Runtime(format!(
                "Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {}",
                pad.len(),
                t.ndim()
            )));
        }
        match mode {
            "constant" => {}
            "reflect" | "replicate" | "circular" => {
                return self.pad_non_constant(t, pad, mode, value)
            }
            other => {
                return Err(ScriptError::NotImplemented(format!(
                    "Unrecognised padding mode {other}"
                )))
            }
        }
        let n = t.ndim();
        let mut shape = t.shape().to_vec();
        let mut left = vec![0i64; n];
        for (i, pair) in pad.chunks(2).enumerate() {
            let d = n - 1 - i;
            let new = shape[d].saturating_add(pair[0]).saturating_add(pair[1]);
            if new < 0 {
                return Err(ScriptError::Runtime(
                    "narrow(): length must be non-negative.".into(),
                ));
            }
            shape[d] = new;
            left[d] = pair[0];
        }
        self.check_work(numel_of(&shape), "pad")?;
        let fill = t.dtype.round(value.unwrap_or(Scalar::Int(0)));
        let total = numel_of(&shape).max(0) as usize;
        let mut out = vec![fill; total];
        let values = self.engine.values(t);
        let out_layout = Layout::contiguous(&shape);
        let mut index = vec![0i64; n];
        for v in values {
            let target: Option<Vec<i64>> = index
                .iter()
                .zip(&left)
                .zip(&shape)
                .map(|((&i, &l), &s)| (0..s).contains(&(i + l)).then_some(i + l))
                .collect();
            if let Some(target) = target {
                if let Some(slot) = usize::try_from(out_layout.element_offset(&target))
                    .ok()
                    .and_then(|at| out.get_mut(at))
                {
                    *slot = v;
                }
            }
            for d in (0..n).rev() {
                index[d] += 1;
                if index[d] < t.shape()[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        self.pad_result(t, &shape, &out)
    }

    /// A padded result of `shape` from row-major `values`, in the input's suggested memory
    /// format (channels-last stays channels-last).
    fn pad_result(&mut self, t: &Tensor, shape: &[i64], values: &[Scalar]) -> R<Value> {
        let contiguous = self.tensor_from_values(shape, t.dtype, values, "pad")?;
        let channels_last = t.ndim() == 4
            && t.layout.is_contiguous_as(MemoryFormat::ChannelsLast)
            && !t.layout.is_contiguous_as(MemoryFormat::Contiguous);
        if channels_last {
            let cl = self.convert(&contiguous, t.dtype, MemoryFormat::ChannelsLast, "pad")?;
            return Ok(Value::tensor(cl, "pad", None));
        }
        Ok(Value::tensor(contiguous, "pad", None))
    }

    /// `F.pad` in `reflect`, `replicate` or `circular` mode: each output element reads the
    /// input element its mode maps it to; a new contiguous tensor.
    fn pad_non_constant(
        &mut self,
        t: &Tensor,
        pad: &[i64],
        mode: &str,
        value: Option<Scalar>,
    ) -> R<Value> {
        if value.is_some_and(|v| v.to_f64() != 0.0) {
            return Err(ScriptError::Runtime(format!(
                "Padding mode \"{mode}\" doesn't take in value argument"
            )));
        }
        let n = t.ndim();
        let k = pad.len();
        if !matches!((k, n), (2, 2 | 3) | (4, 3 | 4) | (6, 4 | 5)) {
            return Err(ScriptError::NotImplemented(format!(
                "Padding size {k} is not supported for {n}D input tensor."
            )));
        }
        let mut shape = t.shape().to_vec();
        let mut left = vec![0i64; n];
        for (i, pair) in pad.chunks(2).enumerate() {
            let d = n - 1 - i;
            let size = shape[d];
            if mode == "reflect" && (pair[0] >= size || pair[1] >= size) {
                return Err(ScriptError::Runtime(format!(
                    "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({}, {}) at dimension {d} of input {}",
                    pair[0],
                    pair[1],
                    list_str(t.shape())
                )));
            }
            if mode == "circular" && (pair[0] > size || pair[1] > size) {
                return Err(ScriptError::Runtime(
                    "Padding value causes wrapping around more than once.".into(),
                ));
            }
            shape[d] = size.saturating_add(pair[0]).saturating_add(pair[1]);
            if shape[d] < 0 || size == 0 {
                return Err(ScriptError::Runtime(format!(
                    "input tensor must have a non-empty dimension {d} to pad, and the padded size must be positive"
                )));
            }
            left[d] = pair[0];
        }
        self.check_work(numel_of(&shape), "pad")?;
        let values = self.engine.values(t);
        let strides = crate::core::tensor::layout::contiguous_strides(t.shape());
        let total = numel_of(&shape).max(0) as usize;
        let mut out = Vec::with_capacity(total);
        let mut index = vec![0i64; n];
        for _ in 0..total {
            let mut at = 0i64;
            for d in 0..n {
                let size = t.shape()[d];
                let i = index[d] - left[d];
                let src = match mode {
                    "reflect" if i < 0 => -i,
                    "reflect" if i >= size => 2 * (size - 1) - i,
                    "replicate" => i.clamp(0, size - 1),
                    "circular" => i.rem_euclid(size),
                    _ => i,
                };
                at += src * strides[d];
            }
            out.push(values.get(at as usize).copied().unwrap_or(Scalar::Int(0)));
            for d in (0..n).rev() {
                index[d] += 1;
                if index[d] < shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        self.pad_result(t, &shape, &out)
    }

    /// `F.normalize(input, p, dim, eps)`: `input / input.norm(p, dim, keepdim=True)
    /// .clamp_min(eps)`, laid out as the division lays it out.
    pub(crate) fn normalize(&mut self, t: &Tensor, p: f64, dim: i64, eps: f64) -> R<Value> {
        let d = wrap_dim(dim, t.ndim()).map_err(ScriptError::Index)?;
        if !t.dtype.is_floating() {
            return Err(ScriptError::NotImplemented(format!(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                t.dtype.scalar_type_name()
            )));
        }
        let values: Vec<f64> = self.engine.values(t).iter().map(|v| v.to_f64()).collect();
        let shape = t.shape();
        let (size, inner) = if shape.is_empty() {
            (1, 1)
        } else {
            (
                shape[d].max(0) as usize,
                shape[d + 1..].iter().product::<i64>().max(0) as usize,
            )
        };
        let mut out = vec![Scalar::Float(0.0); values.len()];
        let block = size * inner;
        if block > 0 {
            for start in (0..values.len()).step_by(block) {
                for i in 0..inner {
                    let at = |k: usize| start + k * inner + i;
                    let group: Vec<f64> = (0..size).map(|k| values[at(k)]).collect();
                    let norm = t
                        .dtype
                        .round(Scalar::Float(reduce_norm(&group, p)))
                        .to_f64()
                        .max(eps);
                    for k in 0..size {
                        out[at(k)] = t.dtype.round(Scalar::Float(values[at(k)] / norm));
                    }
                }
            }
        }
        // ATen: the norm (keepdim), its clamp_min (the norm freed after it), then the
        // division's output while the clamped norm lives.
        let stat = (values.len() / size.max(1) * t.dtype.item_size()) as i64;
        self.note_kernel_events(&[stat, stat, -stat]);
        self.note_transient(stat as u64);
        let result = self.host_result(t, t.dtype, &out, "normalize")?;
        self.end_transient();
        Ok(Value::tensor(result, "normalize", None))
    }
}

impl Evaluator {
    /// `F.unfold(input, kernel_size, dilation, padding, stride)` (ATen's `im2col`): every
    /// sliding block of a `[N, C, H, W]` (or `[C, H, W]`) input as a column, in a new
    /// contiguous `[N, C·kh·kw, L]` tensor (zeros where a block reaches into the padding).
    /// Each pair is (height, width).
    pub(crate) fn im2col(
        &mut self,
        t: &Tensor,
        kernel: [i64; 2],
        dilation: [i64; 2],
        padding: [i64; 2],
        stride: [i64; 2],
    ) -> R<Value> {
        let out = self.im2col_checked(t, kernel, dilation, padding, stride);
        if out.is_err() {
            // The kernel's `empty_like(input)` was made before its checks refused.
            self.note_transient((t.numel().max(0) * t.dtype.item_size() as i64) as u64);
        }
        out
    }

    fn im2col_checked(
        &mut self,
        t: &Tensor,
        kernel: [i64; 2],
        dilation: [i64; 2],
        padding: [i64; 2],
        stride: [i64; 2],
    ) -> R<Value> {
        // ATen's `im2col_shape_check`, in its order: (values, smallest allowed, message, names).
        let checks = [
            (
                kernel,
                1,
                "kernel size should be greater than zero",
                "kernel_height",
                "kernel_width",
            ),
            (
                stride,
                1,
                "stride should be greater than zero",
                "stride_height",
                "stride_width",
            ),
            (
                padding,
                0,
                "padding should be non-negative",
                "pad_height",
                "pad_width",
            ),
            (
                dilation,
                1,
                "dilation should be greater than zero",
                "dilation_height",
                "dilation_width",
            ),
        ];
        for (v, least, what, a, b) in checks {
            if v.iter().any(|&x| x < least) {
                return Err(ScriptError::Runtime(format!(
                    "{what}, but got {a}: {} {b}: {}",
                    v[0], v[1]
                )));
            }
        }
        let ndim = t.ndim() as i64;
        if ndim < 3 {
            return Err(ScriptError::Index(format!(
                "Dimension out of range (expected to be in range of [{}, {}], but got 2)",
                -ndim.max(1),
                ndim.max(1) - 1
            )));
        }
        if ndim > 4 || t.shape()[(ndim - 3) as usize..].contains(&0) {
            return Err(ScriptError::Runtime(format!(
                "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: {}",
                list_str(t.shape())
            )));
        }
        if !(t.dtype.is_floating() || t.dtype == DType::Bool) {
            return Err(ScriptError::NotImplemented(format!(
                "\"im2col_out_cpu\" not implemented for '{}'",
                t.dtype.scalar_type_name()
            )));
        }
        let batched = ndim == 4;
        let s = t.shape();
        let (n, c, h, w) = if batched {
            (s[0], s[1], s[2], s[3])
        } else {
            (1, s[0], s[1], s[2])
        };
        let out_len = |size: i64, i: usize| {
            (size + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1).div_euclid(stride[i]) + 1
        };
        let (oh, ow) = (out_len(h, 0), out_len(w, 1));
        if oh < 1 || ow < 1 {
            return Err(ScriptError::Runtime(format!(
                "Given input with spatial size ({h}, {w}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), calculated shape of the array of sliding blocks as ({oh}, {ow}), but its components must be at least one.",
                kernel[0], kernel[1], dilation[0], dilation[1], padding[0], padding[1]
            )));
        }
        let rows = c * kernel[0] * kernel[1];
        let cols = oh * ow;
        self.check_work(n * rows * cols, "unfold")?;
        let values = self.engine.values(t);
        let zero = if t.dtype == DType::Bool {
            Scalar::Bool(false)
        } else {
            Scalar::Float(0.0)
        };
        let mut out = Vec::with_capacity((n * rows * cols) as usize);
        for b in 0..n {
            for row in 0..rows {
                let (ch, rest) = (row / (kernel[0] * kernel[1]), row % (kernel[0] * kernel[1]));
                let (ki, kj) = (rest / kernel[1], rest % kernel[1]);
                for col in 0..cols {
                    let (y, x) = (col / ow, col % ow);
                    let iy = y * stride[0] - padding[0] + ki * dilation[0];
                    let ix = x * stride[1] - padding[1] + kj * dilation[1];
                    let inside = (0..h).contains(&iy) && (0..w).contains(&ix);
                    let at = ((b * c + ch) * h + iy) * w + ix;
                    out.push(if inside {
                        values.get(at as usize).copied().unwrap_or(zero)
                    } else {
                        zero
                    });
                }
            }
        }
        let shape: Vec<i64> = if batched {
            vec![n, rows, cols]
        } else {
            vec![rows, cols]
        };
        let result = self.resized_result(t, &shape, &out, "unfold")?;
        Ok(Value::tensor(result, "unfold", None))
    }

    /// The result of `im2col`/`col2im` as ATen makes it: `empty_like(input)`, the input made
    /// contiguous (a copy of one that is not, freed as the kernel returns), then the output
    /// `resize_`d to `shape`: its storage grows (a new one, the old freed) only when the
    /// output needs more bytes, so a smaller output keeps the input's byte count.
    pub(crate) fn resized_result(
        &mut self,
        input: &Tensor,
        shape: &[i64],
        values: &[Scalar],
        what: &str,
    ) -> R<Tensor> {
        let item = input.dtype.item_size() as i64;
        let in_bytes = input.numel().max(0) * item;
        let out_bytes = numel_of(shape).max(0) * item;
        let copy = if input.layout.is_contiguous() {
            0
        } else {
            in_bytes
        };
        if self.torch.device.meta_op || out_bytes > in_bytes {
            // `empty_like(input)` and the contiguous copy, held while the output grows.
            self.note_transient((in_bytes + copy) as u64);
            return self.tensor_from_values(shape, input.dtype, values, what);
        }
        let tmp = self.uncounted(|ev| ev.tensor_from_values(shape, input.dtype, values, what))?;
        let mut bytes = self.engine.read_storage(tmp.storage);
        bytes.resize(in_bytes as usize, 0);
        if copy > 0 {
            self.note_transient(copy as u64);
        }
        let storage = self.allocate_with(bytes, input.dtype, what)?;
        Ok(Tensor { storage, ..tmp })
    }
}

impl Evaluator {
    /// `F.fold(input, output_size, kernel_size, dilation, padding, stride)` (ATen's
    /// `col2im`): the columns of a `[N, C·kh·kw, L]` (or `[C·kh·kw, L]`) input summed back
    /// into a `[N, C, H, W]` image, in `col2im`'s loop order (float steps of the dtype).
    /// Each pair is (height, width).
    pub(crate) fn col2im(
        &mut self,
        t: &Tensor,
        output: [i64; 2],
        kernel: [i64; 2],
        dilation: [i64; 2],
        padding: [i64; 2],
        stride: [i64; 2],
    ) -> R<Value> {
        let out = self.col2im_checked(t, output, kernel, dilation, padding, stride);
        if out.is_err() {
            // The kernel's `empty_like(input)` was made before its checks refused.
            self.note_transient((t.numel().max(0) * t.dtype.item_size() as i64) as u64);
        }
        out
    }

    fn col2im_checked(
        &mut self,
        t: &Tensor,
        output: [i64; 2],
        kernel: [i64; 2],
        dilation: [i64; 2],
        padding: [i64; 2],
        stride: [i64; 2],
    ) -> R<Value> {
        let pair = |v: [i64; 2]| format!("({}, {})", v[0], v[1]);
        let checks = [
            (
                kernel,
                1,
                "kernel size should be greater than zero",
                "kernel_height",
                "kernel_width",
            ),
            (
                stride,
                1,
                "stride should be greater than zero",
                "stride_height",
                "stride_width",
            ),
            (
                dilation,
                1,
                "dilation should be greater than zero",
                "dilation_height",
                "dilation_width",
            ),
            (
                padding,
                0,
                "padding should be non-negative",
                "pad_height",
                "pad_width",
            ),
        ];
        for (v, least, what, a, b) in checks {
            if v.iter().any(|&x| x < least) {
                return Err(ScriptError::Runtime(format!(
                    "{what}, but got {a}: {} {b}: {}",
                    v[0], v[1]
                )));
            }
        }
        let s = t.shape().to_vec();
        let ok = match s.len() {
            2 => s[0] != 0 && s[1] != 0,
            3 => s[1] != 0 && s[2] != 0,
            _ => false,
        };
        if !ok {
            return Err(ScriptError::Runtime(format!(
                "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: {}",
                list_str(&s)
            )));
        }
        let batched = s.len() == 3;
        let (n, planes, length) = if batched {
            (s[0], s[1], s[2])
        } else {
            (1, s[0], s[1])
        };
        let block = kernel[0] * kernel[1];
        if planes % block != 0 {
            return Err(ScriptError::Runtime(format!(
                "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)={planes} and kernel_size={}.",
                pair(kernel)
            )));
        }
        let blocks = |size: i64, i: usize| {
            (size + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1).div_euclid(stride[i]) + 1
        };
        let (bh, bw) = (blocks(output[0], 0), blocks(output[1], 1));
        if length != bh * bw {
            return Err(ScriptError::Runtime(format!(
                "Given output_size={}, kernel_size={}, dilation={}, padding={}, stride={}, expected size of input's dimension 2 to match the calculated number of sliding blocks {bh} * {bw} = {}, but got input.size(2)={length}.",
                pair(output), pair(kernel), pair(dilation), pair(padding), pair(stride), bh * bw
            )));
        }
        if bh < 1 || bw < 1 {
            return Err(ScriptError::Runtime(format!(
                "Given output_size={}, kernel_size={}, dilation={}, padding={}, stride={}, calculated shape of the array of sliding blocks as ({bh}, {bw}), which is too small (non-positive)",
                pair(output), pair(kernel), pair(dilation), pair(padding), pair(stride)
            )));
        }
        if !t.dtype.is_floating() {
            return Err(ScriptError::NotImplemented(format!(
                "\"col2im_out_cpu\" not implemented for '{}'",
                t.dtype.scalar_type_name()
            )));
        }
        let channels = planes / block;
        let (h, w) = (output[0], output[1]);
        self.check_work(n * planes * length, "fold")?;
        let dtype = t.dtype;
        let values: Vec<f64> = self.engine.values(t).iter().map(|v| v.to_f64()).collect();
        let image = (channels * h * w).max(0) as usize;
        let mut out = vec![0.0f64; n.max(0) as usize * image];
        let round = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
        for b in 0..n.max(0) as usize {
            let col = &values[b * (planes * length) as usize..];
            let im = &mut out[b * image..(b + 1) * image];
            for c_col in 0..planes {
                let (kj, ki, c_im) = (
                    c_col % kernel[1],
                    (c_col / kernel[1]) % kernel[0],
                    c_col / block,
                );
                for y in 0..bh {
                    let iy = y * stride[0] - padding[0] + ki * dilation[0];
                    for x in 0..bw {
                        let ix = x * stride[1] - padding[1] + kj * dilation[1];
                        if (0..h).contains(&iy) && (0..w).contains(&ix) {
                            let at = ((c_im * h + iy) * w + ix) as usize;
                            let v = col[((c_col * bh + y) * bw + x) as usize];
                            im[at] = round(im[at] + v);
                        }
                    }
                }
            }
        }
        let shape: Vec<i64> = if batched {
            vec![n, channels, h, w]
        } else {
            vec![channels, h, w]
        };
        let scalars: Vec<Scalar> = out.into_iter().map(Scalar::Float).collect();
        let result = self.resized_result(t, &shape, &scalars, "fold")?;
        Ok(Value::tensor(result, "fold", None))
    }
}
