//! The script level: logical lines grouped into statements and indented blocks, with Python's
//! indentation errors, and recovery so that a broken statement never hides the ones after it.

use crate::lang::parser::statements::{Clause, LineStatement, Simple};
use crate::lang::parser::{Parser, SyntaxError};
use std::sync::Arc;

use crate::lang::ast::{ClassDef, ExceptHandler, Expr, FunctionDef, Pos, Statement, StatementKind};
use crate::lang::lexer::{self, LogicalLine, TokenKind};

/// The deepest block nesting accepted (CPython's tokenizer has the same limit).
const MAX_INDENT_LEVELS: usize = 100;

/// A line's indentation, measured as CPython does: with tabs to the next multiple of 8 (`col`)
/// and with tabs as one column (`alt`). Two indentations compare only when both agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Indent {
    col: usize,
    alt: usize,
}

impl Indent {
    /// The indentation of a physical line.
    fn of(line: &[char]) -> Indent {
        let mut indent = Indent::default();
        for c in line {
            match c {
                ' ' => {
                    indent.col += 1;
                    indent.alt += 1;
                }
                '\t' => {
                    indent.col = (indent.col / 8 + 1) * 8;
                    indent.alt += 1;
                }
                '\x0c' => indent = Indent::default(),
                _ => break,
            }
        }
        indent
    }

    /// Whether `self` is deeper than `outer`; an error when tabs and spaces disagree.
    fn deeper_than(self, outer: Indent, pos: Pos) -> Result<bool, SyntaxError> {
        let by_col = self.col.cmp(&outer.col);
        if by_col != self.alt.cmp(&outer.alt) {
            return Err(SyntaxError::new(
                pos,
                "inconsistent use of tabs and spaces in indentation",
            ));
        }
        Ok(by_col == std::cmp::Ordering::Greater)
    }
}

/// One scanned logical line.
struct Scanned {
    /// 0-based index of its first physical line.
    start: usize,
    /// 0-based index of the physical line after it.
    next: usize,
    indent: Indent,
    result: Result<LogicalLine, SyntaxError>,
}

impl Scanned {
    /// Where the line's first token is (or would be).
    fn first_pos(&self) -> Pos {
        Pos {
            line: self.start + 1,
            col: match &self.result {
                Ok(line) => line.tokens.first().map_or(1, |t| t.pos.col),
                Err(_) => 1,
            },
        }
    }

    /// Whether the line is a decorator (`@name`).
    fn starts_with_decorator(&self) -> bool {
        matches!(&self.result, Ok(line)
            if matches!(line.tokens.first().map(|t| &t.kind), Some(TokenKind::Op("@"))))
    }

    /// Whether the line starts with the keyword `word`.
    fn starts_with(&self, word: &str) -> bool {
        matches!(&self.result, Ok(line)
            if matches!(line.tokens.first().map(|t| &t.kind), Some(TokenKind::Name(w)) if w == word))
    }
}

/// The script's physical lines and a cursor over its logical lines.
struct Script<'s> {
    lines: &'s [Vec<char>],
    /// Index of the physical line where the next logical line starts.
    cursor: usize,
    /// The logical line at `cursor`, once scanned.
    peeked: Option<Scanned>,
}

/// Where a statement sits: its enclosing indentations and whether it is inside a loop.
#[derive(Clone, Copy)]
struct Context<'c> {
    /// The indentations of the enclosing blocks, outermost first (the script's own is first).
    indents: &'c [Indent],
    in_loop: bool,
    /// Inside a `def` (where `return` may appear).
    in_function: bool,
}

/// [`crate::lang::parser::parse_script`] on the current thread.
///
/// A statement that continues over several lines (an open bracket) and then fails to parse is
/// reported as its first line's unclosed bracket, and parsing resumes on the next line: a
/// student in the middle of typing `b = a.view(2, 3` keeps seeing every later line run. After
/// an error, the indented lines that follow belong to the broken statement and are skipped.
pub(super) fn parse_script_here(src: &str) -> Vec<Result<Statement, (usize, SyntaxError)>> {
    let lines = lexer::physical_lines(src);
    let mut script = Script {
        lines: &lines,
        cursor: 0,
        peeked: None,
    };
    let top = [Indent::default()];
    let context = Context {
        indents: &top,
        in_loop: false,
        in_function: false,
    };
    let mut out = Vec::new();
    while let Some(line) = script.peek() {
        let start = line.start + 1;
        let compound = [
            "if", "for", "while", "elif", "else", "try", "except", "finally", "def", "with",
            "class",
        ]
        .iter()
        .any(|w| line.starts_with(w))
            || line.starts_with_decorator();
        if line.indent != Indent::default() {
            script.take();
            let error = SyntaxError::new(
                Pos {
                    line: start,
                    col: 1,
                },
                "unexpected indent",
            );
            out.push(Err((start, error)));
            continue;
        }
        match script.statement(context) {
            Ok(statements) => out.extend(statements.into_iter().map(Ok)),
            Err(error) => {
                let mut line = if compound {
                    error.pos.line.max(start)
                } else {
                    start
                };
                script.skip_indented();
                // An error found past the statements that follow (a string left open scans
                // ahead) is reported at the statement's own line, so lines stay in order.
                if script.peek().is_some_and(|next| line > next.start) {
                    line = start;
                }
                out.push(Err((line, error)));
            }
        }
    }
    out
}

impl Script<'_> {
    /// The next logical line, scanned (blank and comment lines are skipped).
    fn peek(&mut self) -> Option<&Scanned> {
        while self.peeked.is_none() && self.cursor < self.lines.len() {
            let (result, next) = lexer::scan_logical_line(self.lines, self.cursor, true);
            match result {
                None => self.cursor = next,
                Some(result) => {
                    let first = self.lines.get(self.cursor).map_or(&[][..], Vec::as_slice);
                    self.peeked = Some(Scanned {
                        start: self.cursor,
                        next,
                        indent: Indent::of(first),
                        result,
                    });
                }
            }
        }
        self.peeked.as_ref()
    }

    /// Takes the next logical line.
    fn take(&mut self) -> Option<Scanned> {
        self.peek();
        let line = self.peeked.take()?;
        self.cursor = line.next;
        Some(line)
    }

    /// Skips the indented lines after a broken statement.
    fn skip_indented(&mut self) {
        while self
            .peek()
            .is_some_and(|line| line.indent != Indent::default())
        {
            self.take();
        }
    }

    /// Parses the statements on the next logical line (whose indentation the caller checked),
    /// with their blocks: one compound statement, or simple statements separated by `;`;
    /// none at the end of the script.
    fn statement(&mut self, context: Context) -> Result<Vec<Statement>, SyntaxError> {
        let Some(scanned) = self.take() else {
            return Ok(Vec::new());
        };
        let line = scanned.result?;
        let parsed = Parser::new(&line).line_statement();
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(error) => return Err(self.recover(scanned.start, scanned.next, error)),
        };
        let source = line.text.trim().to_string();
        let (clause, pos, end, inline) = match parsed {
            LineStatement::Simple(simples) => {
                return simples
                    .into_iter()
                    .map(|simple| simple_statement(simple, line.line, context))
                    .collect()
            }
            LineStatement::Decorator(decorator) => {
                return self
                    .decorated(decorator, line.line, source, context)
                    .map(|statement| vec![statement])
            }
            LineStatement::Header {
                clause,
                pos,
                end,
                inline,
            } => (clause, pos, end, inline),
        };
        let header = Header {
            line: line.line,
            keyword: clause.keyword(),
            end,
            inline,
        };
        let kind = match clause {
            Clause::If(cond) => {
                let mut branches = vec![(cond, self.block(header, context, context.in_loop)?)];
                let mut orelse = Vec::new();
                while let Some(next) = self.peek() {
                    let same = next.indent == *context.indents.last().unwrap_or(&Indent::default());
                    if !same || !(next.starts_with("elif") || next.starts_with("else")) {
                        break;
                    }
                    let (clause, header) = self.clause_header()?;
                    match clause {
                        Clause::Elif(cond) => {
                            branches.push((cond, self.block(header, context, context.in_loop)?));
                        }
                        _ => {
                            orelse = self.block(header, context, context.in_loop)?;
                            break;
                        }
                    }
                }
                StatementKind::If { branches, orelse }
            }
            Clause::For(target, iter) => {
                let body = self.block(header, context, true)?;
                self.reject_loop_else(context)?;
                StatementKind::For { target, iter, body }
            }
            Clause::While(cond) => {
                let body = self.block(header, context, true)?;
                self.reject_loop_else(context)?;
                StatementKind::While { cond, body }
            }
            Clause::Try => self.try_statement(header, context)?,
            Clause::With(context_expr, name) => StatementKind::With {
                context: context_expr,
                name,
                body: self.block(header, context, context.in_loop)?,
            },
            Clause::Def(name, signature) => {
                let inner = Context {
                    in_loop: false,
                    in_function: true,
                    ..context
                };
                let body = self.block(header, inner, false)?;
                StatementKind::FunctionDef(Arc::new(FunctionDef {
                    name,
                    params: signature.params,
                    star: signature.star,
                    kwonly: signature.kwonly,
                    double_star: signature.double_star,
                    body,
                    decorators: Vec::new(),
                }))
            }
            Clause::Class(name, bases, keywords) => {
                let inner = Context {
                    in_loop: false,
                    in_function: false,
                    ..context
                };
                let body = self.block(header, inner, false)?;
                StatementKind::ClassDef(Arc::new(ClassDef {
                    name,
                    bases,
                    keywords,
                    body,
                    decorators: Vec::new(),
                }))
            }
            Clause::Elif(_) | Clause::Else | Clause::Except(..) | Clause::Finally => {
                return Err(SyntaxError::new(pos, "invalid syntax"));
            }
        };
        Ok(vec![Statement {
            line: line.line,
            source,
            kind,
        }])
    }

    /// The `def` or `class` (or further decorators) below the decorator `decorator` on
    /// `line`: the decorated statement starts at the decorator's line.
    fn decorated(
        &mut self,
        decorator: Expr,
        line: usize,
        source: String,
        context: Context,
    ) -> Result<Statement, SyntaxError> {
        let indent = context.indents.last().copied().unwrap_or_default();
        let next_pos = match self.peek() {
            Some(next) if next.indent == indent => next.first_pos(),
            Some(next) => {
                let pos = next.first_pos();
                return Err(SyntaxError::new(pos, "invalid syntax"));
            }
            None => return Err(SyntaxError::new(Pos { line, col: 1 }, "invalid syntax")),
        };
        let mut statements = self.statement(context)?;
        if statements.len() != 1 {
            return Err(SyntaxError::new(next_pos, "invalid syntax"));
        }
        let statement = statements.remove(0);
        let kind = match statement.kind {
            StatementKind::FunctionDef(mut def) => {
                Arc::make_mut(&mut def).decorators.insert(0, decorator);
                StatementKind::FunctionDef(def)
            }
            StatementKind::ClassDef(mut def) => {
                Arc::make_mut(&mut def).decorators.insert(0, decorator);
                StatementKind::ClassDef(def)
            }
            _ => return Err(SyntaxError::new(next_pos, "invalid syntax")),
        };
        Ok(Statement { line, source, kind })
    }

    /// A parse error on `scanned`: when the line spans several physical lines and its first
    /// one leaves a bracket open, that bracket is the error and parsing resumes on the next
    /// physical line.
    fn recover(&mut self, start: usize, next: usize, error: SyntaxError) -> SyntaxError {
        if next > start + 1 {
            if let Some(unclosed) = unclosed_bracket_on_line(self.lines, start) {
                self.cursor = start + 1;
                self.peeked = None;
                return unclosed;
            }
        }
        error
    }

    /// Takes an `elif`/`else` line and parses its header.
    fn clause_header(&mut self) -> Result<(Clause, Header), SyntaxError> {
        let Some(scanned) = self.take() else {
            return Err(SyntaxError::new(Pos::default(), "invalid syntax"));
        };
        let line = scanned.result?;
        match Parser::new(&line).line_statement() {
            Ok(LineStatement::Header {
                clause,
                end,
                inline,
                ..
            }) => {
                let header = Header {
                    line: line.line,
                    keyword: clause.keyword(),
                    end,
                    inline,
                };
                Ok((clause, header))
            }
            Ok(LineStatement::Simple(simples)) => Err(SyntaxError::new(
                simples.first().map_or(Pos::default(), |s| s.pos),
                "invalid syntax",
            )),
            Ok(LineStatement::Decorator(decorator)) => {
                Err(SyntaxError::new(decorator.pos, "invalid syntax"))
            }
            Err(error) => Err(self.recover(scanned.start, scanned.next, error)),
        }
    }

    /// The clauses after `try:`'s block: `except` handlers, then `else:` (only after a
    /// handler) and `finally:`, at the `try`'s indentation.
    fn try_statement(
        &mut self,
        header: Header,
        context: Context,
    ) -> Result<StatementKind, SyntaxError> {
        let try_end = header.end;
        let body = self.block(header, context, context.in_loop)?;
        let indent = context.indents.last().copied().unwrap_or_default();
        let (mut handlers, mut orelse, mut finalbody) = (Vec::new(), Vec::new(), Vec::new());
        let mut bare_seen = false;
        while let Some(next) = self.peek() {
            if next.indent != indent {
                break;
            }
            let pos = next.first_pos();
            let is_else = next.starts_with("else") && !handlers.is_empty();
            if !(next.starts_with("except") || is_else || next.starts_with("finally")) {
                break;
            }
            let (clause, header) = self.clause_header()?;
            match clause {
                Clause::Except(kind, name) => {
                    if bare_seen {
                        return Err(SyntaxError::new(pos, "default 'except:' must be last"));
                    }
                    bare_seen = kind.is_none();
                    let line = header.line;
                    let body = self.block(header, context, context.in_loop)?;
                    handlers.push(ExceptHandler {
                        line,
                        kind,
                        name,
                        body,
                    });
                }
                Clause::Else => orelse = self.block(header, context, context.in_loop)?,
                _ => {
                    finalbody = self.block(header, context, context.in_loop)?;
                    break;
                }
            }
            if !orelse.is_empty() && !self.peek().is_some_and(|n| n.starts_with("finally")) {
                break;
            }
        }
        if handlers.is_empty() && finalbody.is_empty() {
            let pos = self.peek().map_or(try_end, Scanned::first_pos);
            return Err(SyntaxError::new(
                pos,
                "expected 'except' or 'finally' block",
            ));
        }
        Ok(StatementKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        })
    }

    /// An `else:` after a loop at the loop's indentation is not supported.
    fn reject_loop_else(&mut self, context: Context) -> Result<(), SyntaxError> {
        let indent = context.indents.last().copied().unwrap_or_default();
        match self.peek() {
            Some(next) if next.indent == indent && next.starts_with("else") => {
                let pos = next.first_pos();
                self.take();
                Err(SyntaxError::new(
                    pos,
                    "'else' after a loop is not supported here",
                ))
            }
            _ => Ok(()),
        }
    }

    /// The block after `header`: its one-line body, or the indented lines that follow.
    fn block(
        &mut self,
        header: Header,
        context: Context,
        in_loop: bool,
    ) -> Result<Vec<Statement>, SyntaxError> {
        let inner_context = |indents| Context {
            indents,
            in_loop,
            in_function: context.in_function,
        };
        if !header.inline.is_empty() {
            let inner = inner_context(context.indents);
            return header
                .inline
                .into_iter()
                .map(|simple| simple_statement(simple, header.line, inner))
                .collect();
        }
        let outer = context.indents.last().copied().unwrap_or_default();
        let expected = || {
            // Python names a definition without quotes: "after function definition on line 1".
            let after = if header.keyword.ends_with(" definition") {
                header.keyword.to_string()
            } else {
                format!("'{}' statement", header.keyword)
            };
            SyntaxError::new(
                header.end,
                format!(
                    "expected an indented block after {after} on line {}",
                    header.line
                ),
            )
        };
        let Some(first) = self.peek() else {
            return Err(expected());
        };
        let indent = first.indent;
        if !indent.deeper_than(outer, first.first_pos())? {
            return Err(expected());
        }
        if context.indents.len() >= MAX_INDENT_LEVELS {
            return Err(SyntaxError::new(
                first.first_pos(),
                "too many levels of indentation",
            ));
        }
        let mut indents = context.indents.to_vec();
        indents.push(indent);
        let mut body = Vec::new();
        while let Some(next) = self.peek() {
            if next.indent != indent {
                let pos = next.first_pos();
                if next.indent.deeper_than(indent, pos)? {
                    return Err(SyntaxError::new(
                        Pos {
                            line: pos.line,
                            col: 1,
                        },
                        "unexpected indent",
                    ));
                }
                if !context.indents.contains(&next.indent) {
                    return Err(SyntaxError::new(
                        pos,
                        "unindent does not match any outer indentation level",
                    ));
                }
                break;
            }
            body.extend(self.statement(inner_context(&indents))?);
        }
        Ok(body)
    }
}

/// A compound statement's header, as its block needs it.
struct Header {
    line: usize,
    keyword: &'static str,
    /// Where the header's line ends.
    end: Pos,
    inline: Vec<Simple>,
}

/// A simple statement on line `line`; `break` and `continue` only inside a loop.
fn simple_statement(
    simple: Simple,
    line: usize,
    context: Context,
) -> Result<Statement, SyntaxError> {
    let kind = simple.kind;
    if !context.in_function && matches!(kind, StatementKind::Return(_)) {
        return Err(SyntaxError::new(simple.pos, "'return' outside function"));
    }
    if !context.in_loop {
        match kind {
            StatementKind::Break => {
                return Err(SyntaxError::new(simple.pos, "'break' outside loop"))
            }
            StatementKind::Continue => {
                return Err(SyntaxError::new(
                    simple.pos,
                    "'continue' not properly in loop",
                ))
            }
            _ => {}
        }
    }
    Ok(Statement {
        line,
        source: simple.source,
        kind,
    })
}

/// The "never closed" error of physical line `index` read on its own, if it has one.
fn unclosed_bracket_on_line(lines: &[Vec<char>], index: usize) -> Option<SyntaxError> {
    let alone = [lines.get(index)?.clone()];
    match lexer::scan_logical_line(&alone, 0, true).0 {
        Some(Err(mut e)) if e.message.ends_with("was never closed") => {
            e.pos.line = index + 1;
            Some(e)
        }
        _ => None,
    }
}
