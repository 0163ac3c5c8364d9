//! The lazy layers (`torch/nn/modules/lazy.py` and their families): `LazyLinear`,
//! `LazyConv1d`, `LazyConv2d`, `LazyBatchNorm1d`, `LazyBatchNorm2d`. Each is its eager
//! class built with zero input features (as PyTorch's `__init__` calls `super().__init__(0,
//! ...)`, which draws nothing), whose parameters (and running statistics) are then
//! uninitialized: `layer.weight` shows `<UninitializedParameter>` (`<UninitializedBuffer>`)
//! and they are not listed by `parameters()`. The first `forward` infers the input features
//! (`input.shape[-1]` for `Linear`, `input.shape[1]` otherwise), builds the eager layer on
//! the same object with them (drawing its initial parameters as the eager `__init__` does,
//! so the numbers are PyTorch's) and runs the eager `forward`. PyTorch then changes the
//! object's class to the eager one (`cls_to_become`); here the object keeps its lazy class.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{attr, set_attrs};
use crate::interp::torch::nn::module::{arg, bind_python, find, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// Where a lazy layer keeps its `__init__` arguments until the first `forward` (a name no
/// script can write).
const ARGS: &str = "\0lazy_args";

/// A lazy layer: its eager base and its `__init__` signature without the input features.
struct Lazy {
    name: &'static str,
    base: &'static str,
    signature: &'static str,
    /// The eager `__init__`'s name for the input features.
    features: &'static str,
}

static LAZY: &[Lazy] = &[
    Lazy {
        name: "LazyLinear",
        base: "Linear",
        signature: "out_features, bias=True, device=None, dtype=None",
        features: "in_features",
    },
    Lazy {
        name: "LazyConv1d",
        base: "Conv1d",
        signature: "out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros', device=None, dtype=None",
        features: "in_channels",
    },
    Lazy {
        name: "LazyConv2d",
        base: "Conv2d",
        signature: "out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros', device=None, dtype=None",
        features: "in_channels",
    },
    Lazy {
        name: "LazyBatchNorm1d",
        base: "BatchNorm1d",
        signature: "eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None",
        features: "num_features",
    },
    Lazy {
        name: "LazyBatchNorm2d",
        base: "BatchNorm2d",
        signature: "eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None",
        features: "num_features",
    },
];

const fn lazy(name: &'static str, base: &'static str) -> ModuleDef {
    ModuleDef {
        base: Some(base),
        init: Some(lazy_init),
        forward: Some(lazy_forward),
        ..ModuleDef::new(name, "torch.nn.modules.lazy")
    }
}

/// The layer classes of this family, and the uninitialized tensors' classes.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        path: "torch.nn.modules.linear",
        ..lazy("LazyLinear", "Linear")
    },
    ModuleDef {
        path: "torch.nn.modules.conv",
        ..lazy("LazyConv1d", "Conv1d")
    },
    ModuleDef {
        path: "torch.nn.modules.conv",
        ..lazy("LazyConv2d", "Conv2d")
    },
    ModuleDef {
        path: "torch.nn.modules.batchnorm",
        ..lazy("LazyBatchNorm1d", "BatchNorm1d")
    },
    ModuleDef {
        path: "torch.nn.modules.batchnorm",
        ..lazy("LazyBatchNorm2d", "BatchNorm2d")
    },
    uninitialized("UninitializedParameter"),
    uninitialized("UninitializedBuffer"),
];

const fn uninitialized(name: &'static str) -> ModuleDef {
    ModuleDef {
        name,
        path: "torch.nn.parameter",
        base: None,
        init: None,
        forward: None,
        extra_repr: None,
        methods: &[("__repr__", |_, o, _, _| {
            Ok(Value::Str(format!("<{}>", o.class.name)))
        })],
        class_methods: &[],
    }
}

/// The lazy layer `o` is (its own class or a script class derived from it).
fn spec(o: &Rc<Instance>) -> R<&'static Lazy> {
    let name = native_of(&o.class).map_or("", |d| d.name);
    LAZY.iter()
        .find(|l| l.name == name)
        .ok_or_else(|| ScriptError::Runtime(format!("{name} is not a lazy layer")))
}

/// An object of a built-in class (`UninitializedParameter`).
fn instance_of(ev: &mut Evaluator, class: &str) -> R<Value> {
    let class = ev
        .nn_class(class)
        .ok_or_else(|| ScriptError::Runtime(format!("no class {class}")))?;
    Ok(Value::Instance(Rc::new(Instance {
        class,
        attrs: std::cell::RefCell::new(Vec::new()),
        module: std::cell::RefCell::new(None),
    })))
}

/// Runs the eager `__init__` of `lazy` on `o` with `features` input features.
fn eager_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    lazy: &Lazy,
    features: i64,
    args: &[(String, Value)],
) -> R<()> {
    let init = find(lazy.base)
        .and_then(|d| d.init)
        .ok_or_else(|| ScriptError::Runtime(format!("no {}.__init__", lazy.base)))?;
    let mut kw: Vec<(String, Value)> = args.to_vec();
    kw.insert(0, (lazy.features.to_string(), Value::Int(features)));
    init(ev, o, vec![], kw)
}

fn lazy_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let lazy = spec(o)?;
    let args = bind_python(
        lazy.signature,
        &format!("{}.__init__", lazy.name),
        &pos,
        &kw,
    )?;
    // `super().__init__(0, 0, ...)`: the eager layer with no input features (and, for a
    // convolution, no output channels), which draws nothing.
    let mut zero = args.clone();
    if lazy.features == "in_channels" {
        if let Some(slot) = zero.iter_mut().find(|(n, _)| n == "out_channels") {
            slot.1 = Value::Int(0);
        }
    }
    // PyTorch's zero-element initialization draws nothing from the generator.
    let generator = ev.torch.generator.clone();
    let built = eager_init(ev, o, lazy, 0, &zero);
    ev.torch.generator = generator;
    built?;
    if lazy.features == "in_channels" {
        set_attrs(o, vec![("out_channels", arg(&args, "out_channels"))]);
    }
    let (parameters, buffers) = {
        let mut state = o.module.borrow_mut();
        let Some(state) = state.as_mut() else {
            return Ok(());
        };
        let parameters: Vec<String> = state
            .parameters
            .iter()
            .filter(|(_, p)| p.is_some())
            .map(|(n, _)| n.clone())
            .collect();
        let buffers: Vec<String> = state
            .buffers
            .iter()
            .filter(|(n, b)| b.is_some() && n != "num_batches_tracked")
            .map(|(n, _)| n.clone())
            .collect();
        state.parameters.retain(|(n, _)| !parameters.contains(n));
        state.buffers.retain(|(n, _)| !buffers.contains(n));
        (parameters, buffers)
    };
    let mut markers = Vec::new();
    for name in &parameters {
        markers.push((name.as_str(), instance_of(ev, "UninitializedParameter")?));
    }
    for name in &buffers {
        markers.push((name.as_str(), instance_of(ev, "UninitializedBuffer")?));
    }
    markers.push((
        ARGS,
        Value::Tuple(
            args.into_iter()
                .map(|(n, v)| Value::Tuple(vec![Value::Str(n), v]))
                .collect(),
        ),
    ));
    set_attrs(o, markers);
    Ok(())
}

fn lazy_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let lazy = spec(o)?;
    if let Value::Tuple(saved) = attr(o, ARGS) {
        let input = pos.first().cloned().or_else(|| {
            kw.iter()
                .find(|(n, _)| n == "input")
                .map(|(_, v)| v.clone())
        });
        let shape = input
            .as_ref()
            .and_then(|v| v.as_tensor())
            .map(|t| t.shape().to_vec())
            .unwrap_or_default();
        let features = if lazy.features == "in_features" {
            shape.last().copied()
        } else {
            // `_get_in_channels`: the channels of a batched input, the first dim otherwise.
            let batched_rank = if lazy.base.ends_with("1d") { 3 } else { 4 };
            if shape.len() == batched_rank || lazy.base.starts_with("BatchNorm") {
                shape.get(1).copied()
            } else {
                shape.first().copied()
            }
        };
        if let Some(features) = features {
            let args: Vec<(String, Value)> = saved
                .iter()
                .filter_map(|pair| match pair {
                    Value::Tuple(p) => match p.as_slice() {
                        [Value::Str(n), v] => Some((n.clone(), v.clone())),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            let training = o.module.borrow().as_ref().map(|s| s.training);
            o.attrs.borrow_mut().retain(|(n, v)| {
                n != ARGS
                    && !matches!(v, Value::Instance(i) if i.class.name.starts_with("Uninitialized"))
            });
            eager_init(ev, o, lazy, features, &args)?;
            if let (Some(training), Some(state)) = (training, o.module.borrow_mut().as_mut()) {
                state.training = training;
            }
        }
    }
    let forward = find(lazy.base)
        .and_then(|d| d.forward)
        .ok_or_else(|| ScriptError::Runtime(format!("no {}.forward", lazy.base)))?;
    forward(ev, o, pos, kw)
}
