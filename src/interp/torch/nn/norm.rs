//! The normalizations of `torch.nn.functional`: `batch_norm` (its training mode updates the
//! running statistics in place, with the unbiased variance), `layer_norm` and `group_norm`,
//! with PyTorch 2.15's checks in its order and messages, their outputs' layouts (a
//! channels-last input keeps its format in `batch_norm` and `group_norm`) and their nodes
//! (see [`crate::interp::torch::nn::norm_backward`]). Values are computed on the host in
//! double precision and rounded once to the input's dtype.

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::functional::tensor_arg;
use crate::interp::torch::nn::norm_args::{float_param, given, ints_param, opt_tensor};
use crate::interp::torch::nn::norm_backward::{
    Plan, BATCH_NORM_GRAD, GROUP_NORM_GRAD, LAYER_NORM_GRAD,
};
use crate::interp::torch::nn::norm_kernel;
use crate::interp::torch::nn::norm_rows;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// A normalization entry: its node is recorded by the rule itself (operands `input, weight,
/// bias` whichever are given), so the table records none.
const fn entry(
    names: &'static [&'static str],
    schemas: &'static [&'static str],
    rule: crate::interp::torch::registry::Rule,
) -> OpDef {
    OpDef {
        names,
        schemas,
        forms: Forms::Functional,
        rule,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    }
}

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    entry(
        &["batch_norm"],
        &["input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05"],
        batch_norm,
    ),
    entry(
        &["layer_norm"],
        &["input, normalized_shape, weight=None, bias=None, eps=1e-05"],
        layer_norm,
    ),
    entry(
        &["group_norm"],
        &["input, num_groups, weight=None, bias=None, eps=1e-05"],
        group_norm,
    ),
];

/// `_verify_batch_size`: more than one value per channel.
fn verify_batch_size(size: &[i64], shown: String) -> R<()> {
    let product = size.first().copied().unwrap_or(1) * size.iter().skip(2).product::<i64>();
    if product == 1 {
        return Err(ScriptError::Value(format!(
            "Expected more than 1 value per channel when training, got input size {shown}"
        )));
    }
    Ok(())
}

/// The kernels' dtype checks: a floating input, and parameters of its dtype (or `float` for
/// a reduced-precision input).
fn check_dtypes(kernel: &str, input: DType, params: &[Option<DType>], kernel_first: bool) -> R<()> {
    let not_implemented = || {
        ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            input.scalar_type_name()
        ))
    };
    let floating = input.is_floating();
    if kernel_first && !floating {
        return Err(not_implemented());
    }
    let defined: Vec<DType> = params.iter().flatten().copied().collect();
    if defined.iter().any(|d| *d != input) {
        for d in &defined {
            if *d != DType::Float32 {
                return Err(ScriptError::Runtime(
                    "mixed dtype (CPU): expect parameter to have scalar type of Float".into(),
                ));
            }
        }
        if !matches!(input, DType::Float16 | DType::BFloat16) {
            return Err(ScriptError::Runtime(
                "mixed dtype (CPU): all inputs must share same datatype.".into(),
            ));
        }
    }
    if !floating {
        return Err(not_implemented());
    }
    Ok(())
}

/// The running statistics and affine parameters may not require grad for the gradient.
fn check_not_differentiable(
    ev: &Evaluator,
    op: &str,
    args: &[(&str, &Option<TensorRef>)],
) -> R<()> {
    if !ev.torch.grad_enabled {
        return Ok(());
    }
    for (name, t) in args {
        if t.as_ref().is_some_and(|t| t.borrow().requires_grad) {
            return Err(ScriptError::Runtime(format!(
                "The function '{op}' is not differentiable with respect to argument '{name}'. This input cannot have requires_grad True."
            )));
        }
    }
    Ok(())
}

/// What a normalization's node keeps: its entry's [`Grad`], the plan, the statistics the
/// backward reads, whether they were the batch's own, and whether `batch_norm`'s kernels of
/// [`crate::interp::torch::nn::norm_kernel`] computed it.
struct NodeData<'a> {
    grad: &'a Grad,
    plan: Plan,
    mean: &'a [f64],
    invstd: &'a [f64],
    training: bool,
    /// `Some(channels_last)` when `batch_norm`'s kernels computed it.
    batch_kernel: Option<bool>,
    /// The shape of the statistics ATen returns besides the output (`result1` the mean,
    /// `result2` the inverse standard deviation), which the node keeps: `[C]` (`[0]` in
    /// evaluation mode) for `batch_norm`, the input's shape with the normalized dimensions
    /// as 1 for `layer_norm`, `[N, G]` for `group_norm`.
    stats_shape: Vec<i64>,
    /// The tensors the node keeps that are not its operands (`running_mean`, `running_var`).
    kept: [(&'static str, Option<TensorRef>); 2],
}

fn dtype_of(t: &Option<TensorRef>) -> Option<DType> {
    t.as_ref().map(|t| t.borrow().tensor.dtype)
}

impl Evaluator {
    /// Values of an optional tensor.
    fn optional_values(&mut self, t: &Option<TensorRef>) -> Option<Vec<f64>> {
        let t = t.as_ref()?.borrow().tensor.clone();
        Some(self.nn_read_host(&t))
    }

    /// The output: `values` (row-major) in a new tensor of `input`'s shape and dtype, in
    /// `format`, with the node of `grad` (operands `input, weight, bias`).
    #[allow(clippy::too_many_arguments)]
    fn norm_output(
        &mut self,
        name: &str,
        input: &TensorRef,
        values: &[Scalar],
        format: MemoryFormat,
        node: NodeData,
        weight: &Option<TensorRef>,
        bias: &Option<TensorRef>,
    ) -> R<Value> {
        let x = input.borrow().tensor.clone();
        let t = self.empty(x.shape(), x.dtype, format, name)?;
        // A meta output has no values to write.
        if !values.is_empty() {
            self.nn_write_host(&t, values);
        }
        let out = Value::tensor(t, name, None);
        let floats = |v: &[f64]| Value::Tuple(v.iter().map(|&f| Value::Float(f)).collect());
        let plan_v = node.plan.to_value();
        let (mean_v, invstd_v) = (floats(node.mean), floats(node.invstd));
        let training_v = Value::Bool(node.training);
        let affine_v = Value::Bool(weight.is_some());
        let kernel_v = node.batch_kernel.map_or(Value::None, Value::Bool);
        let args: [(&str, &Value); 6] = [
            ("plan", &plan_v),
            ("mean", &mean_v),
            ("invstd", &invstd_v),
            ("training", &training_v),
            ("affine", &affine_v),
            ("batch_kernel", &kernel_v),
        ];
        let operand = |t: &Option<TensorRef>| t.clone().map_or(Value::None, Value::Tensor);
        let inputs = [
            Value::Tensor(std::rc::Rc::clone(input)),
            operand(weight),
            operand(bias),
        ];
        let refs: Vec<&Value> = inputs.iter().collect();
        self.record_grad(
            GradOp::Named {
                name,
                grad: node.grad,
                args: &args,
            },
            &refs,
            &out,
        );
        if Evaluator::has_node(&out) {
            // ATen's other outputs (the statistics) are allocated after the output and kept
            // by the node, with the running statistics `batch_norm` read.
            // A reduced-precision input with float32 parameters (autocast's) is ATen's
            // mixed type: the statistics are float32 (`param_scalar_type`).
            let float_params = weight
                .iter()
                .chain(bias)
                .any(|p| p.borrow().tensor.dtype == DType::Float32);
            let stat_dtype = if float_params && matches!(x.dtype, DType::BFloat16 | DType::Float16)
            {
                DType::Float32
            } else {
                x.dtype
            };
            let stat = |ev: &mut Evaluator, v: &[f64]| -> R<Value> {
                let t = ev.empty(
                    &node.stats_shape,
                    stat_dtype,
                    MemoryFormat::Contiguous,
                    name,
                )?;
                if !values.is_empty() && v.len() == t.numel() as usize {
                    let s: Vec<Scalar> = v
                        .iter()
                        .map(|&f| stat_dtype.round(Scalar::Float(f)))
                        .collect();
                    ev.nn_write_host(&t, &s);
                }
                Ok(Value::tensor(t, name, None))
            };
            let mean = stat(self, node.mean)?;
            let invstd = stat(self, node.invstd)?;
            let kept: Vec<(&'static str, Value)> = node
                .kept
                .iter()
                .filter_map(|(slot, t)| t.clone().map(|t| (*slot, Value::Tensor(t))))
                .collect();
            let mut extras: Vec<(&'static str, &Value)> =
                kept.iter().map(|(slot, v)| (*slot, v)).collect();
            extras.push(("result1", &mean));
            extras.push(("result2", &invstd));
            self.save_extras(&out, &extras);
        }
        match node.batch_kernel {
            Some(channels_last) if !values.is_empty() => {
                let events = norm_kernel::batch_norm_kernel_events(
                    &x,
                    node.plan.stats as i64,
                    node.training,
                    channels_last,
                    Evaluator::has_node(&out),
                );
                self.note_kernel_events(&events);
            }
            _ => norm_rows::unkept_stats(self, &out, &node.stats_shape, x.dtype, values.is_empty()),
        }
        Ok(out)
    }

    /// Writes a running statistic's new values (rounded to its dtype), if it is given.
    fn write_running(&mut self, t: &Option<TensorRef>, values: &[f64]) {
        let Some(t) = t else {
            return;
        };
        let t = t.borrow().tensor.clone();
        let scalars: Vec<Scalar> = values
            .iter()
            .map(|&v| t.dtype.round(Scalar::Float(v)))
            .collect();
        self.nn_write_host(&t, &scalars);
    }

    /// An empty output of `input`'s shape (no elements to normalize).
    fn empty_norm_output(&mut self, name: &str, x: &Tensor) -> R<Value> {
        let t = self.empty(x.shape(), x.dtype, MemoryFormat::Contiguous, name)?;
        Ok(Value::tensor(t, name, None))
    }
}

/// The output's memory format: channels-last when a 4-d input looks like it.
fn suggested_format(x: &Tensor) -> MemoryFormat {
    if x.ndim() == 4 {
        x.layout.suggest_memory_format()
    } else {
        MemoryFormat::Contiguous
    }
}

/// `F.batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
/// momentum=0.1, eps=1e-05)`.
fn batch_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    const OP: &str = "batch_norm";
    let training_value = given(call, "training")
        .cloned()
        .unwrap_or(Value::Bool(false));
    let training_truthy = ev.truthy(&training_value)?;
    if training_truthy {
        if let Some(Value::Tensor(t)) = call.value("input") {
            let shape = t.borrow().tensor.shape().to_vec();
            verify_batch_size(&shape, format!("torch.Size({})", list_str(&shape)))?;
        }
    }
    let eps_value = given(call, "eps").cloned().unwrap_or(Value::Float(1e-5));
    match crate::interp::torch::autograd::number(&eps_value) {
        Some(e) if training_truthy && e <= 0.0 => {
            let text = ev.str_of(&eps_value)?;
            return Err(ScriptError::Value(format!(
                "batch_norm eps must be positive during training, but got {text}"
            )));
        }
        Some(e) if e < 0.0 => {
            let text = ev.str_of(&eps_value)?;
            return Err(ScriptError::Value(format!(
                "batch_norm eps must be non-negative, but got {text}"
            )));
        }
        Some(_) => {}
        None => {
            return Err(ScriptError::Type(format!(
                "'{}' not supported between instances of '{}' and 'float'",
                if training_truthy { "<=" } else { "<" },
                eps_value.type_name()
            )))
        }
    }
    // `torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
    // eps, cudnn_enabled)`: its argument parser.
    let input = tensor_arg(call, "input")?;
    let weight = opt_tensor(call, "weight", OP, 2)?;
    let bias = opt_tensor(call, "bias", OP, 3)?;
    let running_mean = opt_tensor(call, "running_mean", OP, 4)?;
    let running_var = opt_tensor(call, "running_var", OP, 5)?;
    let training = match training_value {
        Value::Bool(b) => b,
        other => {
            return Err(ScriptError::Type(format!(
                "batch_norm(): argument 'training' (position 6) must be bool, not {}",
                other.type_name()
            )))
        }
    };
    let momentum = float_param(call, "momentum", OP, 7, 0.1)?;
    let eps = float_param(call, "eps", OP, 8, 1e-5)?;
    let x = input.borrow().tensor.clone();
    if x.numel() == 0 {
        return ev.empty_norm_output(OP, &x);
    }
    let features = if x.ndim() >= 2 { x.shape()[1] } else { 0 };
    let numel = |t: &Option<TensorRef>| t.as_ref().map(|t| t.borrow().tensor.numel());
    for (name, t) in [
        ("running_mean", &running_mean),
        ("running_var", &running_var),
    ] {
        match numel(t) {
            Some(n) if n != features => {
                return Err(ScriptError::Runtime(format!(
                    "{name} should contain {features} elements not {n}"
                )))
            }
            None if !training => {
                return Err(ScriptError::Runtime(format!(
                    "{name} must be defined in evaluation mode"
                )))
            }
            _ => {}
        }
    }
    for (name, t) in [("weight", &weight), ("bias", &bias)] {
        if let Some(n) = numel(t).filter(|n| *n != features) {
            return Err(ScriptError::Runtime(format!(
                "{name} should contain {features} elements not {n}"
            )));
        }
    }
    if running_mean.is_some() != running_var.is_some() {
        return Err(ScriptError::Value(
            "running_mean and running_var must either both be None or neither be None".into(),
        ));
    }
    match x.ndim() {
        0 => return Err(ScriptError::Runtime(
            "SmallVector unable to grow. Requested capacity (18446744073709551615) is larger than maximum value for size type (4294967295)".into(),
        )),
        1 => return Err(ScriptError::Index(
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)".into(),
        )),
        _ => {}
    }
    check_not_differentiable(
        ev,
        "native_batch_norm",
        &[
            ("running_mean", &running_mean),
            ("running_var", &running_var),
        ],
    )?;
    for t in [&running_mean, &running_var] {
        if let Some(d) = dtype_of(t).filter(|d| !d.is_floating()) {
            if x.dtype.is_floating() {
                return Err(ScriptError::Runtime(format!(
                    "expected scalar type {} but found {}",
                    x.dtype.scalar_type_name(),
                    d.scalar_type_name()
                )));
            }
        }
    }
    let params = [
        dtype_of(&weight),
        dtype_of(&bias),
        dtype_of(&running_mean),
        dtype_of(&running_var),
    ];
    check_dtypes(OP, x.dtype, &params, true)?;
    ev.check_work(x.numel(), OP)?;
    let shape = x.shape().to_vec();
    let channels = shape[1] as usize;
    let inner: usize = shape[2..].iter().product::<i64>() as usize;
    let plan = Plan {
        stat_span: inner,
        stats: channels,
        affine_span: inner,
        channels,
    };
    let format = suggested_format(&x);
    if crate::interp::torch::nn::conv::meta_op(ev) {
        // On the meta device nothing is computed: no statistics, no values.
        let zeros = vec![0.0; channels];
        let node = NodeData {
            grad: &BATCH_NORM_GRAD,
            plan,
            mean: &zeros,
            invstd: &zeros,
            training,
            batch_kernel: None,
            stats_shape: norm_rows::bn_stats_shape(training, channels),
            kept: [
                ("running_mean", running_mean.clone()),
                ("running_var", running_var.clone()),
            ],
        };
        return ev.norm_output(OP, &input, &[], format, node, &weight, &bias);
    }
    let values = ev.nn_read_host(&x);
    let w = ev.optional_values(&weight);
    let b = ev.optional_values(&bias);
    let channels_last = norm_kernel::takes_channels_last(&x.layout);
    if norm_kernel::exact_dtype(x.dtype) {
        let (mean, invstd, backward_invstd) = if training {
            let old_mean = ev.optional_values(&running_mean).unwrap_or_default();
            let old_var = ev.optional_values(&running_var).unwrap_or_default();
            let stats = norm_kernel::batch_stats(
                &values,
                &plan,
                x.dtype,
                eps,
                momentum,
                (&old_mean, &old_var),
                channels_last,
            );
            ev.write_running(&running_mean, &stats.running_mean);
            ev.write_running(&running_var, &stats.running_var);
            (stats.mean, stats.invstd.clone(), stats.invstd)
        } else {
            let rv = ev.optional_values(&running_var).unwrap_or_default();
            (
                ev.optional_values(&running_mean).unwrap_or_default(),
                norm_kernel::eval_invstd(&rv, x.dtype, eps),
                norm_kernel::eval_invstd_backward(&rv, x.dtype, eps),
            )
        };
        let out = norm_kernel::batch_output(
            &values,
            &plan,
            (&mean, &invstd),
            w.as_deref(),
            b.as_deref(),
            x.dtype,
        );
        let node = NodeData {
            grad: &BATCH_NORM_GRAD,
            plan,
            mean: &mean,
            invstd: &backward_invstd,
            training,
            batch_kernel: Some(channels_last),
            stats_shape: norm_rows::bn_stats_shape(training, channels),
            kept: [
                ("running_mean", running_mean.clone()),
                ("running_var", running_var.clone()),
            ],
        };
        return ev.norm_output(OP, &input, &out, format, node, &weight, &bias);
    }
    let (mean, var) = if training {
        let (mean, var, count) = plan.moments(&values);
        let old_mean = ev.optional_values(&running_mean).unwrap_or_default();
        let old_var = ev.optional_values(&running_var).unwrap_or_default();
        let new_mean: Vec<f64> = old_mean
            .iter()
            .zip(&mean)
            .map(|(r, m)| momentum * m + (1.0 - momentum) * r)
            .collect();
        let new_var: Vec<f64> = old_var
            .iter()
            .zip(var.iter().zip(&count))
            .map(|(r, (v, n))| momentum * (v * n / (n - 1.0)) + (1.0 - momentum) * r)
            .collect();
        ev.write_running(&running_mean, &new_mean);
        ev.write_running(&running_var, &new_var);
        (mean, var)
    } else {
        (
            ev.optional_values(&running_mean).unwrap_or_default(),
            ev.optional_values(&running_var).unwrap_or_default(),
        )
    };
    let invstd: Vec<f64> = var.iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
    let out = plan.normalize(&values, &mean, &invstd, w.as_deref(), b.as_deref(), x.dtype);
    let node = NodeData {
        grad: &BATCH_NORM_GRAD,
        plan,
        mean: &mean,
        invstd: &invstd,
        training,
        batch_kernel: None,
        stats_shape: norm_rows::bn_stats_shape(training, channels),
        kept: [
            ("running_mean", running_mean.clone()),
            ("running_var", running_var.clone()),
        ],
    };
    ev.norm_output(OP, &input, &out, format, node, &weight, &bias)
}

/// `F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)`.
fn layer_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    const OP: &str = "layer_norm";
    let input = tensor_arg(call, "input")?;
    let shape_value = given(call, "normalized_shape")
        .cloned()
        .unwrap_or(Value::None);
    let normalized = ints_param(&shape_value, OP, "normalized_shape", 2)?;
    let weight = opt_tensor(call, "weight", OP, 3)?;
    let bias = opt_tensor(call, "bias", OP, 4)?;
    let eps = float_param(call, "eps", OP, 5, 1e-5)?;
    let x = input.borrow().tensor.clone();
    if normalized.is_empty() {
        return Err(ScriptError::Runtime(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []".into(),
        ));
    }
    for (name, t) in [("weight", &weight), ("bias", &bias)] {
        if let Some(t) = t {
            let shape = t.borrow().tensor.shape().to_vec();
            if shape != normalized {
                return Err(ScriptError::Runtime(format!(
                    "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {} and normalized_shape = {}",
                    list_str(&shape),
                    list_str(&normalized)
                )));
            }
        }
    }
    let shape = x.shape().to_vec();
    if shape.len() < normalized.len() || shape[shape.len() - normalized.len()..] != normalized[..] {
        let stars: Vec<String> = normalized.iter().map(|n| n.to_string()).collect();
        return Err(ScriptError::Runtime(format!(
            "Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
            list_str(&normalized),
            stars.join(", "),
            list_str(&shape)
        )));
    }
    check_dtypes(
        "LayerNormKernelImpl",
        x.dtype,
        &[dtype_of(&weight), dtype_of(&bias)],
        false,
    )?;
    if x.numel() == 0 {
        return ev.empty_norm_output(OP, &x);
    }
    ev.check_work(x.numel(), OP)?;
    let features = normalized.iter().product::<i64>() as usize;
    let rows = x.numel() as usize / features.max(1);
    let plan = Plan {
        stat_span: features,
        stats: rows,
        affine_span: 1,
        channels: features,
    };
    normalize_rows(
        ev,
        OP,
        &input,
        plan,
        eps,
        &weight,
        &bias,
        MemoryFormat::Contiguous,
    )
}

/// `F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)`.
fn group_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    const OP: &str = "group_norm";
    let input = tensor_arg(call, "input")?;
    let x = input.borrow().tensor.clone();
    let shape = x.shape().to_vec();
    if shape.len() < 2 {
        return Err(ScriptError::Runtime(format!(
            "Expected at least 2 dimensions for input tensor but received {}",
            shape.len()
        )));
    }
    let groups_value = given(call, "num_groups").cloned().unwrap_or(Value::None);
    let groups = match groups_value {
        Value::Int(g) => g,
        Value::Bool(b) => i64::from(b),
        other => {
            return Err(ScriptError::Type(format!(
                "group_norm(): argument 'num_groups' (position 2) must be int, not {}",
                other.type_name()
            )))
        }
    };
    if groups == 0 {
        return Err(ScriptError::ZeroDivision(
            "integer division or modulo by zero".into(),
        ));
    }
    let mut size = vec![(shape[0] * shape[1]).div_euclid(groups), groups];
    size.extend_from_slice(&shape[2..]);
    verify_batch_size(&size, list_str(&size))?;
    let weight = opt_tensor(call, "weight", OP, 3)?;
    let bias = opt_tensor(call, "bias", OP, 4)?;
    let eps = float_param(call, "eps", OP, 5, 1e-5)?;
    let channels = shape[1];
    if channels <= 0 {
        return Err(ScriptError::Runtime(format!(
            "Expected number of channels to be greater than 0, got {channels}"
        )));
    }
    if groups < 0 {
        return Err(ScriptError::Runtime(format!(
            "Expected num groups to be greater than 0, got {groups}"
        )));
    }
    if channels % groups != 0 {
        return Err(ScriptError::Runtime(format!(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {} and num_groups={groups}",
            list_str(&shape)
        )));
    }
    for (name, t) in [("weight", &weight), ("bias", &bias)] {
        if let Some(t) = t {
            let t = t.borrow().tensor.clone();
            if t.ndim() != 1 || t.numel() != channels {
                return Err(ScriptError::Runtime(format!(
                    "Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of shape {} and input of shape {}",
                    list_str(t.shape()),
                    list_str(&shape)
                )));
            }
        }
    }
    check_dtypes(
        "GroupNormKernelImpl",
        x.dtype,
        &[dtype_of(&weight), dtype_of(&bias)],
        false,
    )?;
    if x.numel() == 0 {
        return ev.empty_norm_output(OP, &x);
    }
    ev.check_work(x.numel(), OP)?;
    let inner: usize = shape[2..].iter().product::<i64>() as usize;
    let per_group = (channels / groups) as usize * inner;
    let plan = Plan {
        stat_span: per_group,
        stats: shape[0] as usize * groups as usize,
        affine_span: inner,
        channels: channels as usize,
    };
    let format = suggested_format(&x);
    normalize_rows(ev, OP, &input, plan, eps, &weight, &bias, format)
}

/// `layer_norm` and `group_norm`: each group normalized with its own moments (`rstd` is
/// `1 / sqrt(max(var, 0) + eps)`).
#[allow(clippy::too_many_arguments)]
fn normalize_rows(
    ev: &mut Evaluator,
    op: &str,
    input: &TensorRef,
    plan: Plan,
    eps: f64,
    weight: &Option<TensorRef>,
    bias: &Option<TensorRef>,
    format: MemoryFormat,
) -> R<Value> {
    let x = input.borrow().tensor.clone();
    // On the meta device nothing is computed: no values, no statistics (the node keeps none).
    let meta = crate::interp::torch::nn::conv::meta_op(ev);
    let values = norm_rows::host_values(ev, meta, &x);
    let (w, b) = (ev.optional_values(weight), ev.optional_values(bias));
    let layer = op == "layer_norm";
    // The node keeps the exact moments (the backward is computed in double).
    let (mean, var, _) = norm_rows::moments(meta, &plan, &values);
    let invstd: Vec<f64> = var
        .iter()
        .map(|v| 1.0 / (v.max(0.0) + eps).sqrt())
        .collect();
    let out = if norm_rows::rows_dtype(x.dtype) && (layer || format == MemoryFormat::Contiguous) {
        let (row_mean, rstd) = norm_rows::row_stats(&values, &plan, x.dtype, eps, layer);
        let stats = (&row_mean[..], &rstd[..]);
        let (w, b) = (w.as_deref(), b.as_deref());
        if layer {
            norm_rows::layer_output(&values, &plan, stats, w, b, x.dtype)
        } else {
            norm_rows::group_output(&values, &plan, stats, w, b, x.dtype)
        }
    } else {
        plan.normalize(&values, &mean, &invstd, w.as_deref(), b.as_deref(), x.dtype)
    };
    let grad = if op == "layer_norm" {
        &LAYER_NORM_GRAD
    } else {
        &GROUP_NORM_GRAD
    };
    // `layer_norm`'s mean and rstd keep the input's shape with the normalized dimensions as
    // 1 (`[2, 6, 1]`); `group_norm`'s are `[N, G]`.
    let stats_shape: Vec<i64> = if layer {
        norm_rows::layer_stats_shape(x.shape(), plan.stat_span)
    } else {
        let n = x.shape().first().copied().unwrap_or(1).max(1);
        vec![n, plan.stats as i64 / n]
    };
    let node = NodeData {
        grad,
        plan,
        mean: &mean,
        invstd: &invstd,
        training: true,
        batch_kernel: None,
        stats_shape,
        kept: [("", None), ("", None)],
    };
    ev.norm_output(op, input, &out, format, node, weight, bias)
}
