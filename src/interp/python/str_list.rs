//! Methods of Python's `str` and `list` that notebooks use around their tensors
//! (`"{} has stride {}".format(...)`, `", ".join(...)`, `"%.3f" % x`, `shapes.append(...)`),
//! with Python's results and messages.

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::{Expr, ExprKind};

/// The `str` methods supported here.
pub(crate) const STR_METHODS: &[&str] = &[
    "format",
    "join",
    "split",
    "strip",
    "lstrip",
    "rstrip",
    "replace",
    "upper",
    "lower",
    "startswith",
    "endswith",
    "ljust",
    "rjust",
    "center",
    "count",
    "find",
    "zfill",
    "title",
    "isdigit",
];

/// The `list` methods supported here; all but `index` and `count` change the list.
pub(crate) const LIST_METHODS: &[&str] = &[
    "append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear", "index", "count",
    "copy",
];

impl Evaluator {
    /// `text.name(...)`.
    pub(crate) fn call_str_method(
        &mut self,
        text: &str,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> R<Value> {
        let arg_str = |i: usize| -> R<Option<String>> {
            match pos.get(i) {
                None | Some(Value::None) => Ok(None),
                Some(Value::Str(s)) => Ok(Some(s.clone())),
                Some(other) => Err(ScriptError::Type(format!(
                    "must be str, not {}",
                    other.type_name()
                ))),
            }
        };
        let width = |i: usize| -> R<usize> {
            match pos.get(i) {
                Some(Value::Int(n)) => Ok((*n).max(0) as usize),
                Some(other) => Err(ScriptError::Type(format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                ))),
                None => Err(ScriptError::Type(format!(
                    "{name}() takes at least 1 argument (0 given)"
                ))),
            }
        };
        let fill = arg_str(1)
            .ok()
            .flatten()
            .and_then(|s| s.chars().next())
            .unwrap_or(' ');
        let pad = |n: usize| -> String { std::iter::repeat_n(fill, n).collect() };
        let len = text.chars().count();
        Ok(match name {
            "format" => Value::Str(self.str_format(text, pos, kw)?),
            "join" => {
                let items = match pos.first() {
                    Some(v) => self.iterate(v)?,
                    None => {
                        return Err(ScriptError::Type(
                            "join() takes exactly one argument (0 given)".into(),
                        ))
                    }
                };
                let mut parts = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::Str(s) => parts.push(s.clone()),
                        other => {
                            return Err(ScriptError::Type(format!(
                                "sequence item {i}: expected str instance, {} found",
                                other.type_name()
                            )))
                        }
                    }
                }
                Value::Str(parts.join(text))
            }
            "split" => {
                let parts: Vec<Value> = match arg_str(0)? {
                    Some(sep) if sep.is_empty() => {
                        return Err(ScriptError::Value("empty separator".into()))
                    }
                    Some(sep) => text
                        .split(sep.as_str())
                        .map(|s| Value::Str(s.into()))
                        .collect(),
                    None => text
                        .split_whitespace()
                        .map(|s| Value::Str(s.into()))
                        .collect(),
                };
                Value::List(parts)
            }
            "strip" | "lstrip" | "rstrip" => {
                let chars: Option<Vec<char>> = arg_str(0)?.map(|s| s.chars().collect());
                let matches = |c: char| match &chars {
                    Some(set) => set.contains(&c),
                    None => c.is_whitespace(),
                };
                Value::Str(
                    match name {
                        "strip" => text.trim_matches(matches),
                        "lstrip" => text.trim_start_matches(matches),
                        _ => text.trim_end_matches(matches),
                    }
                    .to_string(),
                )
            }
            "replace" => match (arg_str(0)?, arg_str(1)?) {
                (Some(old), Some(new)) => Value::Str(text.replace(&old, &new)),
                _ => return Err(ScriptError::Type("replace expected 2 arguments".into())),
            },
            "upper" => Value::Str(text.to_ascii_uppercase()),
            "lower" => Value::Str(text.to_ascii_lowercase()),
            "title" => {
                let mut out = String::with_capacity(text.len());
                let mut start = true;
                for c in text.chars() {
                    out.push(if start {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    });
                    start = !c.is_alphanumeric();
                }
                Value::Str(out)
            }
            "isdigit" => Value::Bool(!text.is_empty() && text.chars().all(|c| c.is_ascii_digit())),
            "startswith" | "endswith" => {
                let prefixes = match pos.first() {
                    Some(Value::Str(s)) => vec![s.clone()],
                    Some(Value::Tuple(items)) => items
                        .iter()
                        .filter_map(|v| match v {
                            Value::Str(s) => Some(s.clone()),
                            _ => None,
                        })
                        .collect(),
                    _ => {
                        return Err(ScriptError::Type(format!(
                            "{name} first arg must be str or a tuple of str"
                        )))
                    }
                };
                Value::Bool(prefixes.iter().any(|p| {
                    if name == "startswith" {
                        text.starts_with(p.as_str())
                    } else {
                        text.ends_with(p.as_str())
                    }
                }))
            }
            "ljust" => Value::Str(format!("{text}{}", pad(width(0)?.saturating_sub(len)))),
            "rjust" => Value::Str(format!("{}{text}", pad(width(0)?.saturating_sub(len)))),
            "center" => {
                let w = width(0)?;
                let total = w.saturating_sub(len);
                // CPython's `pad`: the odd fill character goes left when both the fill and the
                // width are odd.
                let left = total / 2 + (total & w & 1);
                Value::Str(format!("{}{text}{}", pad(left), pad(total - left)))
            }
            "zfill" => {
                let w = width(0)?;
                let (sign, digits) = match text.strip_prefix(['-', '+']) {
                    Some(rest) => (&text[..1], rest),
                    None => ("", text),
                };
                Value::Str(format!(
                    "{sign}{}{digits}",
                    "0".repeat(w.saturating_sub(len))
                ))
            }
            "count" | "find" => {
                let Some(needle) = arg_str(0)? else {
                    return Err(ScriptError::Type(format!(
                        "{name}() takes at least 1 argument (0 given)"
                    )));
                };
                if name == "count" {
                    Value::Int(if needle.is_empty() {
                        len as i64 + 1
                    } else {
                        text.matches(needle.as_str()).count() as i64
                    })
                } else {
                    Value::Int(
                        text.find(needle.as_str())
                            .map_or(-1, |b| text[..b].chars().count() as i64),
                    )
                }
            }
            _ => {
                return Err(ScriptError::Attribute(format!(
                    "'str' object has no attribute '{name}'"
                )))
            }
        })
    }

    /// `"{} {:.2f} {name}".format(...)`: Python's replacement fields (automatic or explicit
    /// numbering, keyword names, `!r`/`!s`, format specs, `{{` and `}}`).
    fn str_format(&mut self, template: &str, pos: &[Value], kw: &[(String, Value)]) -> R<String> {
        let mut out = String::new();
        let mut chars = template.chars().peekable();
        let mut auto = 0usize;
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    out.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    out.push('}');
                }
                '}' => {
                    return Err(ScriptError::Value(
                        "Single '}' encountered in format string".into(),
                    ))
                }
                '{' => {
                    let mut field = String::new();
                    let mut closed = false;
                    for c in chars.by_ref() {
                        if c == '}' {
                            closed = true;
                            break;
                        }
                        field.push(c);
                    }
                    if !closed {
                        return Err(ScriptError::Value(
                            "Single '{' encountered in format string".into(),
                        ));
                    }
                    let (head, spec) = field.split_once(':').unwrap_or((&field, ""));
                    let (key, conversion) = match head.split_once('!') {
                        Some((k, conv)) => (k, Some(conv)),
                        None => (head, None),
                    };
                    let value = if key.is_empty() {
                        let v = pos.get(auto).cloned().ok_or_else(|| {
                            ScriptError::Index(format!(
                                "Replacement index {auto} out of range for positional args tuple"
                            ))
                        })?;
                        auto += 1;
                        v
                    } else if let Ok(i) = key.parse::<usize>() {
                        pos.get(i).cloned().ok_or_else(|| {
                            ScriptError::Index(format!(
                                "Replacement index {i} out of range for positional args tuple"
                            ))
                        })?
                    } else {
                        kw.iter()
                            .find(|(k, _)| k == key)
                            .map(|(_, v)| v.clone())
                            .ok_or_else(|| ScriptError::Key(format!("'{key}'")))?
                    };
                    let value = match conversion {
                        Some("r") => Value::Str(self.repr(&value)?),
                        Some("s") => Value::Str(self.str_of(&value)?),
                        _ => value,
                    };
                    out.push_str(&self.format_value(&value, spec)?);
                }
                c => out.push(c),
            }
        }
        Ok(out)
    }

    /// `template % args`: printf-style formatting (`%s %r %d %i %f %e %g %x %o %c %%`, with
    /// flags, width and precision).
    pub(crate) fn percent_format(&mut self, template: &str, args: &Value) -> R<String> {
        let args: Vec<Value> = match args {
            Value::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        let mut next = args.into_iter();
        let mut out = String::new();
        let mut chars = template.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let mut flags = String::new();
            while let Some(&f) = chars.peek() {
                if "-+ #0".contains(f) {
                    flags.push(f);
                    chars.next();
                } else {
                    break;
                }
            }
            let mut width = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                width.push(d);
                chars.next();
            }
            let mut precision = None;
            if chars.peek() == Some(&'.') {
                chars.next();
                let mut p = String::new();
                while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    p.push(d);
                    chars.next();
                }
                precision = Some(p);
            }
            let Some(conversion) = chars.next() else {
                return Err(ScriptError::Value("incomplete format".into()));
            };
            if conversion == '%' {
                out.push('%');
                continue;
            }
            let Some(value) = next.next() else {
                return Err(ScriptError::Type(
                    "not enough arguments for format string".into(),
                ));
            };
            let align = if flags.contains('-') { "<" } else { "" };
            let sign = if flags.contains('+') {
                "+"
            } else if flags.contains(' ') {
                " "
            } else {
                ""
            };
            let zero = if flags.contains('0') && !flags.contains('-') {
                "0"
            } else {
                ""
            };
            let alternate = if flags.contains('#') { "#" } else { "" };
            let dot = precision.map(|p| format!(".{p}")).unwrap_or_default();
            let text = match conversion {
                's' | 'r' | 'a' => {
                    let s = if conversion == 's' {
                        self.str_of(&value)?
                    } else {
                        self.repr(&value)?
                    };
                    let align = if align.is_empty() { ">" } else { align };
                    self.format_value(&Value::Str(s), &format!("{align}{width}{dot}"))?
                }
                'd' | 'i' | 'u' => {
                    let n = match value {
                        Value::Float(f) => Value::Int(f.trunc() as i64),
                        // `%d` calls `int()` on a tensor or a NumPy value.
                        v @ (Value::Tensor(_) | Value::NdArray(_) | Value::NpScalar(..)) => {
                            self.call_builtin("int", vec![v], vec![])?
                        }
                        v => v,
                    };
                    self.format_value(&n, &format!("{align}{sign}{zero}{width}d"))?
                }
                'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'x' | 'X' | 'o' => {
                    let dot = if dot.is_empty() && "fFeE".contains(conversion) {
                        ".6".to_string()
                    } else {
                        dot
                    };
                    let value = match (conversion, &value) {
                        ('f' | 'F' | 'e' | 'E' | 'g' | 'G', Value::Int(i)) => {
                            Value::Float(*i as f64)
                        }
                        // `%f` calls `float()` on a tensor or a NumPy value.
                        (
                            'f' | 'F' | 'e' | 'E' | 'g' | 'G',
                            Value::Tensor(_) | Value::NdArray(_) | Value::NpScalar(..),
                        ) => self.call_builtin("float", vec![value], vec![])?,
                        _ => value,
                    };
                    self.format_value(
                        &value,
                        &format!("{align}{sign}{alternate}{zero}{width}{dot}{conversion}"),
                    )?
                }
                'c' => match value {
                    Value::Int(i) => char::from_u32(i as u32)
                        .map(String::from)
                        .unwrap_or_default(),
                    Value::Str(s) => s,
                    other => {
                        return Err(ScriptError::Type(format!(
                            "%c requires an int or a unicode character, not {}",
                            other.type_name()
                        )))
                    }
                },
                other => {
                    return Err(ScriptError::Value(format!(
                        "unsupported format character '{other}' (0x{:x})",
                        other as u32
                    )))
                }
            };
            out.push_str(&text);
        }
        if next.next().is_some() {
            return Err(ScriptError::Type(
                "not all arguments converted during string formatting".into(),
            ));
        }
        Ok(out)
    }

    /// `xs.name(...)` on a list: the result, and the changed list when the method changes it
    /// (the caller stores it back where the list was read from).
    pub(crate) fn call_list_method(
        &mut self,
        mut items: Vec<Value>,
        name: &str,
        pos: &[Value],
    ) -> R<(Value, Option<Vec<Value>>)> {
        let expect = |n: usize| -> R<()> {
            if pos.len() == n {
                Ok(())
            } else {
                Err(ScriptError::Type(format!(
                    "list.{name}() takes exactly {n} argument{} ({} given)",
                    if n == 1 { "" } else { "s" },
                    pos.len()
                )))
            }
        };
        // A tensor item never equals here (Python's `==` on a tensor is elementwise).
        let position = |items: &[Value], v: &Value| {
            items.iter().position(|x| {
                !matches!(x, Value::Tensor(_))
                    && crate::interp::python::operators::values_equal(x, v)
            })
        };
        Ok(match name {
            "append" => {
                expect(1)?;
                items.push(pos[0].clone());
                (Value::None, Some(items))
            }
            "extend" => {
                expect(1)?;
                let more = self.iterate(&pos[0])?;
                items.extend(more);
                (Value::None, Some(items))
            }
            "insert" => {
                expect(2)?;
                let i = self.index_int(&pos[0])?;
                let n = items.len() as i64;
                let at = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
                items.insert(at, pos[1].clone());
                (Value::None, Some(items))
            }
            "pop" => {
                if items.is_empty() {
                    return Err(ScriptError::Index("pop from empty list".into()));
                }
                let n = items.len() as i64;
                let i = match pos.first() {
                    Some(v) => self.index_int(v)?,
                    None => n - 1,
                };
                let at = if i < 0 { i + n } else { i };
                if at < 0 || at >= n {
                    return Err(ScriptError::Index("pop index out of range".into()));
                }
                let item = items.remove(at as usize);
                (item, Some(items))
            }
            "remove" | "index" | "count" => {
                expect(1)?;
                if name == "count" {
                    let n = items
                        .iter()
                        .filter(|x| crate::interp::python::operators::values_equal(x, &pos[0]))
                        .count();
                    return Ok((Value::Int(n as i64), None));
                }
                let Some(i) = position(&items, &pos[0]) else {
                    return Err(ScriptError::Value(if name == "remove" {
                        "list.remove(x): x not in list".into()
                    } else {
                        format!("{} is not in list", self.repr(&pos[0])?)
                    }));
                };
                if name == "index" {
                    return Ok((Value::Int(i as i64), None));
                }
                items.remove(i);
                (Value::None, Some(items))
            }
            "reverse" => {
                items.reverse();
                (Value::None, Some(items))
            }
            "clear" => (Value::None, Some(Vec::new())),
            "copy" => (Value::List(items), None),
            "sort" => {
                let sorted = self.call(
                    Value::Method(Box::new(Value::None), "sorted".into()),
                    vec![Value::List(items)],
                    vec![],
                )?;
                let Value::List(sorted) = sorted else {
                    return Ok((Value::None, None));
                };
                (Value::None, Some(sorted))
            }
            _ => {
                return Err(ScriptError::Attribute(format!(
                    "'list' object has no attribute '{name}'"
                )))
            }
        })
    }

    /// Calls a list method on `items`, the list `object` evaluated to, storing a changed list
    /// back where it was read from (a name, or an item of an enclosing list).
    /// `tuple.index(x)` / `tuple.count(x)` (and a `torch.Size`'s, as a tuple's).
    pub(crate) fn call_tuple_method(
        &mut self,
        items: Vec<Value>,
        name: &str,
        pos: &[Value],
    ) -> R<Value> {
        let x = match (name, pos) {
            ("count", [x]) | ("index", [x, ..]) if pos.len() <= 3 => x,
            ("count", _) => {
                return Err(ScriptError::Type(format!(
                    "tuple.count() takes exactly one argument ({} given)",
                    pos.len()
                )))
            }
            (_, []) => {
                return Err(ScriptError::Type(
                    "index expected at least 1 argument, got 0".into(),
                ))
            }
            _ => {
                return Err(ScriptError::Type(format!(
                    "index expected at most 3 arguments, got {}",
                    pos.len()
                )))
            }
        };
        // `index(x, start, stop)`: the first position in `start..stop`.
        let bound = |i: usize| -> R<usize> {
            let n = items.len() as i64;
            match pos.get(i) {
                None => Ok(if i == 1 { 0 } else { items.len() }),
                Some(Value::Int(k)) => {
                    Ok((if *k < 0 { (k + n).max(0) } else { (*k).min(n) }) as usize)
                }
                Some(other) => Err(ScriptError::Type(format!(
                    "slice indices must be integers or have an __index__ method, not {}",
                    other.type_name()
                ))),
            }
        };
        let equal = |v: &Value| crate::interp::python::operators::values_equal(v, x);
        match name {
            "count" => Ok(Value::Int(items.iter().filter(|v| equal(v)).count() as i64)),
            _ => {
                let (start, stop) = (bound(1)?, bound(2)?);
                let found = items
                    .iter()
                    .enumerate()
                    .skip(start)
                    .take(stop.saturating_sub(start))
                    .find(|(_, v)| equal(v));
                match found {
                    Some((i, _)) => Ok(Value::Int(i as i64)),
                    None => Err(ScriptError::Value("tuple.index(x): x not in tuple".into())),
                }
            }
        }
    }

    pub(crate) fn call_list_method_on(
        &mut self,
        object: &Expr,
        items: Vec<Value>,
        name: &str,
        pos: &[Value],
    ) -> R<Value> {
        let (result, changed) = self.call_list_method(items, name, pos)?;
        if let Some(changed) = changed {
            self.store_back(object, Value::List(changed))?;
        }
        Ok(result)
    }

    /// Stores a changed list back at `object`: the name it is bound to, or the item of the
    /// list that holds it.
    pub(crate) fn store_back(&mut self, object: &Expr, value: Value) -> R<()> {
        match &object.kind {
            ExprKind::Name(name) => {
                self.scope.rebind(name, value);
                Ok(())
            }
            ExprKind::Subscript {
                object: outer,
                index,
            } => {
                let container = self.eval(outer)?;
                let index = self.eval(index)?;
                match container {
                    Value::List(items) => self.set_list_item(outer, items, &index, value),
                    Value::OrderedDict(mut entries) => {
                        crate::interp::python::dict::insert(&mut entries, index, value)?;
                        self.store_back(outer, Value::OrderedDict(entries))
                    }
                    Value::Dict(mut entries) => {
                        crate::interp::python::dict::insert(&mut entries, index, value)?;
                        self.store_back(outer, Value::Dict(entries))
                    }
                    _ => Ok(()),
                }
            }
            // `self.items.append(x)`: the list is stored back into the attribute.
            ExprKind::Attribute { object, name } => {
                let owner = self.eval(object)?;
                if let Value::Module(m) = &owner {
                    self.set_stdlib_attribute(m, name, value.clone());
                }
                self.set_class_attribute(&owner, name, value)?;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}
