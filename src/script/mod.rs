//! The notebook script language: a faithful subset of Python (simple statements, `if`/`for`/
//! `while` blocks, f-strings, comprehensions).

pub mod ast;
pub mod lexer;
pub mod parser;

pub use parser::{parse_script, SyntaxError};
