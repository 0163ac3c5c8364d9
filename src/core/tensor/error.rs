//! Errors a statement can raise, typed by Python exception class, with PyTorch's message text.

use thiserror::Error;

/// A Python exception raised by a statement: its class and its first message line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ScriptError {
    #[error("RuntimeError: {0}")]
    Runtime(String),
    #[error("IndexError: {0}")]
    Index(String),
    #[error("TypeError: {0}")]
    Type(String),
    #[error("ValueError: {0}")]
    Value(String),
    #[error("NotImplementedError: {0}")]
    NotImplemented(String),
    #[error("NameError: {0}")]
    Name(String),
    #[error("AttributeError: {0}")]
    Attribute(String),
    #[error("ZeroDivisionError: {0}")]
    ZeroDivision(String),
    #[error("OverflowError: {0}")]
    Overflow(String),
    #[error("ModuleNotFoundError: {0}")]
    ModuleNotFound(String),
    #[error("ImportError: {0}")]
    Import(String),
    #[error("KeyError: {0}")]
    Key(String),
    #[error("SyntaxError: {message}")]
    Syntax {
        line: usize,
        col: usize,
        message: String,
    },
    /// Another Python exception a script raises itself (`raise Exception("...")`, a failed
    /// `assert`, a recursion too deep): its class name and message.
    #[error("{class}: {message}")]
    Other { class: String, message: String },
}

impl ScriptError {
    /// Python's exception class name.
    pub fn class_name(&self) -> &str {
        match self {
            ScriptError::Runtime(_) => "RuntimeError",
            ScriptError::Index(_) => "IndexError",
            ScriptError::Type(_) => "TypeError",
            ScriptError::Value(_) => "ValueError",
            ScriptError::NotImplemented(_) => "NotImplementedError",
            ScriptError::Name(_) => "NameError",
            ScriptError::Attribute(_) => "AttributeError",
            ScriptError::ZeroDivision(_) => "ZeroDivisionError",
            ScriptError::Overflow(_) => "OverflowError",
            ScriptError::ModuleNotFound(_) => "ModuleNotFoundError",
            ScriptError::Import(_) => "ImportError",
            ScriptError::Key(_) => "KeyError",
            ScriptError::Syntax { .. } => "SyntaxError",
            ScriptError::Other { class, .. } => class,
        }
    }

    /// The exception's message (`str(e)` in Python).
    pub fn message(&self) -> &str {
        match self {
            ScriptError::Runtime(m)
            | ScriptError::Index(m)
            | ScriptError::Type(m)
            | ScriptError::Value(m)
            | ScriptError::NotImplemented(m)
            | ScriptError::Name(m)
            | ScriptError::Attribute(m)
            | ScriptError::ZeroDivision(m)
            | ScriptError::Overflow(m)
            | ScriptError::ModuleNotFound(m)
            | ScriptError::Import(m)
            | ScriptError::Key(m) => m,
            ScriptError::Syntax { message, .. } | ScriptError::Other { message, .. } => message,
        }
    }

    /// The exception a script raises as `class(message)`.
    pub fn from_class(class: &str, message: String) -> ScriptError {
        match class {
            "RuntimeError" => ScriptError::Runtime(message),
            "IndexError" => ScriptError::Index(message),
            "TypeError" => ScriptError::Type(message),
            "ValueError" => ScriptError::Value(message),
            "NotImplementedError" => ScriptError::NotImplemented(message),
            "NameError" => ScriptError::Name(message),
            "AttributeError" => ScriptError::Attribute(message),
            "ZeroDivisionError" => ScriptError::ZeroDivision(message),
            "OverflowError" => ScriptError::Overflow(message),
            "ModuleNotFoundError" => ScriptError::ModuleNotFound(message),
            "ImportError" => ScriptError::Import(message),
            "KeyError" => ScriptError::Key(message),
            other => ScriptError::Other {
                class: other.to_string(),
                message,
            },
        }
    }
}

/// The built-in exception classes a script can name (`except RuntimeError`), each with its
/// base class (Python's hierarchy, as far as these go).
pub const EXCEPTION_CLASSES: &[(&str, &str)] = &[
    ("BaseException", ""),
    ("Exception", "BaseException"),
    ("ArithmeticError", "Exception"),
    ("AssertionError", "Exception"),
    ("AttributeError", "Exception"),
    ("ImportError", "Exception"),
    ("LookupError", "Exception"),
    ("NameError", "Exception"),
    ("RuntimeError", "Exception"),
    ("StopIteration", "Exception"),
    ("SyntaxError", "Exception"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("IndexError", "LookupError"),
    ("KeyError", "LookupError"),
    ("ModuleNotFoundError", "ImportError"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("OverflowError", "ArithmeticError"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("Warning", "Exception"),
    ("UserWarning", "Warning"),
    ("DeprecationWarning", "Warning"),
    ("FutureWarning", "Warning"),
    ("RuntimeWarning", "Warning"),
];

/// Whether exception class `class` is `base` or derives from it.
pub fn is_exception_subclass(class: &str, base: &str) -> bool {
    let mut current = class;
    for _ in 0..EXCEPTION_CLASSES.len() {
        if current == base {
            return true;
        }
        match EXCEPTION_CLASSES.iter().find(|(c, _)| *c == current) {
            Some((_, parent)) if !parent.is_empty() => current = parent,
            _ => return false,
        }
    }
    false
}

/// Shorthand for `Err(ScriptError::Runtime(..))`.
pub fn runtime<T>(message: impl Into<String>) -> Result<T, ScriptError> {
    Err(ScriptError::Runtime(message.into()))
}

/// Shorthand for `Err(ScriptError::Index(..))`.
pub fn index_error<T>(message: impl Into<String>) -> Result<T, ScriptError> {
    Err(ScriptError::Index(message.into()))
}

/// Shorthand for `Err(ScriptError::Type(..))`.
pub fn type_error<T>(message: impl Into<String>) -> Result<T, ScriptError> {
    Err(ScriptError::Type(message.into()))
}

/// Converts a dimension-wrapping message into the `IndexError` PyTorch raises.
pub fn dim_error(message: String) -> ScriptError {
    ScriptError::Index(message)
}
