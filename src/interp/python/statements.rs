//! Statements: assignment (plain, augmented, to items), `del`, `import`, and the compound
//! statements `if`/`for`/`while`, whose every executed statement is counted against the step
//! limit and recorded as a sub-step (as Python Tutor steps through a loop).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::core::trace::Step;
use crate::interp::python::classes::has_method;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::{BinOp, Expr, ExprKind, Statement, StatementKind, Target};

/// How a statement finished.
pub(crate) enum Flow {
    /// Go on; a bare expression's notebook output, if any.
    Next(Option<String>),
    Break,
    Continue,
    /// `return value` inside a function.
    Return(Value),
}

impl Evaluator {
    /// Runs one statement (its value's repr, for a bare expression).
    pub(crate) fn exec(&mut self, kind: &StatementKind) -> R<Flow> {
        match kind {
            StatementKind::Expr(expr) => {
                let value = self.eval(expr)?;
                if matches!(value, Value::None) {
                    Ok(Flow::Next(None))
                } else {
                    self.accounting.displaying = true;
                    let shown = self.repr(&value);
                    self.accounting.displaying = false;
                    Ok(Flow::Next(Some(shown?)))
                }
            }
            StatementKind::Assign { targets, value } => {
                let value = self.eval(value)?;
                for target in targets {
                    self.assign(target, value.clone())?;
                }
                Ok(Flow::Next(None))
            }
            StatementKind::AugAssign { target, op, value } => {
                let value = self.eval(value)?;
                self.aug_assign(target, *op, value)?;
                Ok(Flow::Next(None))
            }
            StatementKind::Del(targets) => {
                for target in targets {
                    self.delete(target)?;
                }
                Ok(Flow::Next(None))
            }
            StatementKind::Import(names) => {
                for name in names {
                    let module = self.import(&name.path)?;
                    self.scope.bind(&name.alias, module);
                }
                Ok(Flow::Next(None))
            }
            StatementKind::If { branches, orelse } => {
                for (cond, body) in branches {
                    // The condition's value is freed before the body runs (a tensor
                    // comparison's result does not stay alive through it).
                    let c = self.eval(cond)?;
                    let taken = self.truthy(&c)?;
                    drop(c);
                    if taken {
                        return self.exec_block(body);
                    }
                }
                self.exec_block(orelse)
            }
            StatementKind::For { target, iter, body } => {
                let iterable = match self.for_over_iterator(target, iter, body)? {
                    LoopSource::Ran(flow) => return Ok(flow),
                    LoopSource::Eager(iterable) => iterable,
                };
                if let Value::Range(start, stop, step) = iterable {
                    let mut i = start;
                    while (step > 0 && i < stop) || (step < 0 && i > stop) {
                        self.assign(target, Value::Int(i))?;
                        match self.exec_block(body)? {
                            Flow::Break => break,
                            Flow::Return(v) => return Ok(Flow::Return(v)),
                            _ => {}
                        }
                        i = match i.checked_add(step) {
                            Some(next) => next,
                            None => break,
                        };
                    }
                    return Ok(Flow::Next(None));
                }
                // The items live as long as the loop runs (a `DataLoader`'s batches, the rows
                // of a temporary): they are roots of the collections inside the body.
                let items = self.iterate(&iterable)?;
                // The loop variable is each element itself: a dict or list changed through
                // it (`for g in opt.param_groups: g["lr"] = 0.01`) is changed in the
                // container it came from, which the name, attribute or item names.
                let alias = match (target, &iter.kind, &iterable) {
                    (
                        Target::Name(name),
                        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. },
                        Value::List(_),
                    ) => Some((name.clone(), iter)),
                    _ => None,
                };
                self.pins.push(iterable);
                self.pins.push(Value::List(items.clone()));
                let result = match alias {
                    Some((name, source)) => self.run_aliased_items(&name, source, items, body),
                    None => self.run_items(target, items, body),
                };
                self.pins.truncate(self.pins.len() - 2);
                result
            }
            StatementKind::While { cond, body } => {
                loop {
                    self.count_step()?;
                    let c = self.eval(cond)?;
                    let taken = self.truthy(&c)?;
                    drop(c);
                    if !taken {
                        break;
                    }
                    match self.exec_block(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                Ok(Flow::Next(None))
            }
            StatementKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => self.exec_try(body, handlers, orelse, finalbody),
            StatementKind::FunctionDef(def) => self.define_function(def),
            StatementKind::ClassDef(def) => self.define_class(def),
            StatementKind::With {
                context,
                name,
                body,
            } => self.exec_with(context, name.as_deref(), body),
            StatementKind::Return(value) => {
                let value = match value {
                    Some(expr) => self.eval(expr)?,
                    None => Value::None,
                };
                Ok(Flow::Return(value))
            }
            StatementKind::Raise(value) => Err(self.raise(value.as_ref())?),
            StatementKind::Assert { test, message } => {
                self.assert(test, message.as_ref())?;
                Ok(Flow::Next(None))
            }
            StatementKind::Pass => Ok(Flow::Next(None)),
            StatementKind::Break => Ok(Flow::Break),
            StatementKind::Continue => Ok(Flow::Continue),
        }
    }

    /// Counts one executed statement; past the limit, the script stops here.
    pub(crate) fn count_step(&mut self) -> R<()> {
        self.executed += 1;
        if self.executed > self.limits.max_statements {
            self.stopped = true;
            return Err(ScriptError::Runtime(format!(
                "Stridescope stops after {} executed statements (is a loop endless?); the steps before it are kept",
                self.limits.max_statements
            )));
        }
        Ok(())
    }

    /// A `for` over an iterator object (a `DataLoader`, a class with `__iter__`/`__next__`),
    /// or `enumerate` of one, runs one item at a time as Python does: each item is fetched
    /// while the previous one is still bound to the loop variable, and freed when the next
    /// one replaces it (a training loop holds one batch, not the epoch's). Anything else
    /// is returned evaluated, for the loop over its materialized items.
    fn for_over_iterator(
        &mut self,
        target: &Target,
        iter: &Expr,
        body: &[Statement],
    ) -> R<LoopSource> {
        let enumerated = match &iter.kind {
            ExprKind::Call { func, args, kwargs }
                if matches!(&func.kind, ExprKind::Name(n) if n == "enumerate")
                    && self.scope.get("enumerate").is_none()
                    && (1..=2).contains(&args.len())
                    && kwargs.is_empty() =>
            {
                Some(args)
            }
            _ => None,
        };
        let (source, start) = match enumerated {
            Some(args) => {
                let source = self.eval(&args[0])?;
                let start = match args.get(1) {
                    Some(e) => Some(self.eval(e)?),
                    None => None,
                };
                (source, start)
            }
            None => (self.eval(iter)?, None),
        };
        let iterator = match &source {
            Value::Instance(object) if !has_method(&object.class, "__getitem__") => {
                match self.call_special(object, "__iter__", vec![]) {
                    Some(it) => Some(it?),
                    None => None,
                }
            }
            _ => None,
        };
        let Some(Value::Instance(it)) = iterator.clone() else {
            let source = match iterator {
                Some(other) => other,
                None => source,
            };
            return Ok(LoopSource::Eager(match enumerated {
                Some(_) => {
                    let mut pos = vec![source];
                    pos.extend(start);
                    self.call_builtin("enumerate", pos, vec![])?
                }
                None => source,
            }));
        };
        let mut index = match start {
            Some(Value::Int(i)) => Some(i),
            Some(other) => {
                return Err(ScriptError::Type(format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                )))
            }
            None => enumerated.map(|_| 0),
        };
        self.pins.push(Value::Instance(Rc::clone(&it)));
        let result = loop {
            let item = match self.next_item(&it) {
                Ok(Some(item)) => item,
                Ok(None) => break Ok(Flow::Next(None)),
                Err(e) => break Err(e),
            };
            let item = match index.as_mut() {
                Some(i) => {
                    *i += 1;
                    Value::Tuple(vec![Value::Int(*i - 1), item])
                }
                None => item,
            };
            if let Err(e) = self.assign(target, item) {
                break Err(e);
            }
            match self.exec_block(body) {
                Ok(Flow::Break) => break Ok(Flow::Next(None)),
                Ok(Flow::Return(v)) => break Ok(Flow::Return(v)),
                Ok(_) => {}
                Err(e) => break Err(e),
            }
        };
        self.pins.pop();
        result.map(LoopSource::Ran)
    }

    /// Runs `body` once for each of `items`, bound to `target` (a `for` loop's iterations).
    fn run_items(&mut self, target: &Target, items: Vec<Value>, body: &[Statement]) -> R<Flow> {
        for item in items {
            self.assign(target, item)?;
            match self.exec_block(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
        }
        Ok(Flow::Next(None))
    }

    /// [`Evaluator::run_items`] for a loop variable `name` over the list `source` evaluates
    /// to: after each statement of the body, a dict or list element changed through the name
    /// is stored back at its index (Python's elements are shared objects), until a
    /// statement binds the name anew.
    fn run_aliased_items(
        &mut self,
        name: &str,
        source: &Expr,
        items: Vec<Value>,
        body: &[Statement],
    ) -> R<Flow> {
        let is_container =
            |v: &Value| matches!(v, Value::Dict(_) | Value::OrderedDict(_) | Value::List(_));
        for (i, item) in items.into_iter().enumerate() {
            let mut aliased = is_container(&item);
            self.assign(&Target::Name(name.to_string()), item)?;
            let mut flow = Flow::Next(None);
            for statement in body {
                flow = self.run_inner(statement)?;
                if aliased && rebinds(std::slice::from_ref(statement), name) {
                    aliased = false;
                }
                if aliased {
                    if let Some(now) = self.scope.get(name).filter(|v| is_container(v)).cloned() {
                        let index = Expr {
                            pos: source.pos,
                            kind: ExprKind::Int(i as i64),
                        };
                        let at = Target::Subscript {
                            object: Box::new(source.clone()),
                            index: Box::new(index),
                        };
                        self.assign(&at, now)?;
                    }
                }
                if !matches!(flow, Flow::Next(_)) {
                    break;
                }
            }
            match flow {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
        }
        Ok(Flow::Next(None))
    }

    /// Runs a block's statements in order; `break`/`continue` end it early.
    pub(crate) fn exec_block(&mut self, body: &[Statement]) -> R<Flow> {
        for statement in body {
            match self.run_inner(statement)? {
                Flow::Next(_) => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next(None))
    }

    /// Runs a statement inside a block, recording it as a sub-step of the running top-level
    /// step (while under [`MAX_RECORDED_SUBSTEPS`](crate::interp::runtime::recorder::MAX_RECORDED_SUBSTEPS)). An exception propagates to the block's
    /// statement, as in Python; the line where it was raised is kept.
    fn run_inner(&mut self, statement: &Statement) -> R<Flow> {
        self.count_step()?;
        if !self.recorder.count_substep() {
            let result = self.exec(&statement.kind).inspect_err(|_| {
                self.recorder.error_line.get_or_insert(statement.line);
            });
            self.collect_in_block(flow_value(&result));
            return result;
        }
        // The sub-step gets its own accounting; the enclosing step keeps the sum.
        let outer = self.recorder.set_aside();
        let outer_stdout = std::mem::take(&mut self.recorder.stdout);
        let outer_line = std::mem::replace(&mut self.accounting.line, statement.line);
        self.begin_memory_unit(false);
        let before = self.scope.tensor_bindings();
        let mut step = Step {
            line: statement.line,
            source: statement.source.clone(),
            ..Step::default()
        };
        let result = self.exec(&statement.kind);
        match &result {
            Ok(Flow::Next(out)) => step.output = out.clone(),
            Ok(_) => {}
            Err(e) => {
                step.set_error(e.to_string());
                self.recorder.error_line.get_or_insert(statement.line);
            }
        }
        let printed = std::mem::replace(&mut self.recorder.stdout, outer_stdout);
        if !printed.is_empty() {
            if step.output.is_none() {
                step.output = Some(printed.strip_suffix('\n').unwrap_or(&printed).to_string());
            }
            step.stdout = Some(printed.clone());
        }
        self.recorder.print(&printed);
        self.collect_in_block(flow_value(&result));
        let inner = self.recorder.accounts();
        self.recorder.in_substep = true;
        let step = self.finish_step(step, &before);
        self.recorder.in_substep = false;
        self.recorder.substeps.push(step);
        self.recorder.merge(outer, inner);
        self.accounting.line = outer_line;
        result
    }

    /// `target op= value`: in place for a tensor (`__iadd__`), a new binding otherwise.
    fn aug_assign(&mut self, target: &Target, op: BinOp, value: Value) -> R<()> {
        match target {
            Target::Name(name) => {
                let current = self.lookup(name)?;
                let result = self.in_place_binary(op, current, value)?;
                self.scope.bind(name, result);
                Ok(())
            }
            Target::Subscript { object, index } => {
                let object = self.eval(object)?;
                let index = self.eval(index)?;
                // `y[i] *= 2` writes through the view `y[i]` (its base's node is rebased).
                self.torch.autograd.from_script = true;
                let current = self.get_item(object.clone(), &index)?;
                let result = self.in_place_binary(op, current, value)?;
                match object {
                    Value::Tensor(t) => {
                        let tensor = t.borrow().tensor.clone();
                        self.set_item(&tensor, &index, &result)
                    }
                    Value::NdArray(a) => self.ndarray_set_item(&a, &index, &result),
                    // `d[k] += 1`, `xs[i] += 1`: the item assignment of the result (the
                    // object and index expressions are evaluated again, as values here).
                    _ => self.assign(target, result),
                }
            }
            Target::Attribute { object, name } => {
                let object = self.eval(object)?;
                if matches!(object, Value::Instance(_) | Value::Class(_)) {
                    let current = self.attribute(object.clone(), name)?;
                    let result = self.in_place_binary(op, current, value)?;
                    self.set_class_attribute(&object, name, result)?;
                    return Ok(());
                }
                // `w.data *= mask`: `w.data = w.data.__imul__(mask)`, refused by the setter
                // for what is not writable.
                let current = self.attribute(object.clone(), name)?;
                let result = self.in_place_binary(op, current, value)?;
                self.set_attribute(object, name, result)
            }
            Target::Tuple(_) | Target::Starred(_) => Err(ScriptError::Syntax {
                line: 0,
                col: 0,
                message: "'tuple' is an illegal expression for augmented assignment".into(),
            }),
        }
    }

    /// `a op= b` on values: a tensor is updated in place and stays the same object.
    fn in_place_binary(&mut self, op: BinOp, current: Value, value: Value) -> R<Value> {
        if let Value::NdArray(a) = &current {
            return self.ndarray_in_place(op, a, value);
        }
        let Value::Tensor(t) = &current else {
            return self.binary(op, current, value);
        };
        let method = match op {
            BinOp::Add => Some("add_"),
            BinOp::Sub => Some("sub_"),
            BinOp::Mul => Some("mul_"),
            BinOp::Div => Some("div_"),
            _ => None,
        };
        if let Some(method) = method {
            let this = t.clone();
            let f = Value::Method(Box::new(Value::Tensor(this)), method.to_string());
            self.torch.autograd.from_script = true;
            return self.call(f, vec![value], vec![]);
        }
        // `%=`, `//=`, `**=`, `@=`, `&=`...: computed, then written back with `copy_`'s
        // casting rule (the result must fit the tensor's dtype).
        let result = self.binary(op, current.clone(), value)?;
        let dst = t.borrow().tensor.clone();
        if let Value::Tensor(r) = &result {
            let src = r.borrow().tensor.clone();
            self.check_in_place_cast(&src, &dst)?;
            self.copy_into(&dst, &src, false)?;
        }
        Ok(current)
    }

    /// `del target`.
    fn delete(&mut self, target: &Target) -> R<()> {
        match target {
            Target::Name(name) => {
                if !self.scope.unbind(name) {
                    return Err(ScriptError::Name(format!("name '{name}' is not defined")));
                }
                Ok(())
            }
            Target::Tuple(targets) => targets.iter().try_for_each(|t| self.delete(t)),
            Target::Starred(inner) => self.delete(inner),
            Target::Subscript {
                object: object_expr,
                index,
            } => {
                let object = self.eval(object_expr)?;
                let index = self.eval(index)?;
                self.delete_item(object_expr, object, index)
            }
            Target::Attribute { object, name } => {
                let object = self.eval(object)?;
                if matches!(object, Value::Instance(_) | Value::Class(_)) {
                    return self.delete_class_attribute(&object, name);
                }
                Err(ScriptError::Attribute(format!(
                    "'{}' object attribute '{}' is read-only",
                    object.type_name(),
                    name
                )))
            }
        }
    }

    /// The object an `import` binds: a module, or a name inside one (`from torch import nn`).
    fn import(&mut self, path: &str) -> R<Value> {
        let mut parts = path.split('.');
        let top = parts.next().unwrap_or("");
        let mut value = match top {
            "torch" => Value::Torch,
            "numpy" | "math" | "torchvision" | "collections" => Value::Module(top.to_string()),
            m if crate::interp::python::stdlib::is_module(m) => Value::Module(m.to_string()),
            other => {
                return Err(ScriptError::ModuleNotFound(format!(
                    "No module named '{other}'"
                )))
            }
        };
        let mut walked = top.to_string();
        for part in parts {
            walked = format!("{walked}.{part}");
            value = match (value, part) {
                (Value::Torch, "nn") => Value::Module("torch.nn".into()),
                (Value::Module(m), "functional") if m == "torch.nn" => {
                    Value::Module("torch.nn.functional".into())
                }
                (Value::Module(m), "io" | "transforms") if m == "torchvision" => {
                    Value::Module(format!("torchvision.{part}"))
                }
                (Value::Module(m), "functional") if m == "torchvision.transforms" => {
                    Value::Module("torchvision.transforms.functional".into())
                }
                (object, _) => match self.attribute(object, part) {
                    Ok(v) => v,
                    Err(_) => {
                        return Err(ScriptError::ModuleNotFound(format!(
                            "No module named '{walked}'"
                        )))
                    }
                },
            };
        }
        Ok(value)
    }
}

/// What a `for` loop's iterable turned out to be.
enum LoopSource {
    /// An iterator, already stepped through: the loop's flow.
    Ran(Flow),
    /// A value whose items the loop materializes.
    Eager(Value),
}

/// The value a statement's flow carries out of it (a `return`'s), which a collection between
/// statements must not free.
fn flow_value(result: &R<Flow>) -> Option<&Value> {
    match result {
        Ok(Flow::Return(value)) => Some(value),
        _ => None,
    }
}

/// Whether `body` binds `name` anew (an assignment to it, a loop or `with` variable, an
/// `except ... as`): then the loop variable stops being the element.
fn rebinds(body: &[Statement], name: &str) -> bool {
    fn in_target(t: &Target, name: &str) -> bool {
        match t {
            Target::Name(n) => n == name,
            Target::Tuple(ts) => ts.iter().any(|t| in_target(t, name)),
            Target::Starred(t) => in_target(t, name),
            Target::Subscript { .. } | Target::Attribute { .. } => false,
        }
    }
    body.iter().any(|s| match &s.kind {
        StatementKind::Assign { targets, .. } => targets.iter().any(|t| in_target(t, name)),
        StatementKind::AugAssign { target, .. } => in_target(target, name),
        StatementKind::Del(targets) => targets.iter().any(|t| in_target(t, name)),
        StatementKind::For { target, body, .. } => in_target(target, name) || rebinds(body, name),
        StatementKind::While { body, .. } => rebinds(body, name),
        StatementKind::If { branches, orelse } => {
            branches.iter().any(|(_, b)| rebinds(b, name)) || rebinds(orelse, name)
        }
        StatementKind::With {
            name: bound, body, ..
        } => bound.as_deref() == Some(name) || rebinds(body, name),
        StatementKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            rebinds(body, name)
                || handlers
                    .iter()
                    .any(|h| h.name.as_deref() == Some(name) || rebinds(&h.body, name))
                || rebinds(orelse, name)
                || rebinds(finalbody, name)
        }
        StatementKind::Import(names) => names.iter().any(|n| n.alias == name),
        StatementKind::FunctionDef(def) => def.name == name,
        StatementKind::ClassDef(def) => def.name == name,
        _ => false,
    })
}
