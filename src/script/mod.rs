//! The notebook script language: a faithful subset of Python, one statement per line.

pub mod ast;
pub mod lexer;
pub mod parser;

pub use parser::{parse_script, SyntaxError};
