//! Parser for the notebook subset of Python, with Python's precedence and, where we know them,
//! Python's error messages and positions. [`blocks`] groups logical lines into statements and
//! blocks; [`statements`] parses one line's statement; [`expressions`] and [`fstring`] its
//! expressions.

use crate::lang::ast::{Expr, Pos, Statement};
use crate::lang::lexer::{self, TokenKind};

#[cfg(test)]
mod block_tests;
mod blocks;
mod displays;
#[cfg(test)]
mod expression_tests;
mod expressions;
mod fstring;
#[cfg(test)]
mod statement_tests;
mod statements;
#[cfg(test)]
mod test_support;

use expressions::Parser;

/// A syntax error, as Python reports it: `SyntaxError: <message>` at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("SyntaxError: {message}")]
pub struct SyntaxError {
    /// Where the offending token starts.
    pub pos: Pos,
    /// Python's message, without the `SyntaxError: ` prefix.
    pub message: String,
}

impl SyntaxError {
    /// An error at `pos`.
    pub fn new(pos: Pos, message: impl Into<String>) -> Self {
        SyntaxError {
            pos,
            message: message.into(),
        }
    }
}

/// How deep the parser may recurse (brackets, unary operators, `**`, `not`).
pub(crate) const MAX_NESTING: usize = 1000;

/// Stack for the parser's thread: [`MAX_NESTING`] levels of recursion fit in it even in debug
/// builds, whose frames are large, whatever the caller's own stack.
const PARSER_STACK_BYTES: usize = 64 << 20;

/// One statement-or-error per top-level statement of the script, in order (a compound statement
/// is one item, with its blocks; each of `a = 1; b = 2` is one). Blank lines and comment-only lines produce
/// nothing. A statement with a syntax error yields one Err (with the line where a simple
/// statement starts, or where the error is in a compound statement); the statements before and
/// after it still parse.
pub fn parse_script(src: &str) -> Vec<Result<Statement, (usize, SyntaxError)>> {
    with_parser_stack(|| blocks::parse_script_here(src))
}

/// Parses a single expression (a bare tuple `a, b` is allowed, as in Python's `eval`).
pub fn parse_expression(src: &str) -> Result<Expr, SyntaxError> {
    with_parser_stack(|| parse_expression_here(src))
}

/// Runs `parse` on a thread with a [`PARSER_STACK_BYTES`] stack, or here if no thread can be
/// started.
fn with_parser_stack<T: Send>(parse: impl Fn() -> T + Sync) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("parser".to_string())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, &parse);
        match thread.map(|handle| handle.join()) {
            Ok(Ok(result)) => result,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => parse(),
        }
    })
}

/// [`parse_expression`] on the current thread.
fn parse_expression_here(src: &str) -> Result<Expr, SyntaxError> {
    let mut lines = lexer::logical_lines(src, true).into_iter();
    let line = match lines.next() {
        Some(Ok(line)) => line,
        Some(Err((_, error))) => return Err(error),
        None => return Err(SyntaxError::new(Pos { line: 1, col: 1 }, "invalid syntax")),
    };
    if let Some(extra) = lines.next() {
        return Err(match extra {
            Ok(extra) => SyntaxError::new(
                extra.tokens.first().map_or(
                    Pos {
                        line: extra.line,
                        col: 1,
                    },
                    |t| t.pos,
                ),
                "invalid syntax",
            ),
            Err((_, error)) => error,
        });
    }
    let mut parser = Parser::new(&line);
    let (node, _) = parser.testlist()?;
    if !matches!(parser.peek().kind, TokenKind::End) {
        return Err(parser.invalid_syntax());
    }
    Ok(node.expr)
}
