//! `torch.amp.GradScaler` (and `torch.cuda.amp.GradScaler`, `torch.cpu.amp.GradScaler`):
//! loss scaling for mixed precision, as `torch/amp/grad_scaler.py` runs it in PyTorch 2.15.
//!
//! - `scale(outputs)`: the outputs times the scale, a float32 0-dim tensor made at the first
//!   call (`torch.full((), init_scale)`, with the int32 growth tracker);
//! - `unscale_(optimizer)`: `inv_scale = scale.double().reciprocal().float()` and a
//!   `found_inf` flag; each gradient multiplied by `inv_scale` in place, the flag set where a
//!   gradient has an infinite or NaN element (`_amp_foreach_non_finite_check_and_unscale_`);
//! - `step(optimizer)`: unscales first if the script did not, then runs `optimizer.step()`
//!   unless an inf/NaN was found;
//! - `update()`: the scale times `backoff_factor` after a skipped step, times
//!   `growth_factor` after `growth_interval` steps in a row without one
//!   (`_amp_update_scale_`); the per-optimizer states (their `found_inf`) are dropped.
//!
//! A CUDA scaler where no CUDA device is available warns and disables itself: every method
//! passes through (`scale` returns its input, `step` calls `optimizer.step()`).

use std::rc::Rc;

use crate::core::tensor::{DType, ScriptError};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::{attr, call_method, call_torch, set_attr};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The optimizer stages `OptState` names.
const READY: i64 = 0;
const UNSCALED: i64 = 1;
const STEPPED: i64 = 2;

const FIX: &str = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.";

impl Evaluator {
    /// `torch.amp.GradScaler(device='cuda', ...)`, or the device form
    /// (`torch.cuda.amp.GradScaler(init_scale=..., ...)`, deprecated in favour of the first).
    pub(crate) fn grad_scaler(
        &mut self,
        device: Option<crate::interp::torch::device::Device>,
        mut pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let class = self.nn_class("GradScaler").ok_or_else(|| {
            ScriptError::Attribute("module 'torch.amp' has no attribute 'GradScaler'".into())
        })?;
        if let Some(device) = device {
            let name = device.name();
            self.recorder.warn(format!(
                "FutureWarning: `torch.{name}.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('{name}', args...)` instead."
            ));
            pos.insert(0, Value::Str(name.into()));
        }
        self.call(Value::Class(class), pos, kw)
    }
}

/// The class of this family.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    name: "GradScaler",
    path: "torch.amp.grad_scaler",
    base: None,
    init: Some(init),
    forward: None,
    extra_repr: None,
    methods: &[
        ("scale", |ev, o, pos, kw| {
            let args = bind_python("outputs", "GradScaler.scale", &pos, &kw)?;
            scale(ev, o, arg(&args, "outputs"))
        }),
        ("unscale_", |ev, o, pos, kw| {
            let args = bind_python("optimizer", "GradScaler.unscale_", &pos, &kw)?;
            unscale(ev, o, &arg(&args, "optimizer")).map(|()| Value::None)
        }),
        ("step", step),
        ("update", |ev, o, pos, kw| {
            let args = bind_python("new_scale=None", "GradScaler.update", &pos, &kw)?;
            update(ev, o, arg(&args, "new_scale")).map(|()| Value::None)
        }),
        ("get_scale", |ev, o, _, _| get_scale(ev, o)),
        ("is_enabled", |_, o, _, _| Ok(attr(o, "_enabled"))),
        ("get_growth_factor", |_, o, _, _| {
            Ok(attr(o, "_growth_factor"))
        }),
        ("get_backoff_factor", |_, o, _, _| {
            Ok(attr(o, "_backoff_factor"))
        }),
        ("get_growth_interval", |_, o, _, _| {
            Ok(attr(o, "_growth_interval"))
        }),
        ("state_dict", |ev, o, _, _| state_dict(ev, o)),
    ],
    class_methods: &[],
}];

/// PyTorch's `AssertionError` with `message`.
fn assertion(message: impl Into<String>) -> ScriptError {
    ScriptError::Other {
        class: "AssertionError".into(),
        message: message.into(),
    }
}

fn enabled(o: &Rc<Instance>) -> bool {
    matches!(attr(o, "_enabled"), Value::Bool(true))
}

fn init(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<()> {
    let args = bind_python(
        "device='cuda', init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True",
        "GradScaler.__init__",
        &pos,
        &kw,
    )?;
    let device = arg(&args, "device");
    let mut on = ev.truthy(&arg(&args, "enabled"))?;
    set_attr(o, "_device", device.clone());
    if matches!(&device, Value::Str(d) if d == "cuda") && on && !ev.torch.device.cuda {
        ev.recorder.warn(
            "UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."
                .into(),
        );
        on = false;
    }
    set_attr(o, "_enabled", Value::Bool(on));
    if !on {
        return Ok(());
    }
    let factor = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    if factor(&arg(&args, "growth_factor")).is_some_and(|f| f <= 1.0) {
        return Err(assertion("The growth factor must be > 1.0."));
    }
    if factor(&arg(&args, "backoff_factor")).is_some_and(|f| f >= 1.0) {
        return Err(assertion("The backoff factor must be < 1.0."));
    }
    set_attr(o, "_init_scale", arg(&args, "init_scale"));
    set_attr(o, "_scale", Value::None);
    set_attr(o, "_growth_factor", arg(&args, "growth_factor"));
    set_attr(o, "_backoff_factor", arg(&args, "backoff_factor"));
    set_attr(o, "_growth_interval", arg(&args, "growth_interval"));
    set_attr(o, "_init_growth_tracker", Value::Int(0));
    set_attr(o, "_growth_tracker", Value::None);
    set_attr(o, "_per_optimizer_states", Value::Dict(Vec::new()));
    Ok(())
}

/// `_check_scale_growth_tracker`.
fn check_scale(o: &Rc<Instance>, what: &str) -> R<(Value, Value)> {
    let scale = attr(o, "_scale");
    if matches!(scale, Value::None) {
        return Err(assertion(format!(
            "Attempted {what} but _scale is None.  {FIX}"
        )));
    }
    let tracker = attr(o, "_growth_tracker");
    if matches!(tracker, Value::None) {
        return Err(assertion(format!(
            "Attempted {what} but _growth_tracker is None.  {FIX}"
        )));
    }
    Ok((scale, tracker))
}

fn scale(ev: &mut Evaluator, o: &Rc<Instance>, outputs: Value) -> R<Value> {
    if !enabled(o) {
        return Ok(outputs);
    }
    match outputs {
        Value::Tensor(t) => {
            if matches!(attr(o, "_scale"), Value::None) {
                let device = ev.attribute(Value::Tensor(Rc::clone(&t)), "device")?;
                let init = attr(o, "_init_scale");
                let s = call_torch(
                    ev,
                    "full",
                    vec![Value::Tuple(Vec::new()), init],
                    vec![
                        ("dtype", Value::DType(DType::Float32)),
                        ("device", device.clone()),
                    ],
                )?;
                set_attr(o, "_scale", s);
                let g = call_torch(
                    ev,
                    "full",
                    vec![Value::Tuple(Vec::new()), attr(o, "_init_growth_tracker")],
                    vec![("dtype", Value::DType(DType::Int32)), ("device", device)],
                )?;
                set_attr(o, "_growth_tracker", g);
            }
            ev.binary(
                crate::lang::ast::BinOp::Mul,
                Value::Tensor(t),
                attr(o, "_scale"),
            )
        }
        Value::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(scale(ev, o, item)?);
            }
            Ok(Value::List(out))
        }
        Value::Tuple(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(scale(ev, o, item)?);
            }
            Ok(Value::Tuple(out))
        }
        other => Err(ScriptError::Value(format!(
            "outputs must be a Tensor or an iterable of Tensors, not {}",
            other.type_name()
        ))),
    }
}

/// The per-optimizer state of `optimizer`: its stage and its `found_inf` (or `None`).
fn state_of(o: &Rc<Instance>, optimizer: &Value) -> (i64, Value) {
    let key = optimizer_key(optimizer);
    match attr(o, "_per_optimizer_states") {
        Value::Dict(entries) => entries
            .iter()
            .find(|(k, _)| matches!(k, Value::Int(i) if *i == key))
            .map_or((READY, Value::None), |(_, v)| match v {
                Value::Tuple(parts) => match parts.as_slice() {
                    [Value::Int(stage), found] => (*stage, found.clone()),
                    _ => (READY, Value::None),
                },
                _ => (READY, Value::None),
            }),
        _ => (READY, Value::None),
    }
}

fn set_state(o: &Rc<Instance>, optimizer: &Value, stage: i64, found_inf: Value) {
    let key = optimizer_key(optimizer);
    let mut entries = match attr(o, "_per_optimizer_states") {
        Value::Dict(entries) => entries,
        _ => Vec::new(),
    };
    entries.retain(|(k, _)| !matches!(k, Value::Int(i) if *i == key));
    entries.push((
        Value::Int(key),
        Value::Tuple(vec![Value::Int(stage), found_inf]),
    ));
    set_attr(o, "_per_optimizer_states", Value::Dict(entries));
}

/// `id(optimizer)`.
fn optimizer_key(optimizer: &Value) -> i64 {
    match optimizer {
        Value::Instance(i) => Rc::as_ptr(i) as i64,
        _ => 0,
    }
}

fn unscale(ev: &mut Evaluator, o: &Rc<Instance>, optimizer: &Value) -> R<()> {
    if !enabled(o) {
        return Ok(());
    }
    let (scale, _) = check_scale(o, "unscale_")?;
    let (stage, _) = state_of(o, optimizer);
    if stage == UNSCALED {
        return Err(ScriptError::Runtime(
            "unscale_() has already been called on this optimizer since the last update().".into(),
        ));
    }
    if stage == STEPPED {
        return Err(ScriptError::Runtime(
            "unscale_() is being called after step().".into(),
        ));
    }
    // FP32 division can be imprecise for certain compile options, so carry out the
    // reciprocal in FP64.
    let double = call_method(ev, &scale, "double", vec![], vec![])?;
    let reciprocal = call_method(ev, &double, "reciprocal", vec![], vec![])?;
    drop(double);
    let inv_scale = call_method(ev, &reciprocal, "float", vec![], vec![])?;
    drop(reciprocal);
    let device = ev.attribute(scale.clone(), "device")?;
    let found_inf = call_torch(
        ev,
        "full",
        vec![Value::Tuple(Vec::new()), Value::Float(0.0)],
        vec![("dtype", Value::DType(DType::Float32)), ("device", device)],
    )?;
    unscale_grads(ev, optimizer, &inv_scale, &found_inf)?;
    set_state(o, optimizer, UNSCALED, found_inf);
    Ok(())
}

/// `_unscale_grads_` with `_amp_foreach_non_finite_check_and_unscale_`: every gradient
/// times `inv_scale` in place; `found_inf` set to 1 where one has a non-finite element.
fn unscale_grads(
    ev: &mut Evaluator,
    optimizer: &Value,
    inv_scale: &Value,
    found_inf: &Value,
) -> R<()> {
    let Value::Instance(opt) = optimizer else {
        return Err(ScriptError::Type(
            "GradScaler.unscale_() expects an optimizer".into(),
        ));
    };
    let groups = match attr(opt, "param_groups") {
        Value::List(groups) => groups,
        _ => Vec::new(),
    };
    let mut grads = Vec::new();
    for group in &groups {
        let params = ev.get_item(group.clone(), &Value::Str("params".into()))?;
        let Value::List(params) = params else {
            continue;
        };
        for p in params {
            let Value::Tensor(p) = p else {
                continue;
            };
            let Some(g) = p.borrow().grad.clone() else {
                continue;
            };
            if g.borrow().tensor.dtype == DType::Float16 {
                return Err(ScriptError::Value(
                    "Attempting to unscale FP16 gradients.".into(),
                ));
            }
            grads.push(g);
        }
    }
    for g in grads {
        // One kernel: the check allocates nothing.
        let all_finite = ev.uncounted(|ev| -> R<bool> {
            let finite = call_torch(ev, "isfinite", vec![Value::Tensor(Rc::clone(&g))], vec![])?;
            let all = call_method(ev, &finite, "all", vec![], vec![])?;
            ev.truthy(&all)
        })?;
        if !all_finite {
            call_method(ev, found_inf, "fill_", vec![Value::Float(1.0)], vec![])?;
        }
        ev.uncounted(|ev| {
            call_method(
                ev,
                &Value::Tensor(Rc::clone(&g)),
                "mul_",
                vec![inv_scale.clone()],
                vec![],
            )
        })?;
    }
    Ok(())
}

fn step(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let Some((optimizer, rest)) = pos.split_first() else {
        return Err(ScriptError::Type(
            "GradScaler.step() missing 1 required positional argument: 'optimizer'".into(),
        ));
    };
    let kw_ref: Vec<(&str, Value)> = kw.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    if !enabled(o) {
        return call_method(ev, optimizer, "step", rest.to_vec(), kw_ref);
    }
    if kw.iter().any(|(k, _)| k == "closure") {
        return Err(ScriptError::Runtime(
            "Closure use is not currently supported if GradScaler is enabled.".into(),
        ));
    }
    check_scale(o, "step")?;
    let (stage, _) = state_of(o, optimizer);
    if stage == STEPPED {
        return Err(ScriptError::Runtime(
            "step() has already been called since the last update().".into(),
        ));
    }
    if stage == READY {
        unscale(ev, o, optimizer)?;
    }
    let (_, found_inf) = state_of(o, optimizer);
    if matches!(found_inf, Value::None) {
        return Err(assertion("No inf checks were recorded for this optimizer."));
    }
    let item = call_method(ev, &found_inf, "item", vec![], vec![])?;
    let skipped = ev.truthy(&item)?;
    let retval = if skipped {
        Value::None
    } else {
        call_method(ev, optimizer, "step", rest.to_vec(), kw_ref)?
    };
    set_state(o, optimizer, STEPPED, found_inf);
    Ok(retval)
}

fn update(ev: &mut Evaluator, o: &Rc<Instance>, new_scale: Value) -> R<()> {
    if !enabled(o) {
        return Ok(());
    }
    let (scale, tracker) = check_scale(o, "update")?;
    match new_scale {
        Value::None => {
            let found: Vec<Value> = match attr(o, "_per_optimizer_states") {
                Value::Dict(entries) => entries
                    .iter()
                    .filter_map(|(_, v)| match v {
                        Value::Tuple(parts) => parts.get(1).cloned(),
                        _ => None,
                    })
                    .filter(|f| !matches!(f, Value::None))
                    .collect(),
                _ => Vec::new(),
            };
            let Some((combined, rest)) = found.split_first() else {
                return Err(assertion("No inf checks were recorded prior to update."));
            };
            for f in rest {
                call_method(ev, combined, "add_", vec![f.clone()], vec![])?;
            }
            let item = call_method(ev, combined, "item", vec![], vec![])?;
            let inf = ev.truthy(&item)?;
            let count = match call_method(ev, &tracker, "item", vec![], vec![])? {
                Value::Int(i) => i,
                _ => 0,
            };
            let interval = match attr(o, "_growth_interval") {
                Value::Int(i) => i,
                _ => 2000,
            };
            // `_amp_update_scale_`, in place on the scale and the tracker.
            ev.uncounted(|ev| -> R<()> {
                if inf {
                    let backoff = attr(o, "_backoff_factor");
                    call_method(ev, &scale, "mul_", vec![backoff], vec![])?;
                    call_method(ev, &tracker, "fill_", vec![Value::Int(0)], vec![])?;
                } else if count + 1 == interval {
                    let growth = attr(o, "_growth_factor");
                    let grown = call_method(ev, &scale, "mul", vec![growth], vec![])?;
                    let finite = call_torch(ev, "isfinite", vec![grown.clone()], vec![])?;
                    if ev.truthy(&finite)? {
                        call_method(ev, &scale, "copy_", vec![grown], vec![])?;
                    }
                    call_method(ev, &tracker, "fill_", vec![Value::Int(0)], vec![])?;
                } else {
                    call_method(ev, &tracker, "fill_", vec![Value::Int(count + 1)], vec![])?;
                }
                Ok(())
            })?;
        }
        Value::Tensor(t) => {
            call_method(ev, &scale, "copy_", vec![Value::Tensor(t)], vec![])?;
        }
        other => {
            call_method(ev, &scale, "fill_", vec![other], vec![])?;
        }
    }
    set_attr(o, "_per_optimizer_states", Value::Dict(Vec::new()));
    Ok(())
}

fn get_scale(ev: &mut Evaluator, o: &Rc<Instance>) -> R<Value> {
    if !enabled(o) {
        return Ok(Value::Float(1.0));
    }
    match attr(o, "_scale") {
        Value::None => Ok(attr(o, "_init_scale")),
        scale => call_method(ev, &scale, "item", vec![], vec![]),
    }
}

fn state_dict(ev: &mut Evaluator, o: &Rc<Instance>) -> R<Value> {
    if !enabled(o) {
        return Ok(Value::Dict(Vec::new()));
    }
    let tracker = match attr(o, "_growth_tracker") {
        Value::None => attr(o, "_init_growth_tracker"),
        t => call_method(ev, &t, "item", vec![], vec![])?,
    };
    Ok(Value::Dict(vec![
        (Value::Str("scale".into()), get_scale(ev, o)?),
        (
            Value::Str("growth_factor".into()),
            attr(o, "_growth_factor"),
        ),
        (
            Value::Str("backoff_factor".into()),
            attr(o, "_backoff_factor"),
        ),
        (
            Value::Str("growth_interval".into()),
            attr(o, "_growth_interval"),
        ),
        (Value::Str("_growth_tracker".into()), tracker),
    ]))
}
