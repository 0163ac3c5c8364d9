//! The Python builtins a notebook uses: `print`, `len`, `range`, `isinstance`, `type`, `min`,
//! `max`, `sum`, `abs`, `round`, `list`, `tuple`, `str`, `int`, `float`, `bool`, `enumerate`,
//! `zip`, `sorted`, `reversed`, `repr`, `format`, `id`, `hasattr`.

use crate::core::tensor::{Scalar, ScriptError};
use crate::interp::python::iteration::range_len;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// Every builtin name (what `lookup` resolves when no variable has the name).
pub(crate) const BUILTINS: &[&str] = &[
    "print",
    "len",
    "range",
    "isinstance",
    "type",
    "min",
    "max",
    "sum",
    "abs",
    "round",
    "list",
    "tuple",
    "str",
    "int",
    "float",
    "bool",
    "enumerate",
    "zip",
    "sorted",
    "reversed",
    "repr",
    "format",
    "id",
    "hasattr",
    "all",
    "any",
    "dict",
    "map",
    "filter",
    "getattr",
    "setattr",
    "delattr",
    "issubclass",
    "object",
    "super",
    "staticmethod",
    "classmethod",
    "callable",
    "dir",
    "iter",
    "next",
];

impl Evaluator {
    /// Calls the builtin `name`.
    pub(crate) fn call_builtin(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        match name {
            "print" => return self.print(pos, kw),
            "range" => return range(no_kw(name, kw).and_then(|()| ints(name, &pos))?),
            "enumerate" => {
                no_kw(name, kw)?;
                let [iterable, rest @ ..] = pos.as_slice() else {
                    return missing(name, "iterable");
                };
                let start = match rest.first() {
                    Some(Value::Int(i)) => *i,
                    _ => 0,
                };
                let items = self.iterate(iterable)?;
                return Ok(Value::List(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| Value::Tuple(vec![Value::Int(start + i as i64), v]))
                        .collect(),
                ));
            }
            "zip" => {
                no_kw(name, kw)?;
                let lists = pos.iter().map(|v| self.iterate(v)).collect::<R<Vec<_>>>()?;
                let n = lists.iter().map(Vec::len).min().unwrap_or(0);
                return Ok(Value::List(
                    (0..n)
                        .map(|i| Value::Tuple(lists.iter().map(|l| l[i].clone()).collect()))
                        .collect(),
                ));
            }
            "min" | "max" if kw.iter().any(|(k, _)| k == "key") => {
                let key = kw.iter().find(|(k, _)| k == "key").map(|(_, v)| v.clone());
                let items = match pos.as_slice() {
                    [one] => self.iterate(one)?,
                    _ => pos,
                };
                return self.min_max(name, items, key.filter(|k| !matches!(k, Value::None)));
            }
            "min" | "max" if pos.len() != 1 => return self.min_max(name, pos, None),
            "map" | "filter" => {
                let [f, iterable] = pos.as_slice() else {
                    return Err(ScriptError::Type(format!(
                        "{name}() must have at least two arguments."
                    )));
                };
                let mut out = Vec::new();
                for item in self.iterate(iterable)? {
                    if name == "map" {
                        out.push(self.call(f.clone(), vec![item], vec![])?);
                        continue;
                    }
                    let keep = match f {
                        Value::None => self.truthy(&item)?,
                        f => {
                            let v = self.call(f.clone(), vec![item.clone()], vec![])?;
                            self.truthy(&v)?
                        }
                    };
                    if keep {
                        out.push(item);
                    }
                }
                return Ok(Value::List(out));
            }
            "dict" => return self.make_dict(&pos, &kw),
            "getattr" | "setattr" | "delattr" => {
                no_kw(name, kw)?;
                return self.attribute_builtin(name, pos);
            }
            "issubclass" => return self.issubclass(&pos),
            "dir" => return self.dir_builtin(&pos),
            "iter" | "next" => return self.call_iter_builtin(name, pos, kw),
            "super" => return self.make_super(&pos),
            "staticmethod" | "classmethod" if pos.len() == 1 && kw.is_empty() => {
                let f = Box::new(pos.into_iter().next().unwrap_or(Value::None));
                return Ok(if name == "staticmethod" {
                    Value::StaticMethod(f)
                } else {
                    Value::ClassMethod(f)
                });
            }
            "object" if pos.is_empty() && kw.is_empty() => {
                return Err(ScriptError::NotImplemented(
                    "object() instances are not supported here yet".into(),
                ))
            }
            "object" => {
                return Err(ScriptError::Type("object() takes no arguments".into()));
            }
            "isinstance" => {
                no_kw(name, kw)?;
                let [object, class] = pos.as_slice() else {
                    return Err(ScriptError::Type(format!(
                        "isinstance expected 2 arguments, got {}",
                        pos.len()
                    )));
                };
                return self.isinstance(object, class);
            }
            "round" => {
                no_kw(name, kw)?;
                return self.round(&pos);
            }
            "format" => {
                let spec = match pos.get(1) {
                    Some(Value::Str(s)) => s.clone(),
                    _ => String::new(),
                };
                let Some(v) = pos.first() else {
                    return missing(name, "value");
                };
                return self.format_value(v, &spec).map(Value::Str);
            }
            "hasattr" => {
                let [object, Value::Str(attr)] = pos.as_slice() else {
                    return Err(ScriptError::Type("hasattr expected 2 arguments".into()));
                };
                return Ok(Value::Bool(self.attribute(object.clone(), attr).is_ok()));
            }
            "sorted" => {
                let reverse = kw
                    .iter()
                    .any(|(k, v)| k == "reverse" && matches!(v, Value::Bool(true)));
                let key = kw.iter().find(|(k, _)| k == "key").map(|(_, v)| v.clone());
                let Some(x) = pos.first() else {
                    return missing(name, "iterable");
                };
                let mut items = self.iterate(x)?;
                match key {
                    Some(key) if !matches!(key, Value::None) => {
                        let mut keyed = Vec::with_capacity(items.len());
                        for item in items {
                            keyed.push((self.call(key.clone(), vec![item.clone()], vec![])?, item));
                        }
                        let mut keys: Vec<Value> = keyed.iter().map(|(k, _)| k.clone()).collect();
                        let order = self.sort_order(&mut keys)?;
                        items = order.into_iter().map(|i| keyed[i].1.clone()).collect();
                    }
                    _ => self.sort(&mut items)?,
                }
                if reverse {
                    items.reverse();
                }
                return Ok(Value::List(items));
            }
            "sum" => {
                let Some(x) = pos.first() else {
                    return missing(name, "iterable");
                };
                let mut total = pos
                    .get(1)
                    .cloned()
                    .or_else(|| {
                        kw.iter()
                            .find(|(k, _)| k == "start")
                            .map(|(_, v)| v.clone())
                    })
                    .unwrap_or(Value::Int(0));
                for item in self.iterate(x)? {
                    total = self.binary(BinOp::Add, total, item)?;
                }
                return Ok(total);
            }
            "str" if pos.is_empty() => return Ok(Value::Str(String::new())),
            "list" if pos.is_empty() => return Ok(Value::List(vec![])),
            "tuple" if pos.is_empty() => return Ok(Value::Tuple(vec![])),
            "int" if pos.is_empty() => return Ok(Value::Int(0)),
            "float" if pos.is_empty() => return Ok(Value::Float(0.0)),
            "bool" if pos.is_empty() => return Ok(Value::Bool(false)),
            _ => {}
        }
        no_kw(name, kw)?;
        if pos.len() != 1 {
            return Err(ScriptError::Type(format!(
                "{name}() takes exactly one argument ({} given)",
                pos.len()
            )));
        }
        let x = &pos[0];
        match name {
            "len" => match x {
                Value::Instance(object) => self.instance_len(object),
                _ => self.len(x),
            },
            "abs" => match x {
                Value::Int(i) => Ok(Value::Int(i.checked_abs().ok_or_else(|| {
                    ScriptError::Overflow("Python int too large to convert to C long".into())
                })?)),
                Value::Bool(b) => Ok(Value::Int(i64::from(*b))),
                Value::Float(f) => Ok(Value::Float(f.abs())),
                Value::Complex(re, im) => Ok(Value::Float(re.hypot(*im))),
                Value::Tensor(_) => {
                    let f = Value::Method(Box::new(x.clone()), "abs".into());
                    self.call(f, vec![], vec![])
                }
                other => Err(ScriptError::Type(format!(
                    "bad operand type for abs(): '{}'",
                    other.type_name()
                ))),
            },
            "int" | "float" | "bool" => self.number(name, x),
            "str" => self.str_of(x).map(Value::Str),
            "repr" => self.repr(x).map(Value::Str),
            "list" => Ok(Value::List(self.iterate(x)?)),
            "tuple" => Ok(Value::Tuple(self.iterate(x)?)),
            "reversed" => {
                let mut items = self.iterate(x)?;
                items.reverse();
                Ok(Value::List(items))
            }
            "min" | "max" => {
                let items = self.iterate(x)?;
                self.min_max(name, items, None)
            }
            "callable" => Ok(Value::Bool(match x {
                Value::Instance(object) => {
                    self.has_special(object, "__call__")
                        || crate::interp::torch::nn::module::is_module(x)
                }
                Value::Function(_)
                | Value::BoundMethod(..)
                | Value::Class(_)
                | Value::StaticMethod(_)
                | Value::Method(..)
                | Value::ExceptionType(_) => true,
                _ => false,
            })),
            "all" | "any" => {
                let want = name == "any";
                for item in self.iterate(x)? {
                    if self.truthy(&item)? == want {
                        return Ok(Value::Bool(want));
                    }
                }
                Ok(Value::Bool(!want))
            }
            "type" if matches!(x, Value::Instance(_) | Value::Class(_)) => Ok(match x {
                Value::Instance(object) => Value::Class(std::rc::Rc::clone(&object.class)),
                _ => Value::Printed("<class 'type'>".into()),
            }),
            // A class shows as `<class '...'>` with no quotes: the text is the value's repr.
            "type" => Ok(Value::Printed(match x {
                Value::Tensor(t) if t.borrow().is_parameter => {
                    "<class 'torch.nn.parameter.Parameter'>".to_string()
                }
                Value::Tensor(_) => "<class 'torch.Tensor'>".to_string(),
                Value::NdArray(_) => "<class 'numpy.ndarray'>".to_string(),
                Value::NpScalar(d, _) => {
                    format!(
                        "<class 'numpy.{}'>",
                        crate::core::print::numpy_str::numpy_dtype_name(*d)
                    )
                }
                Value::Size(_) => "<class 'torch.Size'>".to_string(),
                Value::DType(_) => "<class 'torch.dtype'>".to_string(),
                Value::TypeInfo(_) => format!("<class 'torch.{}'>", x.type_name()),
                Value::Exception(e) => return Ok(Value::ExceptionType(e.class_name().to_string())),
                // An autograd node (`<MulBackward0 object at 0x...>`) is of its own class.
                Value::Printed(text) if text.contains(" object at 0x") => {
                    let class = text
                        .trim_start_matches('<')
                        .split(" object at")
                        .next()
                        .unwrap_or("object");
                    format!("<class '{class}'>")
                }
                other => format!("<class '{}'>", other.type_name()),
            })),
            "id" => Ok(Value::Int(match x {
                Value::Tensor(t) => std::rc::Rc::as_ptr(t) as usize as i64 & 0x7fff_ffff_ffff,
                _ => 0,
            })),
            _ => Err(ScriptError::Name(format!("name '{name}' is not defined"))),
        }
    }

    /// `print(*args, sep=' ', end='\n')`: written to the statement's output.
    fn print(&mut self, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
        let mut sep = " ".to_string();
        let mut end = "\n".to_string();
        for (k, v) in kw {
            let text = match &v {
                Value::Str(s) => Some(s.clone()),
                Value::None => None,
                other => {
                    return Err(ScriptError::Type(format!(
                        "{k} must be None or a string, not {}",
                        other.type_name()
                    )))
                }
            };
            match k.as_str() {
                "sep" => sep = text.unwrap_or_else(|| " ".into()),
                "end" => end = text.unwrap_or_else(|| "\n".into()),
                "flush" | "file" => {}
                other => {
                    return Err(ScriptError::Type(format!(
                        "'{other}' is an invalid keyword argument for print()"
                    )))
                }
            }
        }
        let parts = pos
            .iter()
            .map(|v| self.str_of(v))
            .collect::<R<Vec<String>>>()?;
        self.recorder.print(&parts.join(&sep));
        self.recorder.print(&end);
        Ok(Value::None)
    }

    /// `len(x)`.
    fn len(&mut self, x: &Value) -> R<Value> {
        match x {
            Value::Tuple(v) | Value::List(v) => Ok(Value::Int(v.len() as i64)),
            Value::Dict(entries) | Value::OrderedDict(entries) => {
                Ok(Value::Int(entries.len() as i64))
            }
            Value::Size(v) => Ok(Value::Int(v.len() as i64)),
            Value::Str(s) => Ok(Value::Int(s.chars().count() as i64)),
            Value::Range(a, b, c) => Ok(Value::Int(range_len(*a, *b, *c))),
            Value::Storage(id, dtype) => Ok(Value::Int(self.storage_len(*id, *dtype))),
            Value::NdArray(a) => match a.borrow().tensor.shape().first() {
                Some(&n) => Ok(Value::Int(n)),
                None => Err(ScriptError::Type("len() of unsized object".into())),
            },
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                if t.ndim() == 0 {
                    return Err(ScriptError::Type("len() of a 0-d tensor".into()));
                }
                Ok(Value::Int(t.shape()[0]))
            }
            other => Err(ScriptError::Type(format!(
                "object of type '{}' has no len()",
                other.type_name()
            ))),
        }
    }

    /// `int(x)`, `float(x)`, `bool(x)`.
    fn number(&mut self, name: &str, x: &Value) -> R<Value> {
        if name == "bool" {
            return Ok(Value::Bool(self.truthy(x)?));
        }
        if let Value::Str(s) = x {
            let t = s.trim();
            return match name {
                "int" => t.parse::<i64>().map(Value::Int).map_err(|_| {
                    ScriptError::Value(format!(
                        "invalid literal for int() with base 10: {}",
                        crate::interp::python::repr::py_str_repr(s)
                    ))
                }),
                _ => t.parse::<f64>().map(Value::Float).map_err(|_| {
                    ScriptError::Value(format!(
                        "could not convert string to float: {}",
                        crate::interp::python::repr::py_str_repr(s)
                    ))
                }),
            };
        }
        let s = match x {
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                if t.numel() != 1 {
                    // `Tensor.__int__`/`__float__` say it their own way (unlike `item()`).
                    return Err(ScriptError::Value(
                        "only one element tensors can be converted to Python scalars".into(),
                    ));
                }
                self.check_item_not_meta(&t)?;
                self.engine
                    .values(&t)
                    .first()
                    .copied()
                    .unwrap_or(Scalar::Int(0))
            }
            // NumPy 2.4's `ndarray.__float__`/`__int__`: a 0-d array only.
            Value::NdArray(t) => {
                let t = t.borrow().tensor.clone();
                if t.ndim() != 0 {
                    return Err(ScriptError::Type(
                        "only 0-dimensional arrays can be converted to Python scalars".into(),
                    ));
                }
                self.engine
                    .values(&t)
                    .first()
                    .copied()
                    .unwrap_or(Scalar::Int(0))
            }
            other => self.scalar_of(other).ok_or_else(|| {
                ScriptError::Type(format!(
                    "{name}() argument must be a string or a real number, not '{}'",
                    other.type_name()
                ))
            })?,
        };
        Ok(match name {
            "int" => match s {
                Scalar::Float(f) if !f.is_finite() => {
                    return Err(if f.is_nan() {
                        ScriptError::Value("cannot convert float NaN to integer".into())
                    } else {
                        ScriptError::Overflow("cannot convert float infinity to integer".into())
                    })
                }
                Scalar::Float(f) => Value::Int(f.trunc() as i64),
                other => Value::Int(other.to_wrapped_int()),
            },
            _ => Value::Float(s.to_f64()),
        })
    }

    /// `min(a, b, ...)`/`max(...)` or over one iterable's items, compared by `key(item)` when a
    /// key function is given.
    fn min_max(&mut self, name: &str, items: Vec<Value>, key: Option<Value>) -> R<Value> {
        let mut keyed = Vec::with_capacity(items.len());
        for item in items {
            let k = match &key {
                Some(f) => self.call(f.clone(), vec![item.clone()], vec![])?,
                None => item.clone(),
            };
            keyed.push((k, item));
        }
        let mut iter = keyed.into_iter();
        let Some(mut best) = iter.next() else {
            return Err(ScriptError::Value(format!(
                "{name}() iterable argument is empty"
            )));
        };
        let op = if name == "min" { BinOp::Lt } else { BinOp::Gt };
        for pair in iter {
            let better = self.binary(op, pair.0.clone(), best.0.clone())?;
            if self.truthy(&better)? {
                best = pair;
            }
        }
        Ok(best.1)
    }

    /// The order that sorts `keys` by Python's `<` (stable); `keys` end sorted. An insertion
    /// sort: every comparison can raise, as Python's does.
    fn sort_order(&mut self, keys: &mut [Value]) -> R<Vec<usize>> {
        let mut order: Vec<usize> = (0..keys.len()).collect();
        for i in 1..keys.len() {
            let mut j = i;
            while j > 0 {
                let less = self.binary(BinOp::Lt, keys[j].clone(), keys[j - 1].clone())?;
                if !self.truthy(&less)? {
                    break;
                }
                keys.swap(j, j - 1);
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        Ok(order)
    }

    /// Sorts by Python's `<`.
    fn sort(&mut self, items: &mut [Value]) -> R<()> {
        self.sort_order(items).map(|_| ())
    }

    /// `round(x[, ndigits])`: Python's round-half-to-even.
    fn round(&mut self, pos: &[Value]) -> R<Value> {
        let digits = match pos.get(1) {
            None | Some(Value::None) => None,
            Some(Value::Int(d)) => Some(*d),
            Some(other) => {
                return Err(ScriptError::Type(format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                )))
            }
        };
        let x = match pos.first() {
            Some(Value::Int(i)) => return Ok(Value::Int(*i)),
            Some(Value::Bool(b)) => return Ok(Value::Int(i64::from(*b))),
            Some(Value::Float(f)) => *f,
            Some(Value::Tensor(t)) => {
                let t = t.borrow().tensor.clone();
                match self.engine.values(&t).first().copied() {
                    Some(s) if t.numel() == 1 => s.to_f64(),
                    _ => {
                        return Err(ScriptError::Type(
                            "type Tensor doesn't define __round__ method".into(),
                        ))
                    }
                }
            }
            Some(other) => {
                return Err(ScriptError::Type(format!(
                    "type {} doesn't define __round__ method",
                    other.type_name()
                )))
            }
            None => return missing("round", "number"),
        };
        match digits {
            None => {
                if !x.is_finite() {
                    return Err(ScriptError::Overflow(
                        "cannot convert float infinity to integer".into(),
                    ));
                }
                Ok(Value::Int(x.round_ties_even() as i64))
            }
            Some(d) => {
                // Python rounds the exact decimal value; going through its shortest repr
                // string at `d` digits gives the same result.
                let d = d.clamp(-300, 300);
                if d >= 0 {
                    let text = crate::core::print::pyfmt::fixed(x, d as usize);
                    Ok(Value::Float(text.parse().unwrap_or(x)))
                } else {
                    let p = 10f64.powi((-d) as i32);
                    Ok(Value::Float((x / p).round_ties_even() * p))
                }
            }
        }
    }

    /// `getattr(obj, name[, default])`, `setattr(obj, name, value)`, `delattr(obj, name)`.
    fn attribute_builtin(&mut self, name: &str, pos: Vec<Value>) -> R<Value> {
        let (least, most) = match name {
            "getattr" => (2, 3),
            "setattr" => (3, 3),
            _ => (2, 2),
        };
        if pos.len() < least || pos.len() > most {
            let count = if pos.len() < least { least } else { most };
            let bound = match (least == most, pos.len() < least) {
                (true, _) => "",
                (false, true) => "at least ",
                (false, false) => "at most ",
            };
            return Err(ScriptError::Type(format!(
                "{name} expected {bound}{count} arguments, got {}",
                pos.len()
            )));
        }
        let mut args = pos.into_iter();
        let object = args.next().unwrap_or(Value::None);
        let attr = match args.next() {
            Some(Value::Str(attr)) => attr,
            other => {
                return Err(ScriptError::Type(format!(
                    "attribute name must be string, not '{}'",
                    other.unwrap_or(Value::None).type_name()
                )))
            }
        };
        match name {
            "getattr" => match (self.attribute(object, &attr), args.next()) {
                (Err(ScriptError::Attribute(_)), Some(default)) => Ok(default),
                (result, _) => result,
            },
            "setattr" => {
                let value = args.next().unwrap_or(Value::None);
                self.set_attribute(object, &attr, value)
                    .map(|()| Value::None)
            }
            _ if matches!(object, Value::Instance(_) | Value::Class(_)) => self
                .delete_class_attribute(&object, &attr)
                .map(|()| Value::None),
            _ => Err(ScriptError::Attribute(format!(
                "'{}' object attribute '{attr}' is read-only",
                object.type_name()
            ))),
        }
    }

    /// `isinstance(object, class)` for the builtin types, `torch.Tensor` and tuples of them.
    fn isinstance(&mut self, object: &Value, class: &Value) -> R<Value> {
        let matches = |class: &Value| -> Option<bool> {
            if let Value::ExceptionType(base) = class {
                return Some(match object {
                    Value::Exception(e) => {
                        crate::core::tensor::error::is_exception_subclass(e.class_name(), base)
                    }
                    _ => false,
                });
            }
            if let Value::Class(class) = class {
                return Some(Evaluator::is_instance_of(object, class));
            }
            let Value::Method(owner, name) = class else {
                return None;
            };
            Some(match (&**owner, name.as_str()) {
                (Value::Torch, "Tensor") => matches!(object, Value::Tensor(_)),
                (Value::Module(m), "Parameter") if m == "torch.nn" => {
                    crate::interp::torch::nn::module::parameter::is_parameter(object)
                }
                (Value::Torch, class)
                    if crate::interp::torch::env::legacy_class_dtype(class).is_some() =>
                {
                    matches!(object, Value::Tensor(t)
                        if Some(t.borrow().tensor.dtype) == crate::interp::torch::env::legacy_class_dtype(class))
                }
                (Value::Torch, "Size") => matches!(object, Value::Size(_)),
                (Value::None, "int") => matches!(object, Value::Int(_) | Value::Bool(_)),
                (Value::None, "float") => matches!(object, Value::Float(_)),
                (Value::None, "bool") => matches!(object, Value::Bool(_)),
                (Value::None, "str") => matches!(object, Value::Str(_)),
                (Value::None, "list") => matches!(object, Value::List(_)),
                (Value::None, "tuple") => matches!(object, Value::Tuple(_) | Value::Size(_)),
                (Value::None, "range") => matches!(object, Value::Range(..)),
                (Value::None, "object") => true,
                _ => return None,
            })
        };
        let classes = match class {
            Value::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        for c in &classes {
            match matches(c) {
                Some(true) => return Ok(Value::Bool(true)),
                Some(false) => {}
                None => {
                    return Err(ScriptError::Type(
                        "isinstance() arg 2 must be a type, a tuple of types, or a union".into(),
                    ))
                }
            }
        }
        Ok(Value::Bool(false))
    }
}

/// `range(stop)`, `range(start, stop[, step])`.
fn range(args: Vec<i64>) -> R<Value> {
    let (start, stop, step) = match args.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        [] => {
            return Err(ScriptError::Type(
                "range expected at least 1 argument, got 0".into(),
            ))
        }
        more => {
            return Err(ScriptError::Type(format!(
                "range expected at most 3 arguments, got {}",
                more.len()
            )))
        }
    };
    if step == 0 {
        return Err(ScriptError::Value("range() arg 3 must not be zero".into()));
    }
    Ok(Value::Range(start, stop, step))
}

/// Python ints of every argument (`range`'s arguments).
fn ints(name: &str, pos: &[Value]) -> R<Vec<i64>> {
    pos.iter()
        .map(|v| match v {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(i64::from(*b)),
            other => Err(ScriptError::Type(format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ))),
        })
        .collect::<R<Vec<i64>>>()
        .map_err(|e| match e {
            ScriptError::Type(m) if name == "range" => ScriptError::Type(m),
            other => other,
        })
}

fn no_kw(name: &str, kw: Vec<(String, Value)>) -> R<()> {
    match kw.first() {
        None => Ok(()),
        Some(_) => Err(ScriptError::Type(format!(
            "{name}() takes no keyword arguments"
        ))),
    }
}

fn missing(name: &str, param: &str) -> R<Value> {
    Err(ScriptError::Type(format!(
        "{name}() missing required argument '{param}' (pos 1)"
    )))
}
