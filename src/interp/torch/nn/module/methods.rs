//! `nn.Module`'s own methods, as `torch/nn/modules/module.py` defines them: the walks
//! (`parameters`, `named_modules`, ...), `state_dict` and `load_state_dict`, modes
//! (`train`, `eval`, `requires_grad_`), `zero_grad`, `apply`, dtype conversions and the
//! registration methods.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::convert::{convert, to_empty};
use crate::interp::torch::nn::module::hooks;
use crate::interp::torch::nn::module::registration::{
    add_module, get_parameter, get_submodule, register_buffer, register_parameter,
};
use crate::interp::torch::nn::module::state::{load_state_dict, state_dict};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The `Module` class itself.
pub(crate) static MODULES: &[ModuleDef] = &[ModuleDef {
    name: "Module",
    path: "torch.nn.modules.module",
    base: None,
    init: Some(init),
    forward: Some(missing_forward),
    extra_repr: Some(|_, _| Ok(String::new())),
    class_methods: &[],
    methods: &[
        ("__repr__", |ev, o, _, _| ev.module_repr(o).map(Value::Str)),
        ("_get_name", |_, o, _, _| {
            Ok(Value::Str(o.class.name.clone()))
        }),
        ("parameters", |ev, o, p, k| {
            let items = tensor_listing(ev, o, (p, k), false, false)?;
            Ok(ev.module_generator(items, "Module.parameters"))
        }),
        ("named_parameters", |ev, o, p, k| {
            let items = tensor_listing(ev, o, (p, k), false, true)?;
            Ok(ev.module_generator(items, "Module.named_parameters"))
        }),
        ("buffers", |ev, o, p, k| {
            let items = tensor_listing(ev, o, (p, k), true, false)?;
            Ok(ev.module_generator(items, "Module.buffers"))
        }),
        ("named_buffers", |ev, o, p, k| {
            let items = tensor_listing(ev, o, (p, k), true, true)?;
            Ok(ev.module_generator(items, "Module.named_buffers"))
        }),
        ("children", |ev, o, p, k| {
            let items = children(ev, o, p, k)?;
            Ok(ev.module_generator(items, "Module.children"))
        }),
        ("named_children", |ev, o, p, k| {
            let items = named_children(ev, o, p, k)?;
            Ok(ev.module_generator(items, "Module.named_children"))
        }),
        ("modules", |ev, o, p, k| {
            let items = modules(ev, o, p, k)?;
            Ok(ev.module_generator(items, "Module.modules"))
        }),
        ("named_modules", |ev, o, p, k| {
            let items = named_modules(ev, o, p, k)?;
            Ok(ev.module_generator(items, "Module.named_modules"))
        }),
        ("state_dict", state_dict),
        ("load_state_dict", load_state_dict),
        ("train", train),
        ("eval", |ev, o, pos, kw| {
            bind_python("", "Module.eval", &pos, &kw)?;
            set_training(ev, o, false)
        }),
        ("requires_grad_", requires_grad),
        ("zero_grad", zero_grad),
        ("apply", apply),
        ("register_buffer", register_buffer),
        ("register_parameter", register_parameter),
        ("add_module", add_module),
        ("register_module", add_module),
        ("get_submodule", get_submodule),
        ("get_parameter", get_parameter),
        ("float", |ev, o, p, k| convert(ev, o, p, k, "float")),
        ("double", |ev, o, p, k| convert(ev, o, p, k, "double")),
        ("half", |ev, o, p, k| convert(ev, o, p, k, "half")),
        ("bfloat16", |ev, o, p, k| convert(ev, o, p, k, "bfloat16")),
        ("cpu", |ev, o, p, k| convert(ev, o, p, k, "cpu")),
        ("to", |ev, o, p, k| convert(ev, o, p, k, "to")),
        ("to_empty", to_empty),
        ("register_forward_hook", hooks::register_forward_hook),
        (
            "register_forward_pre_hook",
            hooks::register_forward_pre_hook,
        ),
        (
            "register_full_backward_hook",
            hooks::register_full_backward_hook,
        ),
        (
            "register_full_backward_pre_hook",
            hooks::register_full_backward_pre_hook,
        ),
        ("register_backward_hook", hooks::register_backward_hook),
    ],
}];

/// `Module.__init__`.
fn init(
    ev: &mut Evaluator,
    object: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    ev.module_init(object, &pos, &kw)
}

/// `Module.forward`: a class that did not define one.
fn missing_forward(
    _: &mut Evaluator,
    object: &Rc<Instance>,
    _: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    Err(ScriptError::NotImplemented(format!(
        "Module [{}] is missing the required \"forward\" function",
        object.class.name
    )))
}

/// A module's submodules by name (`named_modules`): itself first, then depth first, each
/// object once.
pub(crate) fn walk_modules(root: &Rc<Instance>, prefix: &str) -> Vec<(String, Rc<Instance>)> {
    let mut out: Vec<(String, Rc<Instance>)> = Vec::new();
    let mut pending = vec![(prefix.to_string(), Rc::clone(root))];
    while let Some((name, module)) = pending.pop() {
        if out.iter().any(|(_, m)| Rc::ptr_eq(m, &module)) {
            continue;
        }
        let children: Vec<(String, Rc<Instance>)> = module
            .module
            .borrow()
            .as_ref()
            .map(|s| {
                s.modules
                    .iter()
                    .filter_map(|(n, m)| m.clone().map(|m| (n.clone(), m)))
                    .collect()
            })
            .unwrap_or_default();
        out.push((name.clone(), module));
        for (child, m) in children.into_iter().rev() {
            let full = if name.is_empty() {
                child
            } else {
                format!("{name}.{child}")
            };
            pending.push((full, m));
        }
    }
    out
}

/// The tensors of one registry of every module (`parameters` or `buffers`), by full name,
/// each object once.
fn walk_tensors(
    root: &Rc<Instance>,
    prefix: &str,
    recurse: bool,
    buffers: bool,
) -> Vec<(String, TensorRef)> {
    let modules = if recurse {
        walk_modules(root, prefix)
    } else {
        vec![(prefix.to_string(), Rc::clone(root))]
    };
    let mut out: Vec<(String, TensorRef)> = Vec::new();
    for (name, module) in modules {
        let state = module.module.borrow();
        let Some(state) = state.as_ref() else {
            continue;
        };
        let entries = if buffers {
            &state.buffers
        } else {
            &state.parameters
        };
        for (key, tensor) in entries {
            let Some(tensor) = tensor else { continue };
            if out.iter().any(|(_, t)| Rc::ptr_eq(t, tensor)) {
                continue;
            }
            let full = if name.is_empty() {
                key.clone()
            } else {
                format!("{name}.{key}")
            };
            out.push((full, Rc::clone(tensor)));
        }
    }
    out
}

/// Named values as a list of `(name, value)` tuples.
fn pairs(items: Vec<(String, Value)>) -> Value {
    Value::List(
        items
            .into_iter()
            .map(|(n, v)| Value::Tuple(vec![Value::Str(n), v]))
            .collect(),
    )
}

fn recurse_flag(ev: &mut Evaluator, args: &[(String, Value)]) -> R<bool> {
    ev.truthy(&arg(args, "recurse"))
}

pub(super) fn prefix_of(args: &[(String, Value)]) -> String {
    match arg(args, "prefix") {
        Value::Str(s) => s,
        _ => String::new(),
    }
}

/// `parameters`, `named_parameters`, `buffers`, `named_buffers`: one registry of every
/// module (or of this one, `recurse=False`), each tensor once, bare or with its full name.
fn tensor_listing(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    (pos, kw): (Vec<Value>, Vec<(String, Value)>),
    buffers: bool,
    named: bool,
) -> R<Value> {
    let what = match (named, buffers) {
        (false, false) => "Module.parameters",
        (true, false) => "Module.named_parameters",
        (false, true) => "Module.buffers",
        (true, true) => "Module.named_buffers",
    };
    let signature = if named {
        "prefix='', recurse=True, remove_duplicate=True"
    } else {
        "recurse=True"
    };
    let args = bind_python(signature, what, &pos, &kw)?;
    let recurse = recurse_flag(ev, &args)?;
    let tensors = walk_tensors(o, &prefix_of(&args), recurse, buffers);
    Ok(if named {
        pairs(
            tensors
                .into_iter()
                .map(|(n, t)| (n, Value::Tensor(t)))
                .collect(),
        )
    } else {
        Value::List(tensors.into_iter().map(|(_, t)| Value::Tensor(t)).collect())
    })
}

/// The direct submodules, each object once.
fn direct_children(o: &Rc<Instance>) -> Vec<(String, Rc<Instance>)> {
    let mut out: Vec<(String, Rc<Instance>)> = Vec::new();
    if let Some(state) = o.module.borrow().as_ref() {
        for (name, m) in &state.modules {
            if let Some(m) = m {
                if !out.iter().any(|(_, seen)| Rc::ptr_eq(seen, m)) {
                    out.push((name.clone(), Rc::clone(m)));
                }
            }
        }
    }
    out
}

fn children(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_python("", "Module.children", &pos, &kw)?;
    Ok(Value::List(
        direct_children(o)
            .into_iter()
            .map(|(_, m)| Value::Instance(m))
            .collect(),
    ))
}

fn named_children(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_python("", "Module.named_children", &pos, &kw)?;
    Ok(pairs(
        direct_children(o)
            .into_iter()
            .map(|(n, m)| (n, Value::Instance(m)))
            .collect(),
    ))
}

fn modules(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_python("", "Module.modules", &pos, &kw)?;
    Ok(Value::List(
        walk_modules(o, "")
            .into_iter()
            .map(|(_, m)| Value::Instance(m))
            .collect(),
    ))
}

fn named_modules(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "memo=None, prefix='', remove_duplicate=True",
        "Module.named_modules",
        &pos,
        &kw,
    )?;
    Ok(pairs(
        walk_modules(o, &prefix_of(&args))
            .into_iter()
            .map(|(n, m)| (n, Value::Instance(m)))
            .collect(),
    ))
}

/// Sets `training` on a module and every submodule; returns the module.
fn set_training(_: &mut Evaluator, o: &Rc<Instance>, mode: bool) -> R<Value> {
    for (_, m) in walk_modules(o, "") {
        if let Some(state) = m.module.borrow_mut().as_mut() {
            state.training = mode;
        }
    }
    Ok(Value::Instance(Rc::clone(o)))
}

fn train(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("mode=True", "Module.train", &pos, &kw)?;
    let Value::Bool(mode) = arg(&args, "mode") else {
        return Err(ScriptError::Value(
            "training mode is expected to be boolean".into(),
        ));
    };
    set_training(ev, o, mode)
}

fn requires_grad(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("requires_grad=True", "Module.requires_grad_", &pos, &kw)?;
    let flag = arg(&args, "requires_grad");
    for (_, p) in walk_tensors(o, "", true, false) {
        let method = Value::Method(Box::new(Value::Tensor(p)), "requires_grad_".into());
        ev.call(method, vec![flag.clone()], vec![])?;
    }
    Ok(Value::Instance(Rc::clone(o)))
}

fn zero_grad(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("set_to_none=True", "Module.zero_grad", &pos, &kw)?;
    let to_none = ev.truthy(&arg(&args, "set_to_none"))?;
    for (_, p) in walk_tensors(o, "", true, false) {
        ev.zero_tensor_grad(&p, to_none)?;
    }
    Ok(Value::None)
}

impl Evaluator {
    /// Clears a tensor's `.grad`: to `None`, or zeroed in place (detached from any graph),
    /// as `Module.zero_grad` and `Optimizer.zero_grad` do.
    pub(crate) fn zero_tensor_grad(&mut self, p: &TensorRef, to_none: bool) -> R<()> {
        if to_none && p.try_borrow().is_ok_and(|p| p.grad.is_some()) {
            self.note_grads_dropped();
        }
        let grad = p.borrow().grad.clone();
        let Some(grad) = grad else { return Ok(()) };
        if to_none {
            p.borrow_mut().grad = None;
            return Ok(());
        }
        {
            let mut g = grad.borrow_mut();
            g.grad_fn = None;
            g.requires_grad = false;
        }
        let method = Value::Method(Box::new(Value::Tensor(grad)), "zero_".into());
        self.call(method, vec![], vec![])?;
        Ok(())
    }
}

fn apply(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("fn", "Module.apply", &pos, &kw)?;
    let function = arg(&args, "fn");
    // Children first, depth first; then the module itself.
    let order: Vec<Rc<Instance>> = walk_modules(o, "")
        .into_iter()
        .rev()
        .map(|(_, m)| m)
        .collect();
    for module in post_order(o, order) {
        ev.count_step()?;
        ev.call(function.clone(), vec![Value::Instance(module)], vec![])?;
    }
    Ok(Value::Instance(Rc::clone(o)))
}

/// The modules under `root` in the order `apply` visits them: each module's children (in
/// order, recursively) before the module.
fn post_order(root: &Rc<Instance>, _known: Vec<Rc<Instance>>) -> Vec<Rc<Instance>> {
    let mut out = Vec::new();
    let mut stack = vec![(Rc::clone(root), false)];
    while let Some((module, expanded)) = stack.pop() {
        if expanded {
            out.push(module);
            continue;
        }
        stack.push((Rc::clone(&module), true));
        for (_, child) in direct_children(&module).into_iter().rev() {
            stack.push((child, false));
        }
        if out.len() + stack.len() > 2_000_000 {
            break;
        }
    }
    out
}
