//! Op schemas in the manner of PyTorch's `native_functions.yaml`, and argument binding with
//! the messages of PyTorch's Python argument parser (`torch/csrc/utils/python_arg_parser.cpp`).
//!
//! A schema is written as PyTorch writes a Python signature:
//! `"Tensor input, int dim0, int dim1"`, `"int[] size, *, ScalarType? dtype=None"`,
//! `"Tensor input, int[1]? dim=None, bool keepdim=False"`. An op may have several overloads
//! (one schema each); binding tries them in order, as PyTorch does, and reports PyTorch's
//! text when none fits: the precise error for a single overload, and "received an invalid
//! combination of arguments" for several.
//!
//! Types: `Tensor`, `int`, `int[]` (`int[N]` also takes one int), `float`, `Scalar` (a Python
//! number), `bool`, `ScalarType` (a dtype), `MemoryFormat`, `Tensor[]`, `str`, `Device`,
//! `Any`; `T?` also takes `None`. `*` starts the keyword-only parameters. When an `int[]` is
//! the only positional parameter (`view(*size)`), it may also be given as varargs.
//!
//! A Python function's signature (`torch.nn.functional`, a layer's `__init__`) is written as
//! Python writes it: `"input, dim=None, _stacklevel=3, dtype=None"`, `"input, *,
//! approximate='none'"`. Its parameters take any value, NumPy's keyword spellings do not
//! apply, and its errors are Python's (`relu() missing 1 required positional argument:
//! 'input'`).

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;

/// The type of one parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParamType {
    Tensor,
    Int,
    /// A tuple or list of ints; `Some(n)` (`int[n]`) also takes a single int.
    IntList(Option<usize>),
    Float,
    Scalar,
    Bool,
    DType,
    MemoryFormat,
    TensorList,
    Str,
    Device,
    Any,
}

impl ParamType {
    fn parse(text: &str) -> Option<ParamType> {
        Some(match text {
            "Tensor" => ParamType::Tensor,
            "int" | "SymInt" => ParamType::Int,
            "int[]" | "SymInt[]" => ParamType::IntList(None),
            "float" => ParamType::Float,
            "Scalar" => ParamType::Scalar,
            "bool" => ParamType::Bool,
            "ScalarType" => ParamType::DType,
            "MemoryFormat" => ParamType::MemoryFormat,
            "Tensor[]" => ParamType::TensorList,
            "str" => ParamType::Str,
            "Device" => ParamType::Device,
            "Any" => ParamType::Any,
            other => {
                let n = other.strip_prefix("int[")?.strip_suffix(']')?;
                ParamType::IntList(Some(n.parse().ok()?))
            }
        })
    }

    /// The name PyTorch's messages give the type (`must be tuple of ints, not str`).
    fn display(self) -> &'static str {
        match self {
            ParamType::Tensor => "Tensor",
            ParamType::Int => "int",
            ParamType::IntList(_) => "tuple of ints",
            ParamType::Float => "float",
            ParamType::Scalar => "Number",
            ParamType::Bool => "bool",
            ParamType::DType => "torch.dtype",
            ParamType::MemoryFormat => "torch.memory_format",
            ParamType::TensorList => "tuple of Tensors",
            ParamType::Str => "str",
            ParamType::Device => "torch.device",
            ParamType::Any => "object",
        }
    }

    /// Whether `v` is accepted, as PyTorch's parser checks it before any conversion.
    fn accepts(self, v: &Value) -> bool {
        // An `int` takes a 0-d integer tensor (`__index__`); an int list's items take any
        // one-element integer tensor, as PyTorch's parser does.
        let int_like = |v: &Value, any_one: bool| match v {
            Value::Int(_) | Value::Bool(_) => true,
            Value::Tensor(t) => {
                let t = t.borrow();
                !t.tensor.dtype.is_floating()
                    && t.tensor.numel() == 1
                    && (any_one || t.tensor.ndim() == 0)
            }
            _ => false,
        };
        match self {
            ParamType::Tensor => matches!(v, Value::Tensor(_)),
            ParamType::Int => int_like(v, false),
            ParamType::IntList(size) => match v {
                Value::Tuple(items) | Value::List(items) => items.iter().all(|x| int_like(x, true)),
                Value::Size(_) => true,
                v if size.is_some() => int_like(v, false),
                _ => false,
            },
            ParamType::Float | ParamType::Scalar => match v {
                Value::Int(_) | Value::Bool(_) | Value::Float(_) => true,
                Value::Tensor(t) => t.borrow().tensor.numel() == 1,
                _ => false,
            },
            ParamType::Bool => matches!(v, Value::Bool(_) | Value::Int(0 | 1)),
            ParamType::DType => matches!(v, Value::DType(_)),
            ParamType::MemoryFormat => matches!(v, Value::MemoryFormat(_)),
            ParamType::TensorList => match v {
                Value::Tuple(items) | Value::List(items) => {
                    items.iter().all(|x| matches!(x, Value::Tensor(_)))
                }
                _ => false,
            },
            ParamType::Str => matches!(v, Value::Str(_)),
            ParamType::Device => matches!(v, Value::Str(_) | Value::Device(_)),
            ParamType::Any => true,
        }
    }
}

/// One parameter of a schema.
#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub ty: ParamType,
    pub name: String,
    /// `T?`: `None` is accepted.
    pub optional: bool,
    /// The default's text (`None`, `0`, `False`, `-1`), when the parameter may be left out.
    pub default: Option<String>,
    pub keyword_only: bool,
}

/// One overload: its parameters in order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schema {
    pub params: Vec<Param>,
    /// A Python function's signature: binding speaks Python's messages.
    pub python: bool,
}

impl Schema {
    /// Parses `"Tensor input, int dim0, *, bool keepdim=False"`. Schemas are written in the
    /// source, so a malformed one is a programming error caught by the registry's test.
    pub(crate) fn parse(text: &str) -> Result<Schema, String> {
        let mut params = Vec::new();
        let mut keyword_only = false;
        for part in split_params(text).into_iter().filter(|p| !p.is_empty()) {
            if part == "*" {
                keyword_only = true;
                continue;
            }
            let (decl, default) = match part.split_once('=') {
                Some((d, v)) => (d.trim(), Some(v.trim().to_string())),
                None => (part, None),
            };
            let (ty, name) = decl
                .rsplit_once(' ')
                .ok_or_else(|| format!("parameter without a type: {part:?}"))?;
            let (ty, optional) = match ty.strip_suffix('?') {
                Some(t) => (t, true),
                None => (ty, false),
            };
            let ty = ParamType::parse(ty).ok_or_else(|| format!("unknown type {ty:?}"))?;
            params.push(Param {
                ty,
                name: name.to_string(),
                optional,
                default,
                keyword_only,
            });
        }
        Ok(Schema {
            params,
            python: false,
        })
    }

    /// Parses a Python signature, `"input, dim=None, *, approximate='none'"`: every
    /// parameter takes any value; those with a default may be left out.
    pub(crate) fn parse_python(text: &str) -> Result<Schema, String> {
        let mut params = Vec::new();
        let mut keyword_only = false;
        for part in split_params(text).into_iter().filter(|p| !p.is_empty()) {
            if part == "*" {
                keyword_only = true;
                continue;
            }
            let (name, default) = match part.split_once('=') {
                Some((n, v)) => (n.trim(), Some(v.trim().to_string())),
                None => (part, None),
            };
            if name.is_empty() || name.contains(' ') {
                return Err(format!("not a Python parameter: {part:?}"));
            }
            params.push(Param {
                ty: ParamType::Any,
                name: name.to_string(),
                optional: false,
                default,
                keyword_only,
            });
        }
        Ok(Schema {
            params,
            python: true,
        })
    }

    /// The parameters without a default, which a call must give.
    fn required_count(&self) -> usize {
        self.params.iter().filter(|p| p.default.is_none()).count()
    }

    /// Arguments that must be given (no default, not optional).
    fn min_args(&self) -> usize {
        self.params
            .iter()
            .filter(|p| p.default.is_none() && !p.optional)
            .count()
    }

    fn positional_count(&self) -> usize {
        self.params.iter().filter(|p| !p.keyword_only).count()
    }

    /// PyTorch's varargs rule: an int list that is the only positional parameter.
    fn allows_varargs(&self) -> bool {
        self.positional_count() == 1 && matches!(self.params[0].ty, ParamType::IntList(_))
    }
}

/// Arguments bound to one overload's parameters, by position in the schema.
#[derive(Debug)]
pub(crate) struct Bound {
    /// Which overload matched (index into the op's schemas).
    pub overload: usize,
    pub names: Vec<String>,
    /// `None` where the argument was not given (its default applies).
    pub values: Vec<Option<Value>>,
}

impl Bound {
    /// The argument named `name`, if given and not `None`.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        let i = self.names.iter().position(|n| n == name)?;
        match &self.values[i] {
            Some(Value::None) | None => None,
            Some(v) => Some(v),
        }
    }
}

/// A call's arguments as the script wrote them.
pub(crate) struct CallArgs<'a> {
    /// The function's name as PyTorch prints it in messages (`transpose`).
    pub name: &'a str,
    pub pos: &'a [Value],
    pub kw: &'a [(String, Value)],
}

/// PyTorch's `should_allow_numbers_as_tensors`: functions whose `Tensor` parameters also take
/// a Python number (it is wrapped into a 0-dim tensor). Names the table does not have are
/// left out (a test checks that each is an op).
pub(crate) const NUMBERS_AS_TENSORS: &[&str] = &[
    "add",
    "add_",
    "div",
    "div_",
    "divide",
    "divide_",
    "mul",
    "mul_",
    "multiply",
    "multiply_",
    "sub",
    "sub_",
    "subtract",
    "subtract_",
    "to",
    "copy_",
    "floor_divide",
    "floor_divide_",
];

fn allows_numbers_as_tensors(name: &str) -> bool {
    NUMBERS_AS_TENSORS.contains(&name)
}

/// PyTorch's `numpy_compatibility_arg_names`: keywords that NumPy spells differently and that
/// PyTorch's argument parser also accepts (`x.sum(axis=0)`, `keepdims=True`).
fn numpy_alias_of(keyword: &str) -> Option<&'static str> {
    match keyword {
        "axis" => Some("dim"),
        "keepdims" => Some("keepdim"),
        "x" | "a" | "x1" => Some("input"),
        "x2" => Some("other"),
        _ => None,
    }
}

/// Whether parameter `p` of function `name` takes `v`.
fn param_accepts(name: &str, p: &Param, v: &Value) -> bool {
    if p.ty.accepts(v) || (p.optional && matches!(v, Value::None)) {
        return true;
    }
    let complex =
        matches!(v, Value::Complex(..)) && crate::interp::torch::ops::takes_complex_number(name);
    p.ty == ParamType::Tensor
        && (matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_)) || complex)
        && allows_numbers_as_tensors(name)
}

/// Why one overload did not bind; the message is PyTorch's.
struct Mismatch(String);

/// Binds `args` to the first overload of `schemas` that accepts them.
pub(crate) fn bind(schemas: &[Schema], args: &CallArgs) -> Result<Bound, ScriptError> {
    let mut first_error = None;
    for (i, schema) in schemas.iter().enumerate() {
        match bind_one(schema, args) {
            Ok(values) => {
                return Ok(Bound {
                    overload: i,
                    names: schema.params.iter().map(|p| p.name.clone()).collect(),
                    values,
                })
            }
            Err(Mismatch(m)) => {
                first_error.get_or_insert(m);
            }
        }
    }
    // The random factories also have a `generator` overload in PyTorch's parser, so a
    // keyword none of them takes (`names=`) is an invalid combination there.
    let generator_overload = matches!(
        args.name,
        "rand" | "randn" | "randint" | "randperm" | "rand_like" | "randn_like" | "randint_like"
    );
    let unexpected = first_error
        .as_deref()
        .is_some_and(|m| m.contains("unexpected keyword"));
    if schemas.len() == 1 && !(generator_overload && unexpected) {
        return Err(ScriptError::Type(first_error.unwrap_or_default()));
    }
    // PyTorch reports the precise error when exactly one overload takes this many arguments.
    let given = args.pos.len() + args.kw.len();
    let plausible: Vec<&Schema> = schemas
        .iter()
        .filter(|s| given >= s.min_args() && given <= s.params.len())
        .collect();
    if let (false, [only]) = (generator_overload && unexpected, plausible.as_slice()) {
        if let Err(Mismatch(m)) = bind_one(only, args) {
            return Err(ScriptError::Type(m));
        }
    }
    Err(ScriptError::Type(format!(
        "{}() received an invalid combination of arguments - got {}, but expected one of:",
        args.name,
        describe_args(args)
    )))
}

/// `(int, str, dim=int)`, as PyTorch describes what it was given: keyword arguments sorted
/// by name, and (PyTorch's quirk) a trailing `, ` when there are only keyword arguments.
fn describe_args(args: &CallArgs) -> String {
    let mut text = String::from("(");
    for v in args.pos {
        text.push_str(&v.type_name());
        text.push_str(", ");
    }
    if !args.pos.is_empty() && args.kw.is_empty() {
        text.truncate(text.len() - 2);
    }
    let mut kw: Vec<&(String, Value)> = args.kw.iter().collect();
    crate::core::tensor::stable_sort::sort_by(&mut kw, |a, b| a.0.cmp(&b.0));
    for (i, (k, v)) in kw.iter().enumerate() {
        text.push_str(&format!("{k}={}", v.type_name()));
        if i + 1 < kw.len() || args.pos.is_empty() {
            text.push_str(", ");
        }
    }
    text.push(')');
    text
}

/// A schema's parameters: split at the commas outside brackets (`int[] dims=[0,1]` is one).
fn split_params(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts
}

fn bind_one(schema: &Schema, args: &CallArgs) -> Result<Vec<Option<Value>>, Mismatch> {
    let name = args.name;
    let params = &schema.params;
    let mut values: Vec<Option<Value>> = vec![None; params.len()];
    let max_pos = schema.positional_count();
    if schema.python && args.pos.len() > max_pos {
        return Err(Mismatch(python_too_many(schema, args)));
    }
    if params.is_empty() && !args.pos.is_empty() {
        // A method without parameters is a plain C method to Python.
        return Err(Mismatch(format!(
            "TensorBase.{}() takes no arguments ({} given)",
            name,
            args.pos.len()
        )));
    }
    // Varargs (`view(2, 3)`) only when the first argument is itself an int.
    let varargs =
        schema.allows_varargs() && !args.pos.is_empty() && ParamType::Int.accepts(&args.pos[0]);
    if varargs {
        for (i, v) in args.pos.iter().enumerate() {
            if !ParamType::IntList(None).accepts(&Value::Tuple(vec![v.clone()])) {
                return Err(Mismatch(format!(
                    "{}(): argument '{}' failed to unpack the object at pos {} with error \"type must be tuple of ints,but got {}\"",
                    name,
                    params[0].name,
                    i + 1,
                    v.type_name()
                )));
            }
        }
        values[0] = Some(Value::Tuple(args.pos.to_vec()));
    } else {
        if args.pos.len() > max_pos {
            return Err(Mismatch(format!(
                "{}() takes {} positional argument{} but {} {} given",
                name,
                max_pos,
                if max_pos == 1 { "" } else { "s" },
                args.pos.len(),
                if args.pos.len() == 1 { "was" } else { "were" }
            )));
        }
        for (i, v) in args.pos.iter().enumerate() {
            let p = &params[i];
            if !param_accepts(name, p, v) {
                return Err(Mismatch(format!(
                    "{}(): argument '{}' (position {}) must be {}, not {}",
                    name,
                    p.name,
                    i + 1,
                    p.ty.display(),
                    v.type_name()
                )));
            }
            values[i] = Some(v.clone());
        }
    }
    for (k, v) in args.kw {
        // A NumPy spelling counts only where the parameter's own name is not also given
        // (PyTorch then calls the alias unexpected).
        let by_alias = || {
            if schema.python {
                return None;
            }
            let canonical = numpy_alias_of(k)?;
            let i = params.iter().position(|p| p.name == canonical)?;
            (values[i].is_none() && !args.kw.iter().any(|(other, _)| other == canonical))
                .then_some(i)
        };
        let Some(i) = params.iter().position(|p| &p.name == k).or_else(by_alias) else {
            return Err(Mismatch(format!(
                "{name}() got an unexpected keyword argument '{k}'"
            )));
        };
        if values[i].is_some() {
            return Err(Mismatch(format!(
                "{name}() got multiple values for argument '{k}'"
            )));
        }
        let p = &params[i];
        if !param_accepts(name, p, v) {
            return Err(Mismatch(format!(
                "{}(): argument '{}' must be {}, not {}",
                name,
                p.name,
                p.ty.display(),
                v.type_name()
            )));
        }
        values[i] = Some(v.clone());
    }
    let missing: Vec<String> = params
        .iter()
        .zip(&values)
        .filter(|(p, v)| v.is_none() && p.default.is_none() && !p.optional)
        .map(|(p, _)| format!("\"{}\"", p.name))
        .collect();
    if !missing.is_empty() && schema.python {
        return Err(Mismatch(python_missing(schema, args, &values)));
    }
    if !missing.is_empty() {
        // PyTorch's text says "arguments" even for one.
        return Err(Mismatch(format!(
            "{}() missing {} required positional arguments: {}",
            name,
            missing.len(),
            missing.join(", ")
        )));
    }
    Ok(values)
}

/// Python's "takes 2 positional arguments but 3 were given" (a method's `self` counts:
/// `Softmax.__init__`).
fn python_too_many(schema: &Schema, args: &CallArgs) -> String {
    let extra = usize::from(args.name.ends_with(".__init__"));
    let (most, least, given) = (
        schema.positional_count() + extra,
        schema.required_count() + extra,
        args.pos.len() + extra,
    );
    let takes = if least == most {
        format!("{most}")
    } else {
        format!("from {least} to {most}")
    };
    format!(
        "{}() takes {takes} positional argument{} but {given} {} given",
        args.name,
        if most == 1 && least == most { "" } else { "s" },
        if given == 1 { "was" } else { "were" }
    )
}

/// Python's "missing 2 required positional arguments: 'input' and 'target'".
fn python_missing(schema: &Schema, args: &CallArgs, values: &[Option<Value>]) -> String {
    let missing: Vec<String> = schema
        .params
        .iter()
        .zip(values)
        .filter(|(p, v)| v.is_none() && p.default.is_none())
        .map(|(p, _)| format!("'{}'", p.name))
        .collect();
    let list = match missing.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    };
    format!(
        "{}() missing {} required positional argument{}: {list}",
        args.name,
        missing.len(),
        if missing.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind_text(
        schemas: &[&str],
        pos: Vec<Value>,
        kw: Vec<(&str, Value)>,
    ) -> Result<Bound, String> {
        let schemas: Vec<Schema> = schemas.iter().map(|s| Schema::parse(s).unwrap()).collect();
        let kw: Vec<(String, Value)> = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        bind(
            &schemas,
            &CallArgs {
                name: "f",
                pos: &pos,
                kw: &kw,
            },
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn varargs_and_sequence_bind_the_same() {
        let a = bind_text(&["int[] size"], vec![Value::Int(2), Value::Int(3)], vec![]).unwrap();
        assert!(matches!(a.get("size"), Some(Value::Tuple(v)) if v.len() == 2));
        let b = bind_text(
            &["int[] size"],
            vec![Value::Tuple(vec![Value::Int(2), Value::Int(3)])],
            vec![],
        )
        .unwrap();
        assert!(matches!(b.get("size"), Some(Value::Tuple(v)) if v.len() == 2));
    }

    #[test]
    fn pytorch_messages() {
        let e = bind_text(
            &["int dim0, int dim1"],
            vec![Value::Str("x".into())],
            vec![],
        );
        assert_eq!(
            e.unwrap_err(),
            "TypeError: f(): argument 'dim0' (position 1) must be int, not str"
        );
        let e = bind_text(&["int dim0, int dim1"], vec![Value::Int(0)], vec![]);
        assert_eq!(
            e.unwrap_err(),
            "TypeError: f() missing 1 required positional arguments: \"dim1\""
        );
        let e = bind_text(&["int dim"], vec![Value::Int(0), Value::Int(1)], vec![]);
        assert_eq!(
            e.unwrap_err(),
            "TypeError: f() takes 1 positional argument but 2 were given"
        );
        let e = bind_text(&["int dim"], vec![], vec![("foo", Value::Int(1))]);
        assert_eq!(
            e.unwrap_err(),
            "TypeError: f() got an unexpected keyword argument 'foo'"
        );
        let e = bind_text(
            &["int dim0, int dim1", "str dim0, str dim1"],
            vec![Value::Float(1.0), Value::Int(1)],
            vec![],
        );
        assert_eq!(
            e.unwrap_err(),
            "TypeError: f() received an invalid combination of arguments - got (float, int), but expected one of:"
        );
    }

    #[test]
    fn overloads_pick_the_first_that_fits() {
        let b = bind_text(
            &["int split_size, int dim=0", "int[] split_size, int dim=0"],
            vec![Value::List(vec![Value::Int(1), Value::Int(2)])],
            vec![],
        )
        .unwrap();
        assert_eq!(b.overload, 1);
        assert!(b.get("dim").is_none());
    }
}
