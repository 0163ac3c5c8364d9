//! The notebook script language: a faithful subset of Python (simple statements, `if`/`for`/
//! `while` blocks, f-strings, comprehensions).

pub mod ast;
pub mod image_names;
pub mod lexer;
pub mod parser;

pub use image_names::names_in_script;
pub use parser::{parse_script, SyntaxError};
