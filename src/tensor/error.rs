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
}

impl ScriptError {
    /// Python's exception class name.
    pub fn class_name(&self) -> &'static str {
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
        }
    }
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
