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
pub(super) fn op(ev: &mut Evaluator, a: &Value, op: BinOp, b: &Value) -> R<Value> {
    ev.binary(op, a.clone(), b.clone())
}

/// Python's `bool(a <op> b)`.
pub(super) fn holds(ev: &mut Evaluator, a: &Value, cmp: BinOp, b: &Value) -> R<bool> {
    let result = ev.binary(cmp, a.clone(), b.clone())?;
    ev.truthy(&result)
}

/// Python's `abs(x)` (`Tensor.__abs__` for a tensor).
pub(super) fn abs(ev: &mut Evaluator, x: &Value) -> R<Value> {
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
pub(super) fn min2(ev: &mut Evaluator, a: &Value, b: &Value) -> R<Value> {
    Ok(if holds(ev, b, BinOp::Lt, a)? { b } else { a }.clone())
}

/// Python's `max(a, b)`: `a` unless `b > a`.
pub(super) fn max2(ev: &mut Evaluator, a: &Value, b: &Value) -> R<Value> {
    Ok(if holds(ev, b, BinOp::Gt, a)? { b } else { a }.clone())
}

/// Python's `float(x)`.
pub(super) fn float(ev: &mut Evaluator, x: &Value) -> R<f64> {
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
pub(super) fn m(ev: &mut Evaluator, x: &Value, method: &str, args: Vec<Value>) -> R<Value> {
    call_method(ev, x, method, args, vec![])
}

/// `x.clone(memory_format=torch.contiguous_format)`.
pub(super) fn clone(ev: &mut Evaluator, x: &Value) -> R<Value> {
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
pub(super) struct Problem {
    params: Vec<TensorRef>,
    closure: Value,
    maximize: bool,
}

impl Problem {
    /// `closure()` under `enable_grad`.
    pub(super) fn evaluate(&self, ev: &mut Evaluator) -> R<Value> {
        with_grad(ev, true, |ev| ev.call(self.closure.clone(), vec![], vec![]))
    }

    /// `_gather_flat_grad()`: the gradients' views (zeros for a parameter without one)
    /// concatenated, negated under `maximize`.
    pub(super) fn flat_grad(&self, ev: &mut Evaluator) -> R<Value> {
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
    pub(super) fn add_grad(&self, ev: &mut Evaluator, step_size: &Value, update: &Value) -> R<()> {
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
    pub(super) fn clone_params(&self, ev: &mut Evaluator) -> R<Vec<Value>> {
        self.params
            .iter()
            .map(|p| clone(ev, &Value::Tensor(Rc::clone(p))))
            .collect()
    }

    /// `_directional_evaluate(closure, x, t, d)`: the loss and flat gradient at `x + t d`,
    /// the parameters set back to `x`.
    pub(super) fn directional(
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
            let found = crate::interp::torch::optim::lbfgs_search::strong_wolfe(
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
