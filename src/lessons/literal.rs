//! Python literals: what a student types as an answer, what a lesson writes in `choices:`
//! and `expect:`. The text is parsed as one Python expression and accepted only when it is
//! a literal (numbers, `True`/`False`, `None`, strings, tuples, lists, `torch.Size([..])`,
//! dtypes such as `torch.float32`); anything else is refused, never evaluated.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::core::tensor::DType;
use crate::interp::Value;
use crate::lang::ast::{Expr, ExprKind, UnaryOp};
use crate::lang::parser::parse_expression;

/// The longest literal accepted, in characters.
pub const MAX_LITERAL_CHARS: usize = 4096;
/// The deepest nesting of tuples and lists accepted.
pub const MAX_LITERAL_DEPTH: usize = 16;

/// A Python literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `None`
    None,
    /// `True`, `False`
    Bool(bool),
    /// `3`, `-1`
    Int(i64),
    /// `2.5`
    Float(f64),
    /// `'abc'`
    Str(String),
    /// `(1, 3)`
    Tuple(Vec<Literal>),
    /// `[1, 3]`
    List(Vec<Literal>),
    /// `torch.Size([2, 3])`
    Size(Vec<i64>),
    /// `torch.float32`
    DType(DType),
}

/// Why a text is not a literal. The messages are shown to students.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "type")]
pub enum LiteralError {
    /// Nothing was typed.
    #[error("Type a value, such as (1, 3) or torch.float32.")]
    Empty,
    /// The text is longer than [`MAX_LITERAL_CHARS`].
    #[error("This value is too long ({chars} characters; at most {max}).", max = MAX_LITERAL_CHARS)]
    TooLong {
        /// Its length in characters.
        chars: usize,
    },
    /// The text is not valid Python.
    #[error("This is not valid Python: {message}")]
    Syntax {
        /// Python's message.
        message: String,
    },
    /// The text is code (a name, a call, arithmetic), not a value.
    #[error("`{code}` is code, not a value: type the value itself (a number, a tuple such as (1, 3), True/False, a dtype such as torch.float32).")]
    NotALiteral {
        /// The part of the text that is not a literal.
        code: String,
    },
    /// Tuples and lists nested deeper than [`MAX_LITERAL_DEPTH`].
    #[error("This value nests tuples and lists too deeply (at most {max} levels).", max = MAX_LITERAL_DEPTH)]
    TooDeep,
}

impl Literal {
    /// Parses `text` as a Python literal. Full-width punctuation typed with a Chinese or
    /// Japanese input method (`（1，3）`) is read as its ASCII form outside strings.
    pub fn parse(text: &str) -> Result<Literal, LiteralError> {
        let text = halfwidth(text);
        let text = text.trim();
        if text.is_empty() {
            return Err(LiteralError::Empty);
        }
        let chars = text.chars().count();
        if chars > MAX_LITERAL_CHARS {
            return Err(LiteralError::TooLong { chars });
        }
        let expr = parse_expression(text).map_err(|e| LiteralError::Syntax {
            message: e.message.clone(),
        })?;
        from_expr(&expr, text, 0)
    }

    /// The literal as a runtime value, for comparing with Python's `==`.
    pub fn to_value(&self) -> Value {
        match self {
            Literal::None => Value::None,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(i) => Value::Int(*i),
            Literal::Float(f) => Value::Float(*f),
            Literal::Str(s) => Value::Str(s.clone()),
            Literal::Tuple(items) => Value::Tuple(items.iter().map(Literal::to_value).collect()),
            Literal::List(items) => Value::List(items.iter().map(Literal::to_value).collect()),
            Literal::Size(dims) => Value::Size(dims.clone()),
            Literal::DType(d) => Value::DType(*d),
        }
    }

    /// The literal for a plain runtime value; `None` for tensors, storages and other objects
    /// a student cannot type.
    pub fn from_value(value: &Value) -> Option<Literal> {
        Some(match value {
            Value::None => Literal::None,
            Value::Bool(b) => Literal::Bool(*b),
            Value::Int(i) => Literal::Int(*i),
            Value::Float(f) => Literal::Float(*f),
            Value::Str(s) => Literal::Str(s.clone()),
            Value::Tuple(items) => Literal::Tuple(
                items
                    .iter()
                    .map(Literal::from_value)
                    .collect::<Option<_>>()?,
            ),
            Value::List(items) => Literal::List(
                items
                    .iter()
                    .map(Literal::from_value)
                    .collect::<Option<_>>()?,
            ),
            Value::Size(dims) => Literal::Size(dims.clone()),
            Value::DType(d) => Literal::DType(*d),
            _ => return None,
        })
    }
}

/// `text` with full-width ASCII forms (U+FF01..U+FF5E) and the ideographic space made ASCII,
/// outside string literals.
fn halfwidth(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            out.push(c);
            continue;
        }
        let c = match c {
            '\u{3000}' => ' ',
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            _ => c,
        };
        if c == '\'' || c == '"' {
            quote = Some(c);
        }
        out.push(c);
    }
    out
}

fn source_of(expr: &Expr, text: &str) -> String {
    // Positions are 1-based columns on the (single) line; show from there, shortened.
    let line = text
        .lines()
        .nth(expr.pos.line.saturating_sub(1))
        .unwrap_or(text);
    let part: String = line
        .chars()
        .skip(expr.pos.col.saturating_sub(1))
        .take(40)
        .collect();
    if part.trim().is_empty() {
        text.chars().take(40).collect()
    } else {
        part.trim().to_string()
    }
}

fn from_expr(expr: &Expr, text: &str, depth: usize) -> Result<Literal, LiteralError> {
    if depth > MAX_LITERAL_DEPTH {
        return Err(LiteralError::TooDeep);
    }
    let not_literal = || LiteralError::NotALiteral {
        code: source_of(expr, text),
    };
    Ok(match &expr.kind {
        ExprKind::None => Literal::None,
        ExprKind::Bool(b) => Literal::Bool(*b),
        ExprKind::Int(i) => Literal::Int(*i),
        ExprKind::Float(f) => Literal::Float(*f),
        ExprKind::Str(s) => Literal::Str(s.clone()),
        ExprKind::Unary { op, operand } if matches!(op, UnaryOp::Neg | UnaryOp::Pos) => {
            let neg = matches!(op, UnaryOp::Neg);
            match (&operand.kind, neg) {
                (ExprKind::Int(i), true) => Literal::Int(i.checked_neg().ok_or_else(not_literal)?),
                (ExprKind::Int(i), false) => Literal::Int(*i),
                (ExprKind::Float(f), true) => Literal::Float(-f),
                (ExprKind::Float(f), false) => Literal::Float(*f),
                _ => return Err(not_literal()),
            }
        }
        ExprKind::Tuple(items) => Literal::Tuple(
            items
                .iter()
                .map(|e| from_expr(e, text, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        ExprKind::List(items) => Literal::List(
            items
                .iter()
                .map(|e| from_expr(e, text, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        ExprKind::Attribute { object, name } if is_torch(object) => {
            Literal::DType(DType::from_name(name).ok_or_else(not_literal)?)
        }
        ExprKind::Call { func, args, kwargs } if kwargs.is_empty() && args.len() <= 1 => {
            match &func.kind {
                ExprKind::Attribute { object, name } if name == "Size" && is_torch(object) => {}
                _ => return Err(not_literal()),
            }
            let Some(arg) = args.first() else {
                return Ok(Literal::Size(Vec::new()));
            };
            match from_expr(arg, text, depth + 1)? {
                Literal::Tuple(items) | Literal::List(items) => Literal::Size(
                    items
                        .into_iter()
                        .map(|i| match i {
                            Literal::Int(i) => Ok(i),
                            _ => Err(not_literal()),
                        })
                        .collect::<Result<_, _>>()?,
                ),
                _ => return Err(not_literal()),
            }
        }
        _ => return Err(not_literal()),
    })
}

fn is_torch(expr: &Expr) -> bool {
    matches!(&expr.kind, ExprKind::Name(n) if n == "torch")
}

fn write_items(f: &mut fmt::Formatter<'_>, items: &[Literal]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// Python's `repr`.
impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::None => f.write_str("None"),
            Literal::Bool(true) => f.write_str("True"),
            Literal::Bool(false) => f.write_str("False"),
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Float(x) => f.write_str(&crate::core::print::py_float_repr(*x)),
            Literal::Str(s) => {
                if s.contains('\'') && !s.contains('"') {
                    write!(f, "\"{s}\"")
                } else {
                    write!(f, "'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
                }
            }
            Literal::Tuple(items) => {
                f.write_str("(")?;
                write_items(f, items)?;
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            Literal::List(items) => {
                f.write_str("[")?;
                write_items(f, items)?;
                f.write_str("]")
            }
            Literal::Size(dims) => {
                let list: Vec<String> = dims.iter().map(i64::to_string).collect();
                write!(f, "torch.Size([{}])", list.join(", "))
            }
            Literal::DType(d) => write!(f, "torch.{}", d.name()),
        }
    }
}

/// Serialized as its Python `repr` (`"(1, 3)"`).
impl Serialize for Literal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_parse_and_print_as_python() {
        for (text, repr) in [
            ("(1,3)", "(1, 3)"),
            ("torch.Size([1, 3])", "torch.Size([1, 3])"),
            ("[1, -3]", "[1, -3]"),
            ("(2,)", "(2,)"),
            ("torch.float16", "torch.float16"),
            ("None", "None"),
            ("True", "True"),
            ("2.5", "2.5"),
            ("'ab'", "'ab'"),
            ("（1，3）", "(1, 3)"),
            ("torch．Size（［1，　3］）", "torch.Size([1, 3])"),
            ("'（'", "'（'"),
        ] {
            assert_eq!(Literal::parse(text).unwrap().to_string(), repr, "{text}");
        }
    }

    #[test]
    fn code_is_refused_not_run() {
        for text in [
            "a.stride()",
            "1 + 2",
            "torch.zeros(3)",
            "x",
            "torch.nope",
            "[a]",
        ] {
            assert!(
                matches!(Literal::parse(text), Err(LiteralError::NotALiteral { .. })),
                "{text}"
            );
        }
        assert_eq!(Literal::parse("  "), Err(LiteralError::Empty));
        assert!(matches!(
            Literal::parse("(1,"),
            Err(LiteralError::Syntax { .. })
        ));
        let deep = format!("{}1{}", "(".repeat(40), ",)".repeat(40));
        assert_eq!(Literal::parse(&deep), Err(LiteralError::TooDeep));
    }
}
