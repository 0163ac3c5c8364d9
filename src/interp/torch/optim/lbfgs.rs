//! `torch.optim.LBFGS` (`torch/optim/lbfgs.py`): the constructor (one parameter group,
//! `max_eval` from `max_iter`), and `step(closure)`: the closure under `enable_grad`, the
//! flat gradient (`torch.cat` of the gradients' views), the two-loop recursion over the
//! history `old_dirs`/`old_stps`/`ro` (with `al` kept in the state), the fixed step or the
//! strong Wolfe line search (`_strong_wolfe`, `_cubic_interpolate`), and the global state
//! kept on the first parameter. Every Python number of the algorithm stays what Python holds:
//! a float where PyTorch's code has one, a 0-dim float32 tensor where it has a tensor
//! (`gtd`, `ys`, `ro[i]`, often `t`), and the arithmetic between them runs through the
//! evaluator's operators, so that roundings, results and allocations are PyTorch's; the
//! locals are released where Python releases them.

use std::rc::Rc;

use crate::core::tensor::{MemoryFormat, ScriptError};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::optimizer::{has_attr, option, param_state, setup, Entries};
use crate::interp::torch::optim::sgd::check_tensor_lr;
use crate::interp::torch::optim::{
    attr, call_method, call_torch, check_at_least_zero, get, group_params, number, param_groups,
    put, set_attr, with_grad,
};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `LBFGS`.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    class_methods: &[],
    name: "LBFGS",
    path: "torch.optim.lbfgs",
    base: Some("Optimizer"),
    init: Some(init),
    forward: None,
    extra_repr: None,
    methods: &[("step", |ev, o, pos, kw| {
        let args = bind_python("closure", "LBFGS.step", &pos, &kw)?;
        with_grad(ev, false, |ev| step(ev, o, arg(&args, "closure")))
    })],
}];

fn init(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<()> {
    let args = bind_python(
        "params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-07, tolerance_change=1e-09, history_size=100, line_search_fn=None, *, maximize=False",
        "LBFGS.__init__",
        &pos,
        &kw,
    )?;
    let lr = arg(&args, "lr");
    check_tensor_lr(&lr)?;
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    let max_iter = arg(&args, "max_iter");
    let mut max_eval = arg(&args, "max_eval");
    if matches!(max_eval, Value::None) {
        let times = ev.binary(BinOp::Mul, max_iter.clone(), Value::Int(5))?;
        max_eval = ev.binary(BinOp::FloorDiv, times, Value::Int(4))?;
    }
    let defaults: Entries = [
        ("lr", lr),
        ("max_iter", max_iter),
        ("max_eval", max_eval),
        ("tolerance_grad", arg(&args, "tolerance_grad")),
        ("tolerance_change", arg(&args, "tolerance_change")),
        ("history_size", arg(&args, "history_size")),
        ("line_search_fn", arg(&args, "line_search_fn")),
        ("maximize", arg(&args, "maximize")),
    ]
    .into_iter()
    .map(|(k, v)| (Value::Str(k.into()), v))
    .collect();
    setup(ev, o, arg(&args, "params"), defaults)?;
    let groups = param_groups(o);
    if groups.len() != 1 {
        return Err(ScriptError::Value(
            "LBFGS doesn't support per-parameter options (parameter groups)".into(),
        ));
    }
    set_attr(o, "_params", get(&groups[0], "params"));
    set_attr(o, "_numel_cache", Value::None);
    Ok(())
}

/// Python's `a <op> b`.
fn op(ev: &mut Evaluator, a: &Value, op: BinOp, b: &Value) -> R<Value> {
    ev.binary(op, a.clone(), b.clone())
}

/// Python's `bool(a <op> b)`.
fn holds(ev: &mut Evaluator, a: &Value, cmp: BinOp, b: &Value) -> R<bool> {
    let result = ev.binary(cmp, a.clone(), b.clone())?;
    ev.truthy(&result)
}

/// Python's `abs(x)` (`Tensor.__abs__` for a tensor).
fn abs(ev: &mut Evaluator, x: &Value) -> R<Value> {
    match x {
        Value::Tensor(_) => call_method(ev, x, "abs", vec![], vec![]),
        Value::Int(i) => Ok(Value::Int(i.abs())),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        other => Err(ScriptError::Type(format!(
            "bad operand type for abs(): '{}'",
            other.type_name()
        ))),
    }
}

/// Python's `min(a, b)`: `a` unless `b < a`.
fn min2(ev: &mut Evaluator, a: &Value, b: &Value) -> R<Value> {
    Ok(if holds(ev, b, BinOp::Lt, a)? { b } else { a }.clone())
}

/// Python's `max(a, b)`: `a` unless `b > a`.
fn max2(ev: &mut Evaluator, a: &Value, b: &Value) -> R<Value> {
    Ok(if holds(ev, b, BinOp::Gt, a)? { b } else { a }.clone())
}

/// Python's `float(x)`.
fn float(ev: &mut Evaluator, x: &Value) -> R<f64> {
    number(ev, x)
}

/// A `Scalar` argument as the argument parser makes it: a 0-dim tensor's value
/// (`alpha=t` where `t` is a tensor), anything else as it is.
fn scalar(ev: &mut Evaluator, x: Value) -> R<Value> {
    match x {
        Value::Tensor(_) => call_method(ev, &x, "item", vec![], vec![]),
        other => Ok(other),
    }
}

/// `x.method(*args)`.
fn m(ev: &mut Evaluator, x: &Value, method: &str, args: Vec<Value>) -> R<Value> {
    call_method(ev, x, method, args, vec![])
}

/// `x.clone(memory_format=torch.contiguous_format)`.
fn clone(ev: &mut Evaluator, x: &Value) -> R<Value> {
    call_method(
        ev,
        x,
        "clone",
        vec![],
        vec![(
            "memory_format",
            Value::MemoryFormat(MemoryFormat::Contiguous),
        )],
    )
}

/// What the step works on: the parameters, the closure and `maximize`.
struct Problem {
    params: Vec<TensorRef>,
    closure: Value,
    maximize: bool,
}

impl Problem {
    /// `closure()` under `enable_grad`.
    fn evaluate(&self, ev: &mut Evaluator) -> R<Value> {
        with_grad(ev, true, |ev| ev.call(self.closure.clone(), vec![], vec![]))
    }

    /// `_gather_flat_grad()`: the gradients' views (zeros for a parameter without one)
    /// concatenated, negated under `maximize`.
    fn flat_grad(&self, ev: &mut Evaluator) -> R<Value> {
        let mut views = Vec::with_capacity(self.params.len());
        for p in &self.params {
            let param = Value::Tensor(Rc::clone(p));
            let grad = p.borrow().grad.clone();
            let view = match grad {
                None => {
                    let numel = Value::Int(p.borrow().tensor.numel());
                    let fresh = m(ev, &param, "new", vec![numel])?;
                    m(ev, &fresh, "zero_", vec![])?
                }
                Some(g) => m(ev, &Value::Tensor(g), "view", vec![Value::Int(-1)])?,
            };
            views.push(view);
        }
        let flat = call_torch(ev, "cat", vec![Value::List(views), Value::Int(0)], vec![])?;
        if self.maximize {
            m(ev, &flat, "neg_", vec![])?;
        }
        Ok(flat)
    }

    /// `_add_grad(step_size, update)`: each parameter moved by its slice of `update`.
    fn add_grad(&self, ev: &mut Evaluator, step_size: &Value, update: &Value) -> R<()> {
        let mut offset = 0i64;
        for p in &self.params {
            let param = Value::Tensor(Rc::clone(p));
            let numel = p.borrow().tensor.numel();
            let slice = m(
                ev,
                update,
                "narrow",
                vec![Value::Int(0), Value::Int(offset), Value::Int(numel)],
            )?;
            let view = m(ev, &slice, "view_as", vec![param.clone()])?;
            let alpha = scalar(ev, step_size.clone())?;
            call_method(ev, &param, "add_", vec![view], vec![("alpha", alpha)])?;
            offset += numel;
        }
        Ok(())
    }

    /// `_clone_param()`.
    fn clone_params(&self, ev: &mut Evaluator) -> R<Vec<Value>> {
        self.params
            .iter()
            .map(|p| clone(ev, &Value::Tensor(Rc::clone(p))))
            .collect()
    }

    /// `_directional_evaluate(closure, x, t, d)`: the loss and flat gradient at `x + t d`,
    /// the parameters set back to `x`.
    fn directional(
        &self,
        ev: &mut Evaluator,
        x: &[Value],
        t: &Value,
        d: &Value,
    ) -> R<(f64, Value)> {
        self.add_grad(ev, t, d)?;
        let value = self.evaluate(ev)?;
        let mut loss = float(ev, &value)?;
        drop(value);
        if self.maximize {
            loss = -loss;
        }
        let flat = self.flat_grad(ev)?;
        for (p, data) in self.params.iter().zip(x) {
            m(
                ev,
                &Value::Tensor(Rc::clone(p)),
                "copy_",
                vec![data.clone()],
            )?;
        }
        Ok((loss, flat))
    }
}

/// Adds `delta` to the int `key` of the first parameter's state (in place, as
/// `state[key] += delta` does on the dict the optimizer keeps).
fn bump(o: &Rc<Instance>, first: &TensorRef, key: &str, delta: i64) {
    update_state(o, first, |entries| {
        let now = match get(entries, key) {
            Value::Int(i) => i,
            _ => 0,
        };
        put(entries, key, Value::Int(now + delta));
    });
}

/// Changes the first parameter's state dict in place (creating it, as the `defaultdict`
/// does).
fn update_state(o: &Rc<Instance>, first: &TensorRef, f: impl FnOnce(&mut Entries)) {
    let mut state = match attr(o, "state") {
        Value::Dict(entries) => entries,
        _ => Vec::new(),
    };
    let mut entries = param_state(&state, first).unwrap_or_default();
    f(&mut entries);
    crate::interp::torch::optim::optimizer::set_param_state(&mut state, first, entries);
    set_attr(o, "state", Value::Dict(state));
}

/// The state's lists (`old_dirs`, `old_stps`, `ro`, `al`): Python's are the very lists the
/// state holds, so they are taken out of it for the step and put back whatever happens.
#[derive(Default)]
struct History {
    old_dirs: Option<Vec<Value>>,
    old_stps: Option<Vec<Value>>,
    ro: Option<Vec<Value>>,
    al: Option<Vec<Value>>,
}

/// A list entry of the state, taken out of it.
fn take_list(entries: &mut Entries, key: &str) -> Option<Vec<Value>> {
    let at = entries
        .iter()
        .position(|(k, _)| matches!(k, Value::Str(s) if s == key))?;
    match std::mem::replace(&mut entries[at].1, Value::None) {
        Value::List(items) => Some(items),
        other => {
            entries[at].1 = other;
            None
        }
    }
}

/// `LBFGS.step(closure)`.
fn step(ev: &mut Evaluator, o: &Rc<Instance>, closure: Value) -> R<Value> {
    let groups = param_groups(o);
    if groups.len() != 1 {
        return Err(ScriptError::Other {
            class: "AssertionError".into(),
            message: format!("Expected exactly one param_group, but got {}", groups.len()),
        });
    }
    let params = match attr(o, "_params") {
        Value::List(_) | Value::Tuple(_) => {
            group_params(&[(Value::Str("params".into()), attr(o, "_params"))])
        }
        _ => group_params(&groups[0]),
    };
    if has_attr(o, "_opt_called") {
        set_attr(o, "_opt_called", Value::Bool(true));
    }
    let Some(first) = params.first().cloned() else {
        return with_grad(ev, true, |ev| ev.call(closure, vec![], vec![]));
    };
    let group = &groups[0];
    let maximize = match get(group, "maximize") {
        Value::None => false,
        v => ev.truthy(&v)?,
    };
    let problem = Problem {
        params,
        closure,
        maximize,
    };
    let mut history = History::default();
    update_state(o, &first, |entries| {
        for key in ["func_evals", "n_iter"] {
            if !crate::interp::torch::optim::has(entries, key) {
                put(entries, key, Value::Int(0));
            }
        }
        history.old_dirs = take_list(entries, "old_dirs");
        history.old_stps = take_list(entries, "old_stps");
        history.ro = take_list(entries, "ro");
        history.al = take_list(entries, "al");
    });
    let result = run(ev, o, &first, group, &problem, &mut history);
    update_state(o, &first, |entries| {
        for (key, list) in [
            ("old_dirs", history.old_dirs),
            ("old_stps", history.old_stps),
            ("ro", history.ro),
            ("al", history.al),
        ] {
            if let Some(items) = list {
                put(entries, key, Value::List(items));
            }
        }
    });
    result
}

/// The body of `step` after the state's lists are taken out.
fn run(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    first: &TensorRef,
    group: &[(Value, Value)],
    problem: &Problem,
    history: &mut History,
) -> R<Value> {
    let lr = match option(group, "lr")? {
        Value::Tensor(t) if !t.borrow().tensor.shape().is_empty() => {
            m(ev, &Value::Tensor(t), "squeeze", vec![])?
        }
        lr => lr,
    };
    let max_iter = option(group, "max_iter")?;
    let max_eval = option(group, "max_eval")?;
    let tolerance_grad = option(group, "tolerance_grad")?;
    let tolerance_change = option(group, "tolerance_change")?;
    let line_search_fn = option(group, "line_search_fn")?;
    let history_size = option(group, "history_size")?;
    let maximize = problem.maximize;

    let orig_loss = problem.evaluate(ev)?;
    let mut loss = float(ev, &orig_loss)?;
    if maximize {
        loss = -loss;
    }
    let mut current_evals = Value::Int(1);
    bump(o, first, "func_evals", 1);

    let mut flat_grad = problem.flat_grad(ev)?;
    // Python's `opt_cond` is the bool tensor of the comparison, alive until rebound.
    let (mut opt_cond, mut _opt_cond_held) = below(ev, &flat_grad, &tolerance_grad)?;
    if opt_cond {
        return Ok(orig_loss);
    }

    let saved = param_state(
        &match attr(o, "state") {
            Value::Dict(e) => e,
            _ => Vec::new(),
        },
        first,
    )
    .unwrap_or_default();
    let mut d = get(&saved, "d");
    let mut t = get(&saved, "t");
    let mut h_diag = get(&saved, "H_diag");
    let mut prev_flat_grad = get(&saved, "prev_flat_grad");
    let mut prev_loss = get(&saved, "prev_loss");
    drop(saved);
    // Python's locals of the loop body, released when rebound (or when `step` returns).
    let (mut y, mut s, mut ys, mut q, mut be_i) = (
        Value::None,
        Value::None,
        Value::None,
        Value::None,
        Value::None,
    );
    let mut gtd;
    let mut x_init: Vec<Value> = Vec::new();

    let mut n_iter = 0i64;
    while holds(ev, &Value::Int(n_iter), BinOp::Lt, &max_iter)? {
        ev.count_step()?;
        n_iter += 1;
        bump(o, first, "n_iter", 1);
        let state_iter = param_state(
            &match attr(o, "state") {
                Value::Dict(e) => e,
                _ => Vec::new(),
            },
            first,
        )
        .map(|e| get(&e, "n_iter"))
        .unwrap_or(Value::None);
        let first_iter = matches!(state_iter, Value::Int(1));

        // compute the gradient descent direction
        if first_iter {
            d = m(ev, &flat_grad, "neg", vec![])?;
            history.old_dirs = Some(Vec::new());
            history.old_stps = Some(Vec::new());
            history.ro = Some(Vec::new());
            h_diag = Value::Int(1);
        } else {
            y = m(ev, &flat_grad, "sub", vec![prev_flat_grad.clone()])?;
            s = m(ev, &d, "mul", vec![t.clone()])?;
            ys = m(ev, &y, "dot", vec![s.clone()])?;
            if holds(ev, &ys, BinOp::Gt, &Value::Float(1e-10))? {
                let len = history.old_dirs.as_ref().map_or(0, Vec::len) as i64;
                if holds(ev, &Value::Int(len), BinOp::Eq, &history_size)? {
                    for list in [
                        &mut history.old_dirs,
                        &mut history.old_stps,
                        &mut history.ro,
                    ] {
                        match list {
                            Some(items) if !items.is_empty() => drop(items.remove(0)),
                            _ => return Err(ScriptError::Index("pop from empty list".into())),
                        }
                    }
                }
                let reciprocal = op(ev, &Value::Float(1.0), BinOp::Div, &ys)?;
                push(&mut history.old_dirs, y.clone())?;
                push(&mut history.old_stps, s.clone())?;
                push(&mut history.ro, reciprocal)?;
                let yy = m(ev, &y, "dot", vec![y.clone()])?;
                h_diag = op(ev, &ys, BinOp::Div, &yy)?;
            }
            let old_dirs = history.old_dirs.clone().unwrap_or_default();
            let old_stps = history.old_stps.clone().unwrap_or_default();
            let ro = history.ro.clone().unwrap_or_default();
            let num_old = old_dirs.len();
            if history.al.is_none() {
                let size = match &history_size {
                    Value::Int(n) => usize::try_from(*n).unwrap_or(0),
                    other => {
                        return Err(ScriptError::Type(format!(
                            "can't multiply sequence by non-int of type '{}'",
                            other.type_name()
                        )))
                    }
                };
                history.al = Some(vec![Value::None; size]);
            }
            q = m(ev, &flat_grad, "neg", vec![])?;
            for i in (0..num_old).rev() {
                let dot = m(ev, &old_stps[i], "dot", vec![q.clone()])?;
                let al_i = op(ev, &dot, BinOp::Mul, &ro[i])?;
                drop(dot);
                set_al(history, i, al_i.clone())?;
                let negated = ev.unary(crate::lang::ast::UnaryOp::Neg, al_i)?;
                let alpha = scalar(ev, negated)?;
                call_method(
                    ev,
                    &q,
                    "add_",
                    vec![old_dirs[i].clone()],
                    vec![("alpha", alpha)],
                )?;
            }
            d = call_torch(ev, "mul", vec![q.clone(), h_diag.clone()], vec![])?;
            let r = d.clone();
            for i in 0..num_old {
                let dot = m(ev, &old_dirs[i], "dot", vec![r.clone()])?;
                be_i = op(ev, &dot, BinOp::Mul, &ro[i])?;
                drop(dot);
                let al_i = history
                    .al
                    .as_ref()
                    .and_then(|a| a.get(i).cloned())
                    .unwrap_or(Value::None);
                let difference = op(ev, &al_i, BinOp::Sub, &be_i)?;
                let alpha = scalar(ev, difference)?;
                call_method(
                    ev,
                    &r,
                    "add_",
                    vec![old_stps[i].clone()],
                    vec![("alpha", alpha)],
                )?;
            }
        }

        if matches!(prev_flat_grad, Value::None) {
            prev_flat_grad = clone(ev, &flat_grad)?;
        } else {
            m(ev, &prev_flat_grad, "copy_", vec![flat_grad.clone()])?;
        }
        prev_loss = Value::Float(loss);

        // compute the step length
        t = if first_iter {
            let total = {
                let absolute = m(ev, &flat_grad, "abs", vec![])?;
                m(ev, &absolute, "sum", vec![])?
            };
            let inverse = op(ev, &Value::Float(1.0), BinOp::Div, &total)?;
            drop(total);
            let smaller = min2(ev, &Value::Float(1.0), &inverse)?;
            drop(inverse);
            op(ev, &smaller, BinOp::Mul, &lr)?
        } else {
            lr.clone()
        };

        gtd = m(ev, &flat_grad, "dot", vec![d.clone()])?;
        let threshold = ev.unary(crate::lang::ast::UnaryOp::Neg, tolerance_change.clone())?;
        if holds(ev, &gtd, BinOp::Gt, &threshold)? {
            break;
        }

        let mut ls_func_evals = Value::Int(0);
        if !matches!(line_search_fn, Value::None) {
            if !matches!(&line_search_fn, Value::Str(s) if s == "strong_wolfe") {
                return Err(ScriptError::Runtime(
                    "only 'strong_wolfe' is supported".into(),
                ));
            }
            x_init = problem.clone_params(ev)?;
            let max_ls = op(ev, &max_eval, BinOp::Sub, &current_evals)?;
            let found = strong_wolfe(
                ev,
                problem,
                &x_init,
                t.clone(),
                &d,
                loss,
                &flat_grad,
                &gtd,
                &tolerance_change,
                &max_ls,
            )?;
            loss = found.0;
            flat_grad = found.1;
            t = found.2;
            ls_func_evals = Value::Int(found.3);
            problem.add_grad(ev, &t, &d)?;
            (opt_cond, _opt_cond_held) = below(ev, &flat_grad, &tolerance_grad)?;
        } else {
            problem.add_grad(ev, &t, &d)?;
            if !holds(ev, &Value::Int(n_iter), BinOp::Eq, &max_iter)? {
                let value = problem.evaluate(ev)?;
                loss = float(ev, &value)?;
                drop(value);
                if maximize {
                    loss = -loss;
                }
                flat_grad = problem.flat_grad(ev)?;
                (opt_cond, _opt_cond_held) = below(ev, &flat_grad, &tolerance_grad)?;
                ls_func_evals = Value::Int(1);
            }
        }

        current_evals = op(ev, &current_evals, BinOp::Add, &ls_func_evals)?;
        if let Value::Int(n) = ls_func_evals {
            bump(o, first, "func_evals", n);
        }

        // check the conditions
        if holds(ev, &Value::Int(n_iter), BinOp::Eq, &max_iter)? {
            break;
        }
        if holds(ev, &current_evals, BinOp::Ge, &max_eval)? {
            break;
        }
        if opt_cond {
            break;
        }
        let moved = {
            let step = m(ev, &d, "mul", vec![t.clone()])?;
            let absolute = m(ev, &step, "abs", vec![])?;
            drop(step);
            m(ev, &absolute, "max", vec![])?
        };
        if holds(ev, &moved, BinOp::Le, &tolerance_change)? {
            break;
        }
        drop(moved);
        let change = (loss - number(ev, &prev_loss)?).abs();
        if holds(ev, &Value::Float(change), BinOp::Lt, &tolerance_change)? {
            break;
        }
    }

    update_state(o, first, |entries| {
        put(entries, "d", d);
        put(entries, "t", t);
        if let Some(items) = history.old_dirs.take() {
            put(entries, "old_dirs", Value::List(items));
        }
        if let Some(items) = history.old_stps.take() {
            put(entries, "old_stps", Value::List(items));
        }
        if let Some(items) = history.ro.take() {
            put(entries, "ro", Value::List(items));
        }
        put(entries, "H_diag", h_diag);
        put(entries, "prev_flat_grad", prev_flat_grad);
        put(entries, "prev_loss", prev_loss);
    });
    drop((y, s, ys, q, be_i, x_init, flat_grad));
    Ok(orig_loss)
}

/// `flat_grad.abs().max() <= tolerance`: its truth, and the value itself.
fn below(ev: &mut Evaluator, flat_grad: &Value, tolerance: &Value) -> R<(bool, Value)> {
    let largest = {
        let absolute = m(ev, flat_grad, "abs", vec![])?;
        m(ev, &absolute, "max", vec![])?
    };
    let result = ev.binary(BinOp::Le, largest.clone(), tolerance.clone())?;
    drop(largest);
    Ok((ev.truthy(&result)?, result))
}

/// `list.append(value)` on one of the history lists.
fn push(list: &mut Option<Vec<Value>>, value: Value) -> R<()> {
    match list {
        Some(items) => {
            items.push(value);
            Ok(())
        }
        None => Err(ScriptError::Attribute(
            "'NoneType' object has no attribute 'append'".into(),
        )),
    }
}

/// `al[i] = value`.
fn set_al(history: &mut History, i: usize, value: Value) -> R<()> {
    match history.al.as_mut().and_then(|a| a.get_mut(i)) {
        Some(slot) => {
            *slot = value;
            Ok(())
        }
        None => Err(ScriptError::Index(
            "list assignment index out of range".into(),
        )),
    }
}

/// `_cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds)`: the minimum of the cubic through
/// two points with their derivatives, clamped to the bounds.
#[allow(clippy::too_many_arguments)]
fn cubic_interpolate(
    ev: &mut Evaluator,
    x1: &Value,
    f1: &Value,
    g1: &Value,
    x2: &Value,
    f2: &Value,
    g2: &Value,
    bounds: Option<(Value, Value)>,
) -> R<Value> {
    let (xmin_bound, xmax_bound) = match bounds {
        Some(b) => b,
        None if holds(ev, x1, BinOp::Le, x2)? => (x1.clone(), x2.clone()),
        None => (x2.clone(), x1.clone()),
    };
    // d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    let d1 = {
        let sum = op(ev, g1, BinOp::Add, g2)?;
        let df = op(ev, f1, BinOp::Sub, f2)?;
        let scaled = op(ev, &Value::Int(3), BinOp::Mul, &df)?;
        let dx = op(ev, x1, BinOp::Sub, x2)?;
        let ratio = op(ev, &scaled, BinOp::Div, &dx)?;
        op(ev, &sum, BinOp::Sub, &ratio)?
    };
    // d2_square = d1**2 - g1 * g2
    let d2_square = {
        let squared = op(ev, &d1, BinOp::Pow, &Value::Int(2))?;
        let product = op(ev, g1, BinOp::Mul, g2)?;
        op(ev, &squared, BinOp::Sub, &product)?
    };
    if holds(ev, &d2_square, BinOp::Ge, &Value::Int(0))? {
        let d2 = m(ev, &d2_square, "sqrt", vec![])?;
        // x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2)), or the mirror
        let (xa, xb, ga, gb) = if holds(ev, x1, BinOp::Le, x2)? {
            (x2, x1, g2, g1)
        } else {
            (x1, x2, g1, g2)
        };
        let min_pos = {
            let gap = op(ev, xa, BinOp::Sub, xb)?;
            let top = {
                let partial = op(ev, ga, BinOp::Add, &d2)?;
                op(ev, &partial, BinOp::Sub, &d1)?
            };
            let bottom = {
                let partial = op(ev, ga, BinOp::Sub, gb)?;
                let twice = op(ev, &Value::Int(2), BinOp::Mul, &d2)?;
                op(ev, &partial, BinOp::Add, &twice)?
            };
            let ratio = op(ev, &top, BinOp::Div, &bottom)?;
            drop((top, bottom));
            let shift = op(ev, &gap, BinOp::Mul, &ratio)?;
            drop((gap, ratio));
            op(ev, xa, BinOp::Sub, &shift)?
        };
        let lower = max2(ev, &min_pos, &xmin_bound)?;
        min2(ev, &lower, &xmax_bound)
    } else {
        let sum = op(ev, &xmin_bound, BinOp::Add, &xmax_bound)?;
        op(ev, &sum, BinOp::Div, &Value::Float(2.0))
    }
}

/// `_strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change,
/// max_ls)`: the loss, flat gradient, step and evaluation count it settles on.
#[allow(clippy::too_many_arguments)]
fn strong_wolfe(
    ev: &mut Evaluator,
    problem: &Problem,
    x: &[Value],
    mut t: Value,
    d: &Value,
    f: f64,
    g: &Value,
    gtd: &Value,
    tolerance_change: &Value,
    max_ls: &Value,
) -> R<(f64, Value, Value, i64)> {
    let (c1, c2) = (Value::Float(1e-4), Value::Float(0.9));
    let d_norm = {
        let absolute = m(ev, d, "abs", vec![])?;
        m(ev, &absolute, "max", vec![])?
    };
    let g = clone(ev, g)?;
    let (mut f_new, mut g_new) = problem.directional(ev, x, &t, d)?;
    let mut ls_func_evals = 1i64;
    let mut gtd_new = m(ev, &g_new, "dot", vec![d.clone()])?;

    let fv = Value::Float(f);
    // f + c1 * t * gtd
    let armijo = |ev: &mut Evaluator, t: &Value| -> R<Value> {
        let ct = op(ev, &c1, BinOp::Mul, t)?;
        let ctg = op(ev, &ct, BinOp::Mul, gtd)?;
        op(ev, &fv, BinOp::Add, &ctg)
    };
    // -c2 * gtd
    let curvature = |ev: &mut Evaluator| -> R<Value> {
        let neg = ev.unary(crate::lang::ast::UnaryOp::Neg, c2.clone())?;
        op(ev, &neg, BinOp::Mul, gtd)
    };

    let (mut t_prev, mut f_prev, mut g_prev, mut gtd_prev) =
        (Value::Int(0), Value::Float(f), g.clone(), gtd.clone());
    let mut done = false;
    let mut ls_iter = 0i64;
    let mut bracket: Option<Vec<Value>> = None;
    let mut bracket_f: Vec<Value> = Vec::new();
    let mut bracket_g: Vec<Value> = Vec::new();
    let mut bracket_gtd: Option<Vec<Value>> = None;
    while holds(ev, &Value::Int(ls_iter), BinOp::Lt, max_ls)? {
        ev.count_step()?;
        let bound = armijo(ev, &t)?;
        let rises = holds(ev, &Value::Float(f_new), BinOp::Gt, &bound)?
            || (ls_iter > 1 && f_new >= number(ev, &f_prev)?);
        drop(bound);
        if rises {
            bracket = Some(vec![t_prev.clone(), t.clone()]);
            bracket_f = vec![f_prev.clone(), Value::Float(f_new)];
            bracket_g = vec![g_prev.clone(), clone(ev, &g_new)?];
            bracket_gtd = Some(vec![gtd_prev.clone(), gtd_new.clone()]);
            break;
        }
        let slope = abs(ev, &gtd_new)?;
        let limit = curvature(ev)?;
        if holds(ev, &slope, BinOp::Le, &limit)? {
            bracket = Some(vec![t.clone()]);
            bracket_f = vec![Value::Float(f_new)];
            bracket_g = vec![g_new.clone()];
            done = true;
            break;
        }
        drop((slope, limit));
        if holds(ev, &gtd_new, BinOp::Ge, &Value::Int(0))? {
            bracket = Some(vec![t_prev.clone(), t.clone()]);
            bracket_f = vec![f_prev.clone(), Value::Float(f_new)];
            bracket_g = vec![g_prev.clone(), clone(ev, &g_new)?];
            bracket_gtd = Some(vec![gtd_prev.clone(), gtd_new.clone()]);
            break;
        }
        // interpolate
        let min_step = {
            let gap = op(ev, &t, BinOp::Sub, &t_prev)?;
            let part = op(ev, &Value::Float(0.01), BinOp::Mul, &gap)?;
            op(ev, &t, BinOp::Add, &part)?
        };
        let max_step = op(ev, &t, BinOp::Mul, &Value::Int(10))?;
        let tmp = t.clone();
        t = cubic_interpolate(
            ev,
            &t_prev,
            &f_prev,
            &gtd_prev,
            &tmp,
            &Value::Float(f_new),
            &gtd_new,
            Some((min_step, max_step)),
        )?;
        // next step
        t_prev = tmp;
        f_prev = Value::Float(f_new);
        g_prev = clone(ev, &g_new)?;
        gtd_prev = gtd_new.clone();
        (f_new, g_new) = problem.directional(ev, x, &t, d)?;
        ls_func_evals += 1;
        gtd_new = m(ev, &g_new, "dot", vec![d.clone()])?;
        ls_iter += 1;
    }

    if holds(ev, &Value::Int(ls_iter), BinOp::Eq, max_ls)? {
        bracket = Some(vec![Value::Int(0), t.clone()]);
        bracket_f = vec![Value::Float(f), Value::Float(f_new)];
        bracket_g = vec![g.clone(), g_new.clone()];
    }
    let Some(mut bracket) = bracket else {
        return Err(unbound("bracket"));
    };

    // zoom phase
    let mut insuf_progress = false;
    let last = bracket_f.len() - 1;
    let (mut low_pos, mut high_pos) = if holds(ev, &bracket_f[0], BinOp::Le, &bracket_f[last])? {
        (0, 1)
    } else {
        (1, 0)
    };
    while !done && holds(ev, &Value::Int(ls_iter), BinOp::Lt, max_ls)? {
        ev.count_step()?;
        let width = {
            let gap = op(ev, &bracket[1], BinOp::Sub, &bracket[0])?;
            let size = abs(ev, &gap)?;
            op(ev, &size, BinOp::Mul, &d_norm)?
        };
        if holds(ev, &width, BinOp::Lt, tolerance_change)? {
            break;
        }
        drop(width);
        let gtds = bracket_gtd.clone().ok_or_else(|| unbound("bracket_gtd"))?;
        t = cubic_interpolate(
            ev,
            &bracket[0],
            &bracket_f[0],
            &gtds[0],
            &bracket[1],
            &bracket_f[1],
            &gtds[1],
            None,
        )?;
        drop(gtds);
        // eps = 0.1 * (max(bracket) - min(bracket))
        let hi = max2(ev, &bracket[0], &bracket[1])?;
        let lo = min2(ev, &bracket[0], &bracket[1])?;
        let span = op(ev, &hi, BinOp::Sub, &lo)?;
        let eps = op(ev, &Value::Float(0.1), BinOp::Mul, &span)?;
        drop(span);
        let hi = max2(ev, &bracket[0], &bracket[1])?;
        let to_hi = op(ev, &hi, BinOp::Sub, &t)?;
        let lo = min2(ev, &bracket[0], &bracket[1])?;
        let to_lo = op(ev, &t, BinOp::Sub, &lo)?;
        let nearest = min2(ev, &to_hi, &to_lo)?;
        drop((to_hi, to_lo));
        if holds(ev, &nearest, BinOp::Lt, &eps)? {
            let hi = max2(ev, &bracket[0], &bracket[1])?;
            let at_bound = insuf_progress || holds(ev, &t, BinOp::Ge, &hi)? || {
                let lo = min2(ev, &bracket[0], &bracket[1])?;
                holds(ev, &t, BinOp::Le, &lo)?
            };
            if at_bound {
                let hi = max2(ev, &bracket[0], &bracket[1])?;
                let gap_hi = op(ev, &t, BinOp::Sub, &hi)?;
                let dist_hi = abs(ev, &gap_hi)?;
                let lo = min2(ev, &bracket[0], &bracket[1])?;
                let gap_lo = op(ev, &t, BinOp::Sub, &lo)?;
                let dist_lo = abs(ev, &gap_lo)?;
                drop((gap_hi, gap_lo));
                t = if holds(ev, &dist_hi, BinOp::Lt, &dist_lo)? {
                    let hi = max2(ev, &bracket[0], &bracket[1])?;
                    op(ev, &hi, BinOp::Sub, &eps)?
                } else {
                    let lo = min2(ev, &bracket[0], &bracket[1])?;
                    op(ev, &lo, BinOp::Add, &eps)?
                };
                insuf_progress = false;
            } else {
                insuf_progress = true;
            }
        } else {
            insuf_progress = false;
        }
        drop((nearest, eps));

        // evaluate the new point
        (f_new, g_new) = problem.directional(ev, x, &t, d)?;
        ls_func_evals += 1;
        gtd_new = m(ev, &g_new, "dot", vec![d.clone()])?;
        ls_iter += 1;

        let bound = armijo(ev, &t)?;
        let worse = holds(ev, &Value::Float(f_new), BinOp::Gt, &bound)?
            || f_new >= number(ev, &bracket_f[low_pos])?;
        drop(bound);
        let gtds = bracket_gtd.get_or_insert_with(Vec::new);
        if worse {
            bracket[high_pos] = t.clone();
            bracket_f[high_pos] = Value::Float(f_new);
            bracket_g[high_pos] = clone(ev, &g_new)?;
            set(gtds, high_pos, gtd_new.clone())?;
            (low_pos, high_pos) = if holds(ev, &bracket_f[0], BinOp::Le, &bracket_f[1])? {
                (0, 1)
            } else {
                (1, 0)
            };
        } else {
            let slope = abs(ev, &gtd_new)?;
            let limit = curvature(ev)?;
            if holds(ev, &slope, BinOp::Le, &limit)? {
                done = true;
            } else {
                let gap = op(ev, &bracket[high_pos], BinOp::Sub, &bracket[low_pos])?;
                let product = op(ev, &gtd_new, BinOp::Mul, &gap)?;
                drop(gap);
                if holds(ev, &product, BinOp::Ge, &Value::Int(0))? {
                    bracket[high_pos] = bracket[low_pos].clone();
                    bracket_f[high_pos] = bracket_f[low_pos].clone();
                    bracket_g[high_pos] = bracket_g[low_pos].clone();
                    let low = gtds.get(low_pos).cloned().unwrap_or(Value::None);
                    set(gtds, high_pos, low)?;
                }
            }
            drop((slope, limit));
            bracket[low_pos] = t.clone();
            bracket_f[low_pos] = Value::Float(f_new);
            bracket_g[low_pos] = clone(ev, &g_new)?;
            set(gtds, low_pos, gtd_new.clone())?;
        }
    }

    let t = bracket[low_pos].clone();
    let f_new = number(ev, &bracket_f[low_pos])?;
    let g_new = bracket_g[low_pos].clone();
    Ok((f_new, g_new, t, ls_func_evals))
}

/// `items[i] = value`.
fn set(items: &mut [Value], i: usize, value: Value) -> R<()> {
    match items.get_mut(i) {
        Some(slot) => {
            *slot = value;
            Ok(())
        }
        None => Err(ScriptError::Index(
            "list assignment index out of range".into(),
        )),
    }
}

/// Python's `UnboundLocalError` for a local read before it is bound.
fn unbound(name: &str) -> ScriptError {
    ScriptError::Other {
        class: "UnboundLocalError".into(),
        message: format!(
            "cannot access local variable '{name}' where it is not associated with a value"
        ),
    }
}
