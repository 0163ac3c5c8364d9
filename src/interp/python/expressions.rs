//! Expressions: literals, names, operators, attribute access, calls, subscripts, f-strings,
//! comprehensions and conditional expressions.

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::{BinOp, ComprehensionKind, Expr, ExprKind, FStringPart, Generator, Target};

impl Evaluator {
    /// Evaluates an expression.
    pub(crate) fn eval(&mut self, expr: &Expr) -> R<Value> {
        match &expr.kind {
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Float(f) => Ok(Value::Float(*f)),
            ExprKind::Imag(f) => Ok(Value::Complex(0.0, *f)),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::None => Ok(Value::None),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::Ellipsis => Ok(Value::Ellipsis),
            ExprKind::Name(name) => self.lookup(name),
            ExprKind::List(items) => Ok(Value::List(self.eval_all(items)?)),
            ExprKind::Tuple(items) => Ok(Value::Tuple(self.eval_all(items)?)),
            ExprKind::Slice { start, stop, step } => {
                let mut part = |e: &Option<Box<Expr>>| -> R<Option<i64>> {
                    match e {
                        None => Ok(None),
                        Some(e) => match self.eval(e)? {
                            Value::None => Ok(None),
                            v => Ok(Some(self.index_int(&v)?)),
                        },
                    }
                };
                Ok(Value::Slice(part(start)?, part(stop)?, part(step)?))
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                self.unary(*op, v)
            }
            ExprKind::Binary { op, left, right } => {
                let a = self.eval(left)?;
                let b = self.eval(right)?;
                self.binary(*op, a, b)
            }
            ExprKind::BoolOp { and, left, right } => {
                let a = self.eval(left)?;
                let truth = self.truthy(&a)?;
                if truth == *and {
                    self.eval(right)
                } else {
                    Ok(a)
                }
            }
            ExprKind::Compare { first, ops, rest } => {
                let mut left = self.eval(first)?;
                let mut result = Value::Bool(true);
                for (op, right) in ops.iter().zip(rest) {
                    let right = self.eval(right)?;
                    result = self.binary(*op, left, right.clone())?;
                    if ops.len() > 1 && !self.truthy(&result)? {
                        return Ok(result);
                    }
                    left = right;
                }
                Ok(result)
            }
            ExprKind::Attribute { object, name } => {
                let object = self.eval(object)?;
                self.attribute(object, name)
            }
            ExprKind::Subscript { object, index } => {
                let object = self.eval(object)?;
                let index = self.eval(index)?;
                self.torch.autograd.from_script = true;
                self.get_item(object, &index)
            }
            ExprKind::Call { func, args, kwargs } => {
                // `xs.append(v)`: a list method changes the list where it is stored.
                let func = match &func.kind {
                    ExprKind::Attribute { object, name } => {
                        let receiver = self.eval(object)?;
                        let receiver_kind = Some(matches!(receiver, Value::OrderedDict(_)));
                        match receiver {
                            Value::List(items)
                                if kwargs.is_empty()
                                    && crate::interp::python::str_list::LIST_METHODS
                                        .contains(&name.as_str()) =>
                            {
                                let args = self.eval_all(args)?;
                                return self.call_list_method_on(object, items, name, &args);
                            }
                            Value::Dict(entries) | Value::OrderedDict(entries)
                                if kwargs.is_empty()
                                    && crate::interp::python::dict::changes_dict(name) =>
                            {
                                let ordered = matches!(receiver_kind, Some(true));
                                let args = self.eval_all(args)?;
                                let (result, changed) =
                                    self.call_dict_method(entries, name, &args)?;
                                if let Some(changed) = changed {
                                    let changed = if ordered {
                                        Value::OrderedDict(changed)
                                    } else {
                                        Value::Dict(changed)
                                    };
                                    self.store_back(object, changed)?;
                                }
                                return Ok(result);
                            }
                            // `random.shuffle(xs)`: the list is shuffled where it is stored.
                            Value::Module(m)
                                if m == "random" && name == "shuffle" && args.len() == 1 =>
                            {
                                let list = self.eval(&args[0])?;
                                let shuffled = self.random_shuffle(list)?;
                                self.store_back(&args[0], shuffled)?;
                                return Ok(Value::None);
                            }
                            receiver => self.attribute(receiver, name)?,
                        }
                    }
                    _ => self.eval(func)?,
                };
                if let Some(total) = self.sum_of_generator(&func, args, kwargs)? {
                    return Ok(total);
                }
                let args = self.eval_all(args)?;
                let mut kw: Vec<(String, Value)> = Vec::with_capacity(kwargs.len());
                for (name, e) in kwargs {
                    let value = self.eval(e)?;
                    if name != "**" {
                        kw.push((name.clone(), value));
                        continue;
                    }
                    // `f(**mapping)`: each string key becomes a keyword argument.
                    let entries = match value {
                        Value::Dict(entries) | Value::OrderedDict(entries) => entries,
                        other => {
                            return Err(ScriptError::Type(format!(
                                "argument after ** must be a mapping, not {}",
                                other.type_name()
                            )))
                        }
                    };
                    for (key, value) in entries {
                        let Value::Str(key) = key else {
                            return Err(ScriptError::Type("keywords must be strings".into()));
                        };
                        if kw.iter().any(|(k, _)| *k == key) {
                            return Err(ScriptError::Type(format!(
                                "got multiple values for keyword argument '{key}'"
                            )));
                        }
                        kw.push((key, value));
                    }
                }
                // A tensor method or a `torch` (or `torch.nn.functional`) function the script
                // calls is its own op.
                self.torch.autograd.from_script = match &func {
                    Value::Method(receiver, _) => match &**receiver {
                        Value::Tensor(_) | Value::Torch => true,
                        Value::Module(m) => m.starts_with("torch"),
                        _ => false,
                    },
                    _ => false,
                };
                self.call(func, args, kw)
            }
            ExprKind::Starred(_) => Err(ScriptError::Syntax {
                line: expr.pos.line,
                col: expr.pos.col,
                message: "can't use starred expression here".into(),
            }),
            ExprKind::IfExp { cond, then, orelse } => {
                let c = self.eval(cond)?;
                if self.truthy(&c)? {
                    self.eval(then)
                } else {
                    self.eval(orelse)
                }
            }
            ExprKind::FString(parts) => self.fstring(parts),
            ExprKind::Comprehension {
                kind,
                element,
                generators,
            } => {
                let mut out = Vec::new();
                self.scoped_comprehension(element, generators, &mut |_, v| {
                    out.push(v);
                    Ok(())
                })?;
                Ok(match kind {
                    ComprehensionKind::List | ComprehensionKind::Generator => Value::List(out),
                    ComprehensionKind::Dict => {
                        let mut entries = Vec::new();
                        for pair in out {
                            if let Value::Tuple(kv) = pair {
                                if let Ok([k, v]) = <[Value; 2]>::try_from(kv) {
                                    crate::interp::python::dict::insert(&mut entries, k, v)?;
                                }
                            }
                        }
                        Value::Dict(entries)
                    }
                    ComprehensionKind::Set => {
                        return Err(ScriptError::NotImplemented(
                            "set comprehensions are not supported here".into(),
                        ))
                    }
                })
            }
            ExprKind::Lambda(def) => self.make_function(def),
            ExprKind::Dict(items) => {
                let mut entries = Vec::with_capacity(items.len());
                for (k, v) in items {
                    let key = self.eval(k)?;
                    let value = self.eval(v)?;
                    crate::interp::python::dict::insert(&mut entries, key, value)?;
                }
                Ok(Value::Dict(entries))
            }
        }
    }

    /// `sum(e for x in xs[, start])` as CPython runs it: the generator yields one element at
    /// a time and each is added to the total before the next is made (a list of every
    /// element would keep them all alive). `None` for any other call.
    fn sum_of_generator(
        &mut self,
        func: &Value,
        args: &[Expr],
        kwargs: &[(String, Expr)],
    ) -> R<Option<Value>> {
        let Value::Method(receiver, name) = func else {
            return Ok(None);
        };
        let [first, rest @ ..] = args else {
            return Ok(None);
        };
        let ExprKind::Comprehension {
            kind: ComprehensionKind::Generator,
            element,
            generators,
        } = &first.kind
        else {
            return Ok(None);
        };
        if !matches!(**receiver, Value::None) || name != "sum" || rest.len() > 1 {
            return Ok(None);
        }
        if !kwargs.is_empty() {
            return Ok(None);
        }
        let start = match rest.first() {
            Some(start) => self.eval(start)?,
            None => Value::Int(0),
        };
        let mut running = Some(start);
        self.scoped_comprehension(element, generators, &mut |ev, item| {
            let before = running.take().unwrap_or(Value::Int(0));
            running = Some(ev.binary(BinOp::Add, before, item)?);
            Ok(())
        })?;
        Ok(Some(running.unwrap_or(Value::Int(0))))
    }

    /// Evaluates a list of expressions, unpacking `*x` items.
    pub(crate) fn eval_all(&mut self, items: &[Expr]) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for e in items {
            if let ExprKind::Starred(inner) = &e.kind {
                let v = self.eval(inner)?;
                out.extend(self.iterate_for_star(&v)?);
            } else {
                out.push(self.eval(e)?);
            }
        }
        Ok(out)
    }

    /// The items of `*value` in a call or display.
    fn iterate_for_star(&mut self, v: &Value) -> R<Vec<Value>> {
        match v {
            Value::Tuple(_)
            | Value::List(_)
            | Value::Size(_)
            | Value::Tensor(_)
            | Value::Range(..)
            | Value::Str(_) => self.iterate(v),
            other => Err(ScriptError::Type(format!(
                "Value after * must be an iterable, not {}",
                other.type_name()
            ))),
        }
    }

    /// Runs a comprehension in its own scope: as in Python 3, its loop variables do not leak
    /// into the enclosing scope, and a name they shadow keeps its value afterwards.
    fn scoped_comprehension(
        &mut self,
        element: &Expr,
        generators: &[Generator],
        out: &mut dyn FnMut(&mut Evaluator, Value) -> R<()>,
    ) -> R<()> {
        let mut names = Vec::new();
        for g in generators {
            target_names(&g.target, &mut names);
        }
        let saved: Vec<(String, Option<Value>)> = names
            .into_iter()
            .map(|n| {
                let old = self.scope.global(&n).cloned();
                (n, old)
            })
            .collect();
        let result = self.comprehension(element, generators, out);
        for (name, old) in saved {
            match old {
                Some(v) => self.scope.bind(&name, v),
                None => {
                    self.scope.unbind(&name);
                }
            }
        }
        result
    }

    /// Runs the generators of a comprehension, handing each element's value to `out`.
    fn comprehension(
        &mut self,
        element: &Expr,
        generators: &[Generator],
        out: &mut dyn FnMut(&mut Evaluator, Value) -> R<()>,
    ) -> R<()> {
        let Some((first, rest)) = generators.split_first() else {
            let v = self.eval(element)?;
            return out(self, v);
        };
        let iterable = self.eval(&first.iter)?;
        for item in self.iterate(&iterable)? {
            self.count_step()?;
            self.assign(&first.target, item)?;
            let mut keep = true;
            for cond in &first.ifs {
                let c = self.eval(cond)?;
                if !self.truthy(&c)? {
                    keep = false;
                    break;
                }
            }
            if keep {
                self.comprehension(element, rest, out)?;
            }
        }
        Ok(())
    }

    /// An f-string's text.
    fn fstring(&mut self, parts: &[FStringPart]) -> R<Value> {
        let mut text = String::new();
        for part in parts {
            match part {
                FStringPart::Text(t) => text.push_str(t),
                FStringPart::Field {
                    expr,
                    conversion,
                    spec,
                    debug_text,
                } => {
                    let v = self.eval(expr)?;
                    if let Some(d) = debug_text {
                        text.push_str(d);
                    }
                    let conversion = match (conversion, debug_text) {
                        (None, Some(_)) if spec.is_empty() => Some('r'),
                        (c, _) => *c,
                    };
                    let piece = match conversion {
                        Some('r') | Some('a') => {
                            let r = self.repr(&v)?;
                            self.format_value(&Value::Str(r), spec)?
                        }
                        Some('s') => {
                            let s = self.str_of(&v)?;
                            self.format_value(&Value::Str(s), spec)?
                        }
                        _ => self.format_value(&v, spec)?,
                    };
                    text.push_str(&piece);
                }
            }
        }
        Ok(Value::Str(text))
    }

    /// `format(value, spec)`: numbers and strings by the mini-language; a one-element tensor
    /// as its item (PyTorch's `Tensor.__format__`); anything else as `str()` with no spec.
    pub(crate) fn format_value(&mut self, v: &Value, spec: &str) -> R<String> {
        use crate::core::print::format_spec::{format_with_spec, Formattable};
        let formattable = match v {
            Value::Int(i) => Formattable::Int(*i),
            Value::Float(f) => Formattable::Float(*f),
            Value::Bool(b) => Formattable::Bool(*b),
            Value::Str(s) => {
                return format_with_spec(Formattable::Str(s), spec).map_err(ScriptError::Value)
            }
            // `Tensor.__format__`: a 0-d tensor formats its item, even with no spec.
            Value::Tensor(t) if !spec.is_empty() || t.borrow().tensor.ndim() == 0 => {
                let tensor = t.borrow().tensor.clone();
                if tensor.ndim() != 0 {
                    return Err(ScriptError::Type(
                        "unsupported format string passed to Tensor.__format__".into(),
                    ));
                }
                if tensor.dtype.is_complex() {
                    let item = self.complex_item(&tensor);
                    return self.format_value(&item, spec);
                }
                match self.engine.values(&tensor).first().copied() {
                    Some(crate::core::tensor::Scalar::Int(i)) => Formattable::Int(i),
                    Some(crate::core::tensor::Scalar::Float(f)) => Formattable::Float(f),
                    Some(crate::core::tensor::Scalar::Bool(b)) => Formattable::Bool(b),
                    None => Formattable::Int(0),
                }
            }
            other => {
                let s = self.str_of(other)?;
                if spec.is_empty() {
                    return Ok(s);
                }
                return Err(ScriptError::Type(format!(
                    "unsupported format string passed to {}.__format__",
                    other.type_name()
                )));
            }
        };
        format_with_spec(formattable, spec).map_err(ScriptError::Value)
    }

    /// Python's `str(value)`: a string is itself; everything else is its `repr`.
    pub(crate) fn str_of(&mut self, v: &Value) -> R<String> {
        match v {
            Value::Str(s) | Value::Device(s) => Ok(s.clone()),
            Value::Exception(e) => Ok(e.message().to_string()),
            Value::ReadMode(mode) => Ok(format!("ImageReadMode.{}", mode.name())),
            Value::Instance(object) => self.instance_str(object),
            Value::NdArray(_) | Value::NpScalar(..) | Value::NpDType(_) => self.numpy_str_of(v),
            other => self.repr(other),
        }
    }

    /// A name's value: the running function's locals, then globals, then builtins.
    pub(crate) fn lookup(&self, name: &str) -> R<Value> {
        if let Some(v) = self.scope.get(name) {
            return Ok(v.clone());
        }
        match name {
            "torch" => Ok(Value::Torch),
            _ if crate::core::tensor::error::EXCEPTION_CLASSES
                .iter()
                .any(|(c, _)| *c == name) =>
            {
                Ok(Value::ExceptionType(name.to_string()))
            }
            _ if crate::interp::python::builtins::BUILTINS.contains(&name) => {
                Ok(Value::Method(Box::new(Value::None), name.to_string()))
            }
            _ => Err(ScriptError::Name(format!("name '{name}' is not defined"))),
        }
    }
}

/// The names a comprehension's `for` target binds (`x`, `i, (a, b)`), each once.
fn target_names(target: &Target, out: &mut Vec<String>) {
    match target {
        Target::Name(n) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        Target::Tuple(items) => {
            for t in items {
                target_names(t, out);
            }
        }
        Target::Starred(inner) => target_names(inner, out),
        Target::Subscript { .. } | Target::Attribute { .. } => {}
    }
}
