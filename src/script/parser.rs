//! Parser for the notebook subset of Python: one statement per logical line, with Python's
//! precedence and, where we know them, Python's error messages and positions.

use super::ast::{BinOp, Expr, ExprKind, Pos, Statement, StatementKind, Target, UnaryOp};
use super::lexer::{self, LogicalLine, Token, TokenKind};

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
const MAX_NESTING: usize = 1000;

/// Stack for the parser's thread: [`MAX_NESTING`] levels of recursion fit in it even in debug
/// builds, whose frames are large, whatever the caller's own stack.
const PARSER_STACK_BYTES: usize = 64 << 20;

/// The tallest expression tree accepted; long operator chains build tall trees too.
const MAX_HEIGHT: usize = 300;

/// Python's keywords: never names.
const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Keywords that start a statement we do not support.
const STATEMENT_KEYWORDS: [&str; 21] = [
    "assert", "async", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "global", "if", "nonlocal", "pass", "raise", "return", "try", "while",
    "with",
];

/// Augmented assignment operators (rejected with a hint).
const AUGMENTED: [&str; 13] = [
    "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>=",
];

/// Binary operator levels from loosest to tightest; `None` marks an unsupported operator.
const BINARY_LEVELS: [&[(&str, Option<BinOp>)]; 6] = [
    &[("|", Some(BinOp::BitOr))],
    &[("^", Some(BinOp::BitXor))],
    &[("&", Some(BinOp::BitAnd))],
    &[("<<", None), (">>", None)],
    &[("+", Some(BinOp::Add)), ("-", Some(BinOp::Sub))],
    &[
        ("*", Some(BinOp::Mul)),
        ("/", Some(BinOp::Div)),
        ("//", Some(BinOp::FloorDiv)),
        ("%", Some(BinOp::Mod)),
        ("@", Some(BinOp::MatMul)),
    ],
];

/// One statement-or-error per logical line of the script, in order. Blank lines, comment-only
/// lines and `import torch` produce nothing. A line with a syntax error yields Err for that line
/// only (with the line where its statement starts); the lines before and after it still parse.
pub fn parse_script(src: &str) -> Vec<Result<Statement, (usize, SyntaxError)>> {
    with_parser_stack(|| parse_script_here(src))
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

/// [`parse_script`] on the current thread.
///
/// A statement that continues over several lines (an open bracket) and then fails to parse is
/// reported as its first line's unclosed bracket, and parsing resumes on the next line: a
/// student in the middle of typing `b = a.view(2, 3` keeps seeing every later line run.
fn parse_script_here(src: &str) -> Vec<Result<Statement, (usize, SyntaxError)>> {
    let lines = lexer::physical_lines(src);
    let mut out = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let (scanned, next) = lexer::scan_logical_line(&lines, start, false);
        let result = match scanned {
            None => None,
            Some(Ok(line)) => parse_statement(&line)
                .map_err(|e| (line.line, e))
                .transpose(),
            Some(Err(e)) => Some(Err((start + 1, e))),
        };
        if let Some(Err(_)) = &result {
            if next > start + 1 {
                if let Some(unclosed) = unclosed_bracket_on_line(&lines, start) {
                    out.push(Err((start + 1, unclosed)));
                    // Indented lines were meant as its continuation: skip them too.
                    start += 1;
                    while start < next && lines[start].first().is_some_and(|c| c.is_whitespace()) {
                        start += 1;
                    }
                    continue;
                }
            }
        }
        out.extend(result);
        start = next;
    }
    out
}

/// The "never closed" error of physical line `index` read on its own, if it has one.
fn unclosed_bracket_on_line(lines: &[Vec<char>], index: usize) -> Option<SyntaxError> {
    let alone = [lines.get(index)?.clone()];
    match lexer::scan_logical_line(&alone, 0, false).0 {
        Some(Err(mut e)) if e.message.ends_with("was never closed") => {
            e.pos.line = index + 1;
            Some(e)
        }
        _ => None,
    }
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

/// Parses one logical line; `None` for `import torch`.
fn parse_statement(line: &LogicalLine) -> Result<Option<Statement>, SyntaxError> {
    if is_import_torch(&line.tokens) {
        return Ok(None);
    }
    let kind = Parser::new(line).statement()?;
    Ok(Some(Statement {
        line: line.line,
        source: line.text.trim().to_string(),
        kind,
    }))
}

/// Whether the tokens are exactly `import torch`, optionally followed by `;`.
fn is_import_torch(tokens: &[Token]) -> bool {
    let kinds: Vec<&TokenKind> = tokens
        .iter()
        .map(|t| &t.kind)
        .filter(|k| !matches!(k, TokenKind::End))
        .collect();
    matches!(
        kinds.as_slice(),
        [TokenKind::Name(a), TokenKind::Name(b)] | [TokenKind::Name(a), TokenKind::Name(b), TokenKind::Op(";")]
            if a == "import" && b == "torch"
    )
}

/// Whether `word` is a Python keyword.
fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// Whether `op` is a comparison.
fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// What Python calls an expression of this kind in its error messages.
fn expr_name(kind: &ExprKind) -> &'static str {
    match kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => "literal",
        ExprKind::Bool(true) => "True",
        ExprKind::Bool(false) => "False",
        ExprKind::None => "None",
        ExprKind::Ellipsis => "ellipsis",
        ExprKind::Name(_) => "name",
        ExprKind::List(_) => "list",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::Attribute { .. } => "attribute",
        ExprKind::Subscript { .. } => "subscript",
        ExprKind::Call { .. } => "function call",
        ExprKind::Compare { .. } => "comparison",
        ExprKind::Binary { op, .. } if is_comparison(*op) => "comparison",
        ExprKind::Slice { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Binary { .. }
        | ExprKind::BoolOp { .. } => "expression",
    }
}

/// Converts an assignment's left side to a target, with Python's messages for invalid ones.
/// `bare` says the expression is an unparenthesised tuple; `suggest` that it sits right before
/// the final `=`, where Python adds "Maybe you meant '=='".
fn to_target(expr: Expr, bare: bool, suggest: bool) -> Result<Target, SyntaxError> {
    match expr.kind {
        ExprKind::Name(name) => Ok(Target::Name(name)),
        ExprKind::Attribute { object, name } => Ok(Target::Attribute { object, name }),
        ExprKind::Subscript { object, index } => Ok(Target::Subscript { object, index }),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            let count = items.len();
            items
                .into_iter()
                .enumerate()
                .map(|(k, item)| to_target(item, false, bare && suggest && k + 1 == count))
                .collect::<Result<_, _>>()
                .map(Target::Tuple)
        }
        kind => {
            let what = expr_name(&kind);
            let suggest = suggest
                && !matches!(
                    kind,
                    ExprKind::Compare { .. }
                        | ExprKind::BoolOp { .. }
                        | ExprKind::Bool(_)
                        | ExprKind::None
                        | ExprKind::Unary {
                            op: UnaryOp::Not,
                            ..
                        }
                )
                && what != "comparison";
            let message = if suggest {
                format!("cannot assign to {what} here. Maybe you meant '==' instead of '='?")
            } else {
                format!("cannot assign to {what}")
            };
            Err(SyntaxError::new(expr.pos, message))
        }
    }
}

/// An expression and the height of its tree.
struct Node {
    expr: Expr,
    height: usize,
}

impl Node {
    /// A node over children whose tallest is `children` high; errors past [`MAX_HEIGHT`].
    fn new(pos: Pos, kind: ExprKind, children: usize) -> Result<Node, SyntaxError> {
        if children >= MAX_HEIGHT {
            return Err(SyntaxError::new(pos, "expression is too deeply nested"));
        }
        Ok(Node {
            expr: Expr { pos, kind },
            height: children + 1,
        })
    }

    /// A node without children.
    fn leaf(pos: Pos, kind: ExprKind) -> Node {
        Node {
            expr: Expr { pos, kind },
            height: 1,
        }
    }

    /// A binary-like node; `make` builds the kind from the two boxed operands.
    fn pair(
        left: Node,
        right: Node,
        make: impl FnOnce(Box<Expr>, Box<Expr>) -> ExprKind,
    ) -> Result<Node, SyntaxError> {
        let height = left.height.max(right.height);
        let pos = left.expr.pos;
        Node::new(pos, make(Box::new(left.expr), Box::new(right.expr)), height)
    }
}

/// Splits nodes into their expressions and the tallest height.
fn unzip(nodes: Vec<Node>) -> (Vec<Expr>, usize) {
    let height = nodes.iter().map(|n| n.height).max().unwrap_or(0);
    (nodes.into_iter().map(|n| n.expr).collect(), height)
}

/// A recursive-descent parser over one logical line's tokens.
struct Parser<'a> {
    tokens: &'a [Token],
    text: &'a str,
    next: usize,
    depth: usize,
    /// Returned by [`Parser::peek`] past the last token.
    end: Token,
}

impl<'a> Parser<'a> {
    fn new(line: &'a LogicalLine) -> Self {
        let end = line.tokens.last().cloned().unwrap_or(Token {
            kind: TokenKind::End,
            pos: Pos {
                line: line.line,
                col: 1,
            },
            span: 0..0,
        });
        Parser {
            tokens: &line.tokens,
            text: &line.text,
            next: 0,
            depth: 0,
            end,
        }
    }

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> &Token {
        self.tokens.get(self.next + ahead).unwrap_or(&self.end)
    }

    /// Returns the current token and moves past it (never past the end).
    fn bump(&mut self) -> Token {
        let token = self.peek().clone();
        if self.next < self.tokens.len() {
            self.next += 1;
        }
        token
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek().kind, TokenKind::Op(o) if o == op)
    }

    fn is_name(&self, word: &str) -> bool {
        matches!(&self.peek().kind, TokenKind::Name(w) if w == word)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let found = self.is_op(op);
        if found {
            self.bump();
        }
        found
    }

    fn expect_op(&mut self, op: &str) -> Result<(), SyntaxError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.invalid_syntax())
        }
    }

    /// "invalid syntax" at the current token.
    fn invalid_syntax(&self) -> SyntaxError {
        SyntaxError::new(self.peek().pos, "invalid syntax")
    }

    /// Runs `parse` one level deeper, failing past [`MAX_NESTING`].
    fn nested<T>(
        &mut self,
        pos: Pos,
        parse: impl FnOnce(&mut Self) -> Result<T, SyntaxError>,
    ) -> Result<T, SyntaxError> {
        if self.depth >= MAX_NESTING {
            return Err(SyntaxError::new(pos, "expression is too deeply nested"));
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    /// The source text of tokens `from..to`.
    fn source(&self, from: usize, to: usize) -> &'a str {
        let start = self.tokens.get(from).map_or(0, |t| t.span.start);
        let end = to
            .checked_sub(1)
            .and_then(|k| self.tokens.get(k))
            .map_or(start, |t| t.span.end);
        self.text.get(start..end).unwrap_or("").trim()
    }

    /// statement: `(testlist '=')* testlist [';']`.
    fn statement(&mut self) -> Result<StatementKind, SyntaxError> {
        let first = self.peek().clone();
        if let TokenKind::Name(word) = &first.kind {
            if word == "import" || word == "from" {
                return Err(SyntaxError::new(
                    first.pos,
                    "only 'import torch' is supported here; torch is already imported",
                ));
            }
            if STATEMENT_KEYWORDS.contains(&word.as_str()) {
                return Err(SyntaxError::new(
                    first.pos,
                    format!("'{word}' statements are not supported here"),
                ));
            }
        }
        let mut current = self.testlist()?;
        if let TokenKind::Op(op) = self.peek().kind {
            if AUGMENTED.contains(&op) {
                return self.augmented(current, op);
            }
        }
        let mut targets = Vec::new();
        while self.eat_op("=") {
            let next = self.testlist()?;
            targets.push(std::mem::replace(&mut current, next));
        }
        self.end_of_statement()?;
        let value = current.0.expr;
        if targets.is_empty() {
            return Ok(StatementKind::Expr(value));
        }
        let count = targets.len();
        let targets = targets
            .into_iter()
            .enumerate()
            .map(|(k, (node, bare))| to_target(node.expr, bare, k + 1 == count))
            .collect::<Result<_, _>>()?;
        Ok(StatementKind::Assign { targets, value })
    }

    /// An optional `;`, then the end of the line.
    fn end_of_statement(&mut self) -> Result<(), SyntaxError> {
        if self.eat_op(";") && !matches!(self.peek().kind, TokenKind::End) {
            return Err(SyntaxError::new(
                self.peek().pos,
                "multiple statements on one line are not supported here",
            ));
        }
        if matches!(self.peek().kind, TokenKind::End) {
            Ok(())
        } else {
            Err(self.invalid_syntax())
        }
    }

    /// Rejects `target <op>= value` with a hint that spells out the alternative.
    fn augmented(
        &mut self,
        (target, bare): (Node, bool),
        op: &str,
    ) -> Result<StatementKind, SyntaxError> {
        let target_end = self.next;
        let op_pos = self.bump().pos;
        let value_start = self.next;
        let (value, _) = self.testlist()?;
        let value_end = self.next;
        self.end_of_statement()?;
        let target = target.expr;
        let assignable = matches!(
            target.kind,
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. }
        );
        if bare || !assignable {
            let what = if bare {
                "tuple"
            } else {
                expr_name(&target.kind)
            };
            return Err(SyntaxError::new(
                target.pos,
                format!("'{what}' is an illegal expression for augmented assignment"),
            ));
        }
        let t = self.source(0, target_end);
        let v = self.source(value_start, value_end);
        let binary = op.strip_suffix('=').unwrap_or(op);
        let grouped = matches!(
            value.expr.kind,
            ExprKind::Binary { .. }
                | ExprKind::BoolOp { .. }
                | ExprKind::Compare { .. }
                | ExprKind::Tuple(_)
                | ExprKind::Unary {
                    op: UnaryOp::Not,
                    ..
                }
        );
        let operand = if grouped {
            format!("({v})")
        } else {
            v.to_string()
        };
        let plain = format!("{t} = {t} {binary} {operand}");
        let hint = match op {
            "+=" => format!("{t}.add_({v}) or {plain}"),
            "-=" => format!("{t}.sub_({v}) or {plain}"),
            "*=" => format!("{t}.mul_({v}) or {plain}"),
            _ => plain,
        };
        Err(SyntaxError::new(
            op_pos,
            format!("augmented assignment is not supported here; write {hint}"),
        ))
    }

    /// Whether the current token can start an expression.
    fn starts_expr(&self) -> bool {
        match &self.peek().kind {
            TokenKind::Name(w) => {
                !is_keyword(w) || matches!(w.as_str(), "True" | "False" | "None" | "not")
            }
            TokenKind::Int(_) | TokenKind::Float(_) | TokenKind::Str(_) => true,
            TokenKind::Op(op) => matches!(*op, "(" | "[" | "{" | "-" | "+" | "~" | "..." | "*"),
            TokenKind::End => false,
        }
    }

    /// testlist: `expr (',' expr)* [',']`; a comma makes a bare tuple (flagged `true`).
    fn testlist(&mut self) -> Result<(Node, bool), SyntaxError> {
        let first = self.expr()?;
        if !self.is_op(",") {
            return Ok((first, false));
        }
        let pos = first.expr.pos;
        let mut items = vec![first];
        while self.eat_op(",") && self.starts_expr() {
            items.push(self.expr()?);
        }
        let (items, height) = unzip(items);
        Ok((Node::new(pos, ExprKind::Tuple(items), height)?, true))
    }

    /// expr: `and_test ('or' and_test)*`.
    fn expr(&mut self) -> Result<Node, SyntaxError> {
        self.bool_op(false)
    }

    /// `or` (with `and` false) or `and` chains, left-associative.
    fn bool_op(&mut self, and: bool) -> Result<Node, SyntaxError> {
        let operand = |p: &mut Self| if and { p.not_test() } else { p.bool_op(true) };
        let mut left = operand(self)?;
        while self.is_name(if and { "and" } else { "or" }) {
            self.bump();
            let right = operand(self)?;
            left = Node::pair(left, right, |left, right| ExprKind::BoolOp {
                and,
                left,
                right,
            })?;
        }
        Ok(left)
    }

    /// not_test: `'not' not_test | comparison`.
    fn not_test(&mut self) -> Result<Node, SyntaxError> {
        if !self.is_name("not") {
            return self.comparison();
        }
        let pos = self.bump().pos;
        let operand = self.nested(pos, Self::not_test)?;
        let kind = ExprKind::Unary {
            op: UnaryOp::Not,
            operand: Box::new(operand.expr),
        };
        Node::new(pos, kind, operand.height)
    }

    /// comparison: `bitwise_or (compare_op bitwise_or)*`. One comparison is a `Binary`, a
    /// chain of several a `Compare`.
    fn comparison(&mut self) -> Result<Node, SyntaxError> {
        let first = self.binary(0)?;
        let mut ops = Vec::new();
        let mut rest = Vec::new();
        loop {
            let op = match &self.peek().kind {
                TokenKind::Op("==") => BinOp::Eq,
                TokenKind::Op("!=") => BinOp::Ne,
                TokenKind::Op("<") => BinOp::Lt,
                TokenKind::Op("<=") => BinOp::Le,
                TokenKind::Op(">") => BinOp::Gt,
                TokenKind::Op(">=") => BinOp::Ge,
                TokenKind::Name(w) if w == "in" || w == "is" => {
                    let pos = self.peek().pos;
                    return Err(SyntaxError::new(
                        pos,
                        format!("the '{w}' operator is not supported here"),
                    ));
                }
                TokenKind::Name(w)
                    if w == "not"
                        && matches!(&self.peek_at(1).kind, TokenKind::Name(n) if n == "in") =>
                {
                    let pos = self.peek().pos;
                    return Err(SyntaxError::new(
                        pos,
                        "the 'not in' operator is not supported here",
                    ));
                }
                _ => break,
            };
            self.bump();
            ops.push(op);
            rest.push(self.binary(0)?);
        }
        if ops.len() > 1 {
            let pos = first.expr.pos;
            let (rest, height) = unzip(rest);
            let height = height.max(first.height);
            let kind = ExprKind::Compare {
                first: Box::new(first.expr),
                ops,
                rest,
            };
            return Node::new(pos, kind, height);
        }
        match (ops.pop(), rest.pop()) {
            (Some(op), Some(right)) => Node::pair(first, right, |left, right| ExprKind::Binary {
                op,
                left,
                right,
            }),
            _ => Ok(first),
        }
    }

    /// Left-associative binary operators of [`BINARY_LEVELS`] from `level` on.
    fn binary(&mut self, level: usize) -> Result<Node, SyntaxError> {
        let Some(ops) = BINARY_LEVELS.get(level) else {
            return self.unary();
        };
        let mut left = self.binary(level + 1)?;
        loop {
            let token = self.peek();
            let TokenKind::Op(text) = token.kind else {
                break;
            };
            let Some(&(_, op)) = ops.iter().find(|(o, _)| *o == text) else {
                break;
            };
            let Some(op) = op else {
                return Err(SyntaxError::new(
                    token.pos,
                    format!("the '{text}' operator is not supported here"),
                ));
            };
            self.bump();
            let right = self.binary(level + 1)?;
            left = Node::pair(left, right, |left, right| ExprKind::Binary {
                op,
                left,
                right,
            })?;
        }
        Ok(left)
    }

    /// unary: `('-' | '+' | '~') unary | power`.
    fn unary(&mut self) -> Result<Node, SyntaxError> {
        let op = match self.peek().kind {
            TokenKind::Op("-") => UnaryOp::Neg,
            TokenKind::Op("+") => UnaryOp::Pos,
            TokenKind::Op("~") => UnaryOp::Invert,
            _ => return self.power(),
        };
        let pos = self.bump().pos;
        let operand = self.nested(pos, Self::unary)?;
        Node::new(
            pos,
            ExprKind::Unary {
                op,
                operand: Box::new(operand.expr),
            },
            operand.height,
        )
    }

    /// power: `postfix ['**' unary]` (right-associative, tighter than a unary on its left).
    fn power(&mut self) -> Result<Node, SyntaxError> {
        let base = self.postfix()?;
        if !self.is_op("**") {
            return Ok(base);
        }
        let pos = self.bump().pos;
        let exponent = self.nested(pos, Self::unary)?;
        Node::pair(base, exponent, |left, right| ExprKind::Binary {
            op: BinOp::Pow,
            left,
            right,
        })
    }

    /// postfix: `atom ('.' NAME | '(' arguments ')' | '[' subscript ']')*`.
    fn postfix(&mut self) -> Result<Node, SyntaxError> {
        let mut node = self.atom()?;
        loop {
            let pos = node.expr.pos;
            if self.eat_op(".") {
                let token = self.bump();
                let name = match token.kind {
                    TokenKind::Name(name) if !is_keyword(&name) => name,
                    _ => return Err(SyntaxError::new(token.pos, "invalid syntax")),
                };
                let kind = ExprKind::Attribute {
                    object: Box::new(node.expr),
                    name,
                };
                node = Node::new(pos, kind, node.height)?;
            } else if self.is_op("(") {
                let open = self.bump().pos;
                let (args, kwargs, height) = self.nested(open, Self::call_arguments)?;
                let kind = ExprKind::Call {
                    func: Box::new(node.expr),
                    args,
                    kwargs,
                };
                node = Node::new(pos, kind, height.max(node.height))?;
            } else if self.is_op("[") {
                let open = self.bump().pos;
                let index = self.nested(open, Self::subscript)?;
                let kind = ExprKind::Subscript {
                    object: Box::new(node.expr),
                    index: Box::new(index.expr),
                };
                node = Node::new(pos, kind, index.height.max(node.height))?;
            } else {
                return Ok(node);
            }
        }
    }

    /// atom: a literal, a name, `...`, `( ... )` or `[ ... ]`.
    fn atom(&mut self) -> Result<Node, SyntaxError> {
        let token = self.bump();
        let pos = token.pos;
        let kind = match token.kind {
            TokenKind::Name(name) => match name.as_str() {
                "True" => ExprKind::Bool(true),
                "False" => ExprKind::Bool(false),
                "None" => ExprKind::None,
                word if is_keyword(word) => return Err(SyntaxError::new(pos, "invalid syntax")),
                _ => ExprKind::Name(name),
            },
            TokenKind::Int(value) => ExprKind::Int(value),
            TokenKind::Float(value) => ExprKind::Float(value),
            TokenKind::Str(mut value) => {
                // Adjacent literals concatenate: 'a' 'b' == 'ab'.
                while let TokenKind::Str(more) = &self.peek().kind {
                    value.push_str(more);
                    self.bump();
                }
                ExprKind::Str(value)
            }
            TokenKind::Op("...") => ExprKind::Ellipsis,
            TokenKind::Op("(") => return self.nested(pos, |p| p.parenthesized(pos)),
            TokenKind::Op("[") => return self.nested(pos, |p| p.list(pos)),
            TokenKind::Op("{") => {
                return Err(SyntaxError::new(
                    pos,
                    "dict and set displays are not supported here",
                ))
            }
            TokenKind::Op("*") => {
                return Err(SyntaxError::new(
                    pos,
                    "starred expressions are not supported here",
                ))
            }
            _ => return Err(SyntaxError::new(pos, "invalid syntax")),
        };
        Ok(Node::leaf(pos, kind))
    }

    /// An element of a list, tuple or call: an expression, not followed by a comprehension.
    fn element(&mut self) -> Result<Node, SyntaxError> {
        let node = self.expr()?;
        if self.is_name("for") {
            return Err(SyntaxError::new(
                self.peek().pos,
                "comprehensions are not supported here",
            ));
        }
        Ok(node)
    }

    /// After `(`: `()`, `(expr)`, `(expr,)` or `(expr, expr, ...)`; its pos is the `(`.
    fn parenthesized(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        if self.eat_op(")") {
            return Ok(Node::leaf(open, ExprKind::Tuple(Vec::new())));
        }
        let first = self.element()?;
        if self.eat_op(")") {
            return Ok(Node {
                expr: Expr {
                    pos: open,
                    ..first.expr
                },
                height: first.height,
            });
        }
        let mut items = vec![first];
        while self.eat_op(",") && !self.is_op(")") {
            items.push(self.element()?);
        }
        self.expect_op(")")?;
        let (items, height) = unzip(items);
        Node::new(open, ExprKind::Tuple(items), height)
    }

    /// After `[`: a list display, trailing comma allowed.
    fn list(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        let mut items = Vec::new();
        while !self.eat_op("]") {
            items.push(self.element()?);
            if !self.eat_op(",") {
                self.expect_op("]")?;
                break;
            }
        }
        let (items, height) = unzip(items);
        Node::new(open, ExprKind::List(items), height)
    }

    /// After a call's `(`: positional then keyword arguments, trailing comma allowed.
    #[allow(clippy::type_complexity)]
    fn call_arguments(&mut self) -> Result<(Vec<Expr>, Vec<(String, Expr)>, usize), SyntaxError> {
        let mut args = Vec::new();
        let mut kwargs: Vec<(String, Expr)> = Vec::new();
        let mut height = 0;
        while !self.eat_op(")") {
            let token = self.peek().clone();
            let keyword = match &token.kind {
                TokenKind::Op("*" | "**") => {
                    return Err(SyntaxError::new(
                        token.pos,
                        "argument unpacking with '*' or '**' is not supported here",
                    ))
                }
                TokenKind::Name(name)
                    if !is_keyword(name) && matches!(self.peek_at(1).kind, TokenKind::Op("=")) =>
                {
                    Some(name.clone())
                }
                _ => None,
            };
            if let Some(name) = keyword {
                self.bump();
                self.bump();
                let value = self.element()?;
                if kwargs.iter().any(|(k, _)| *k == name) {
                    return Err(SyntaxError::new(
                        token.pos,
                        format!("keyword argument repeated: {name}"),
                    ));
                }
                height = height.max(value.height);
                kwargs.push((name, value.expr));
            } else {
                let arg = self.element()?;
                if self.is_op("=") {
                    let message = match arg.expr.kind {
                        ExprKind::Bool(_) | ExprKind::None => {
                            format!("cannot assign to {}", expr_name(&arg.expr.kind))
                        }
                        _ => "expression cannot contain assignment, perhaps you meant \"==\"?"
                            .to_string(),
                    };
                    return Err(SyntaxError::new(arg.expr.pos, message));
                }
                if !kwargs.is_empty() {
                    return Err(SyntaxError::new(
                        arg.expr.pos,
                        "positional argument follows keyword argument",
                    ));
                }
                height = height.max(arg.height);
                args.push(arg.expr);
            }
            if !self.eat_op(",") {
                self.expect_op(")")?;
                break;
            }
        }
        Ok((args, kwargs, height))
    }

    /// After a subscript's `[`: one index, or several (or one with a trailing comma) as a tuple.
    fn subscript(&mut self) -> Result<Node, SyntaxError> {
        let first = self.slice_item()?;
        if !self.eat_op(",") {
            self.expect_op("]")?;
            return Ok(first);
        }
        let pos = first.expr.pos;
        let mut items = vec![first];
        while !self.is_op("]") {
            items.push(self.slice_item()?);
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("]")?;
        let (items, height) = unzip(items);
        Node::new(pos, ExprKind::Tuple(items), height)
    }

    /// An index: an expression or a slice `start:stop:step` with any part omitted.
    fn slice_item(&mut self) -> Result<Node, SyntaxError> {
        let pos = self.peek().pos;
        let start = if self.is_op(":") {
            None
        } else {
            let start = self.expr()?;
            if !self.is_op(":") {
                return Ok(start);
            }
            Some(start)
        };
        self.bump();
        let stop = self.slice_part()?;
        let step = if self.eat_op(":") {
            self.slice_part()?
        } else {
            None
        };
        let parts = [start, stop, step];
        let height = parts.iter().flatten().map(|n| n.height).max().unwrap_or(0);
        let [start, stop, step] = parts.map(|part| part.map(|n| Box::new(n.expr)));
        Node::new(pos, ExprKind::Slice { start, stop, step }, height)
    }

    /// A slice's stop or step, absent before `:`, `,` or `]`.
    fn slice_part(&mut self) -> Result<Option<Node>, SyntaxError> {
        if self.is_op(":") || self.is_op(",") || self.is_op("]") {
            Ok(None)
        } else {
            self.expr().map(Some)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The sample notebook lines from the course material.
    const LINES: [&str; 18] = [
        "a = torch.tensor([[4, 1, 6], [0, 8, 8], [1, 2, 1]])",
        "b = torch.transpose(a, 0, 1)",
        "b.stride(), a.stride()",
        "a[1, 2], b[2, 1]",
        "a[0, 0] = 10",
        "c = a[0:2, 0:2]",
        "x = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4)",
        "y = x.to(memory_format=torch.channels_last)",
        "y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last)",
        "x.sub_(40).relu_()",
        "p, q = x.chunk(2)",
        "p, = a.split(3)",
        "a[0, 1:2, 3, ::2] = a",
        "c[1:1, 0:1, ...] = 9",
        "a = torch.arange(50).reshape(5, 5, 2) % 3 == 0",
        "b = a.float() @ a.float()",
        "e = a.sum(dim=(0, 1), keepdim=True)",
        "z = -a[..., None] * 2.5e-3",
    ];

    /// A compact rendering of an expression: operators in prefix form, calls as in Python.
    fn show(expr: &Expr) -> String {
        let list = |items: &[Expr]| items.iter().map(show).collect::<Vec<_>>().join(" ");
        let part = |part: &Option<Box<Expr>>| part.as_deref().map_or("_".to_string(), show);
        match &expr.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Float(v) => format!("{v:?}"),
            ExprKind::Bool(v) => if *v { "True" } else { "False" }.to_string(),
            ExprKind::None => "None".to_string(),
            ExprKind::Str(s) => format!("{s:?}"),
            ExprKind::Ellipsis => "...".to_string(),
            ExprKind::Name(n) => n.clone(),
            ExprKind::List(items) => {
                format!(
                    "[{}]",
                    items.iter().map(show).collect::<Vec<_>>().join(", ")
                )
            }
            ExprKind::Tuple(items) if items.is_empty() => "(tuple)".to_string(),
            ExprKind::Tuple(items) => format!("(tuple {})", list(items)),
            ExprKind::Slice { start, stop, step } => {
                format!("(slice {} {} {})", part(start), part(stop), part(step))
            }
            ExprKind::Unary { op, operand } => {
                let op = match op {
                    UnaryOp::Neg => "neg",
                    UnaryOp::Pos => "pos",
                    UnaryOp::Invert => "inv",
                    UnaryOp::Not => "not",
                };
                format!("({op} {})", show(operand))
            }
            ExprKind::Binary { op, left, right } => {
                format!("({} {} {})", symbol(*op), show(left), show(right))
            }
            ExprKind::BoolOp { and, left, right } => {
                format!(
                    "({} {} {})",
                    if *and { "and" } else { "or" },
                    show(left),
                    show(right)
                )
            }
            ExprKind::Compare { first, ops, rest } => {
                let tail: Vec<String> = ops
                    .iter()
                    .zip(rest)
                    .map(|(o, e)| format!("{} {}", symbol(*o), show(e)))
                    .collect();
                format!("(cmp {} {})", show(first), tail.join(" "))
            }
            ExprKind::Attribute { object, name } => format!("{}.{name}", show(object)),
            ExprKind::Subscript { object, index } => format!("{}[{}]", show(object), show(index)),
            ExprKind::Call { func, args, kwargs } => {
                let args = args
                    .iter()
                    .map(show)
                    .chain(kwargs.iter().map(|(k, v)| format!("{k}={}", show(v))))
                    .collect::<Vec<_>>();
                format!("{}({})", show(func), args.join(", "))
            }
        }
    }

    fn symbol(op: BinOp) -> &'static str {
        match op {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
        }
    }

    fn show_target(target: &Target) -> String {
        match target {
            Target::Name(n) => n.clone(),
            Target::Tuple(items) => {
                let items: Vec<String> = items.iter().map(show_target).collect();
                format!("(tuple {})", items.join(" ")).replace("(tuple )", "(tuple)")
            }
            Target::Subscript { object, index } => format!("{}[{}]", show(object), show(index)),
            Target::Attribute { object, name } => format!("{}.{name}", show(object)),
        }
    }

    fn show_statement(statement: &Statement) -> String {
        match &statement.kind {
            StatementKind::Expr(e) => show(e),
            StatementKind::Assign { targets, value } => {
                let mut parts: Vec<String> = targets.iter().map(show_target).collect();
                parts.push(show(value));
                parts.join(" = ")
            }
        }
    }

    /// The single statement of `src`, rendered.
    fn statement(src: &str) -> String {
        match parse_script(src).as_slice() {
            [Ok(s)] => show_statement(s),
            other => panic!("{src:?} gave {other:?}"),
        }
    }

    fn expression(src: &str) -> String {
        match parse_expression(src) {
            Ok(e) => show(&e),
            Err(e) => panic!("{src:?} gave {e:?}"),
        }
    }

    /// The single error of `src`: message, line, column.
    fn error(src: &str) -> (String, usize, usize) {
        match parse_script(src).as_slice() {
            [Err((_, e))] => (e.message.clone(), e.pos.line, e.pos.col),
            other => panic!("{src:?} gave {other:?}"),
        }
    }

    fn err(message: &str, line: usize, col: usize) -> (String, usize, usize) {
        (message.to_string(), line, col)
    }

    fn at(line: usize, col: usize) -> Pos {
        Pos { line, col }
    }

    #[test]
    fn sample_lines() {
        let expected = [
            "a = torch.tensor([[4, 1, 6], [0, 8, 8], [1, 2, 1]])",
            "b = torch.transpose(a, 0, 1)",
            "(tuple b.stride() a.stride())",
            "(tuple a[(tuple 1 2)] b[(tuple 2 1)])",
            "a[(tuple 0 0)] = 10",
            "c = a[(tuple (slice 0 2 _) (slice 0 2 _))]",
            "x = torch.arange((* (* (* 2 3) 4) 4), dtype=torch.float32).reshape(2, 3, 4, 4)",
            "y = x.to(memory_format=torch.channels_last)",
            "(tuple y.is_contiguous() y.is_contiguous(memory_format=torch.channels_last))",
            "x.sub_(40).relu_()",
            "(tuple p q) = x.chunk(2)",
            "(tuple p) = a.split(3)",
            "a[(tuple 0 (slice 1 2 _) 3 (slice _ _ 2))] = a",
            "c[(tuple (slice 1 1 _) (slice 0 1 _) ...)] = 9",
            "a = (== (% torch.arange(50).reshape(5, 5, 2) 3) 0)",
            "b = (@ a.float() a.float())",
            "e = a.sum(dim=(tuple 0 1), keepdim=True)",
            "z = (* (neg a[(tuple ... None)]) 0.0025)",
        ];
        for (src, want) in LINES.iter().zip(expected) {
            assert_eq!(statement(src), want, "{src}");
        }
        let script = parse_script(&LINES.join("\n"));
        assert_eq!(script.len(), LINES.len());
        for (k, (result, src)) in script.iter().zip(LINES).enumerate() {
            let Ok(s) = result else { panic!("{result:?}") };
            assert_eq!((s.line, s.source.as_str()), (k + 1, src));
        }
    }

    #[test]
    fn assignments() {
        assert_eq!(statement("a = b = 1"), "a = b = 1");
        assert_eq!(statement("(p, q) = x"), "(tuple p q) = x");
        assert_eq!(statement("[p, q] = x"), "(tuple p q) = x");
        assert_eq!(statement("() = x"), "(tuple) = x");
        assert_eq!(statement("x = 1, 2"), "x = (tuple 1 2)");
        assert_eq!(statement("x = 1,"), "x = (tuple 1)");
        assert_eq!(statement("a[:, 1] = b"), "a[(tuple (slice _ _ _) 1)] = b");
        assert_eq!(statement("a[..., None] = 1"), "a[(tuple ... None)] = 1");
        assert_eq!(statement("a = 1;"), "a = 1");
        let script = parse_script("a.x = 1");
        let [Ok(s)] = script.as_slice() else {
            panic!("{script:?}")
        };
        assert!(matches!(
            &s.kind,
            StatementKind::Assign { targets, .. }
                if matches!(targets.as_slice(), [Target::Attribute { name, .. }] if name == "x")
        ));
    }

    #[test]
    fn precedence() {
        let cases = [
            ("-2**2", "(neg (** 2 2))"),
            ("2**-1", "(** 2 (neg 1))"),
            ("a**b**c", "(** a (** b c))"),
            ("a or b and not c", "(or a (and b (not c)))"),
            ("a or b or c", "(or (or a b) c)"),
            ("not a == b", "(not (== a b))"),
            ("a < b <= c", "(cmp a < b <= c)"),
            ("a != b", "(!= a b)"),
            ("a == b | c", "(== a (| b c))"),
            ("a | b ^ c & d + e * f", "(| a (^ b (& c (+ d (* e f)))))"),
            ("a & b | c", "(| (& a b) c)"),
            ("a - b - c", "(- (- a b) c)"),
            ("a // b % c / d @ e * f", "(* (@ (/ (% (// a b) c) d) e) f)"),
            ("~a + +b", "(+ (inv a) (pos b))"),
            ("(a + b) * c", "(* (+ a b) c)"),
            ("-x.y(1)[0] ** 2", "(neg (** x.y(1)[0] 2))"),
        ];
        for (src, want) in cases {
            assert_eq!(expression(src), want, "{src}");
        }
    }

    #[test]
    fn atoms() {
        let cases = [
            ("()", "(tuple)"),
            ("(1,)", "(tuple 1)"),
            ("(1, 2,)", "(tuple 1 2)"),
            ("((1))", "1"),
            ("[1, [2, 3],]", "[1, [2, 3]]"),
            ("[]", "[]"),
            ("'a' \"b#\"", "\"ab#\""),
            ("'it\\'s'", "\"it's\""),
            ("True, False, None, ...", "(tuple True False None ...)"),
            ("1_000 + 0x10 + 0b11 + 0o7", "(+ (+ (+ 1000 16) 3) 7)"),
            ("1e3, 1., .5, 2.5e-3", "(tuple 1000.0 1.0 0.5 0.0025)"),
            ("f(a, b,)", "f(a, b)"),
            ("f()", "f()"),
            ("f(a, k=1, j=b + 1)", "f(a, k=1, j=(+ b 1))"),
        ];
        for (src, want) in cases {
            assert_eq!(expression(src), want, "{src}");
        }
    }

    #[test]
    fn subscripts() {
        let cases = [
            ("x[0]", "x[0]"),
            ("x[0,]", "x[(tuple 0)]"),
            ("x[:]", "x[(slice _ _ _)]"),
            ("x[::]", "x[(slice _ _ _)]"),
            ("x[::2]", "x[(slice _ _ 2)]"),
            ("x[1:]", "x[(slice 1 _ _)]"),
            ("x[:-1]", "x[(slice _ (neg 1) _)]"),
            ("x[a:b:c]", "x[(slice a b c)]"),
            ("x[None, ..., 1:2]", "x[(tuple None ... (slice 1 2 _))]"),
            ("x[x > 0]", "x[(> x 0)]"),
            ("x[i][j]", "x[i][j]"),
            ("x[[0, 1]]", "x[[0, 1]]"),
        ];
        for (src, want) in cases {
            assert_eq!(expression(src), want, "{src}");
        }
    }

    #[test]
    fn positions() {
        let e = |line, col, kind| Expr {
            pos: at(line, col),
            kind,
        };
        let name = |line, col, n: &str| e(line, col, ExprKind::Name(n.to_string()));
        let parsed = parse_script("x = a + b * c");
        let expected = Statement {
            line: 1,
            source: "x = a + b * c".to_string(),
            kind: StatementKind::Assign {
                targets: vec![Target::Name("x".to_string())],
                value: e(
                    1,
                    5,
                    ExprKind::Binary {
                        op: BinOp::Add,
                        left: Box::new(name(1, 5, "a")),
                        right: Box::new(e(
                            1,
                            9,
                            ExprKind::Binary {
                                op: BinOp::Mul,
                                left: Box::new(name(1, 9, "b")),
                                right: Box::new(name(1, 13, "c")),
                            },
                        )),
                    },
                ),
            },
        };
        assert_eq!(parsed, vec![Ok(expected)]);

        let Ok(z) = parse_expression("-a[..., 1:] * (2)") else {
            panic!()
        };
        let ExprKind::Binary { left, right, .. } = &z.kind else {
            panic!("{z:?}")
        };
        assert_eq!(
            (z.pos, left.pos, right.pos),
            (at(1, 1), at(1, 1), at(1, 15))
        );
        let ExprKind::Unary { operand, .. } = &left.kind else {
            panic!("{left:?}")
        };
        let ExprKind::Subscript { index, .. } = &operand.kind else {
            panic!("{operand:?}")
        };
        let ExprKind::Tuple(items) = &index.kind else {
            panic!("{index:?}")
        };
        let positions: Vec<Pos> = items.iter().map(|i| i.pos).collect();
        assert_eq!(
            (operand.pos, index.pos, positions),
            (at(1, 2), at(1, 4), vec![at(1, 4), at(1, 9)])
        );

        // Columns count characters, and tabs count as one.
        let Ok(u) = parse_expression("'é€'\t+ b") else {
            panic!()
        };
        let ExprKind::Binary { right, .. } = &u.kind else {
            panic!("{u:?}")
        };
        assert_eq!(right.pos, at(1, 8));
    }

    #[test]
    fn multi_line_statements_and_comments() {
        let src = "import torch\n\n# a comment\nx = torch.tensor([1, 2,  # first\n                  3])   # done\n\
                   import torch  # again\ny = x + '#'  # c\n  \nf(\n  1,\n  k=2,\n)\n";
        let script = parse_script(src);
        let summary: Vec<(usize, String, String)> = script
            .iter()
            .map(|r| match r {
                Ok(s) => (s.line, s.source.clone(), show_statement(s)),
                Err(e) => panic!("{e:?}"),
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    4,
                    "x = torch.tensor([1, 2,\n                  3])".to_string(),
                    "x = torch.tensor([1, 2, 3])".to_string()
                ),
                (7, "y = x + '#'".to_string(), "y = (+ x \"#\")".to_string()),
                (
                    9,
                    "f(\n  1,\n  k=2,\n)".to_string(),
                    "f(1, k=2)".to_string()
                ),
            ]
        );
        let Some(Ok(s)) = script.first() else {
            panic!()
        };
        let StatementKind::Assign { value, .. } = &s.kind else {
            panic!()
        };
        let ExprKind::Call { args, .. } = &value.kind else {
            panic!()
        };
        let ExprKind::List(items) = &args[0].kind else {
            panic!()
        };
        assert_eq!(items[2].pos, at(5, 19));
        assert!(parse_script("import torch;  # c").is_empty());
        assert_eq!(
            statement("x = 1 + \\\n    2"),
            "x = (+ 1 2)",
            "backslash continuation"
        );
    }

    #[test]
    fn errors_stay_on_their_line() {
        let script = parse_script("a = 1\nb = $\nc = (\nd = 4\ne = a b\nf = 6");
        let summary: Vec<Result<usize, (usize, String)>> = script
            .into_iter()
            .map(|r| r.map(|s| s.line).map_err(|(line, e)| (line, e.message)))
            .collect();
        assert_eq!(
            summary,
            vec![
                Ok(1),
                Err((2, "invalid syntax".to_string())),
                Err((3, "'(' was never closed".to_string())),
                Ok(4),
                Err((5, "invalid syntax".to_string())),
                Ok(6)
            ]
        );
    }

    #[test]
    fn generic_errors() {
        assert_eq!(error("a = "), err("invalid syntax", 1, 5));
        assert_eq!(error("a ="), err("invalid syntax", 1, 4));
        assert_eq!(error("a = # c"), err("invalid syntax", 1, 8));
        assert_eq!(error("a b"), err("invalid syntax", 1, 3));
        assert_eq!(error("torch.arange(5) x"), err("invalid syntax", 1, 17));
        assert_eq!(
            error("x = torch.arange(5"),
            err("'(' was never closed", 1, 17)
        );
        assert_eq!(error("x = a)"), err("unmatched ')'", 1, 6));
        assert_eq!(
            error("x = (a]"),
            err(
                "closing parenthesis ']' does not match opening parenthesis '('",
                1,
                7
            )
        );
        assert_eq!(error("1abc"), err("invalid decimal literal", 1, 1));
        assert_eq!(error("3x"), err("invalid decimal literal", 1, 1));
        assert_eq!(
            error("x = 'ab"),
            err("unterminated string literal (detected at line 1)", 1, 5)
        );
        assert_eq!(error("a = $"), err("invalid syntax", 1, 5));
        assert_eq!(error("a = 1 ? 2"), err("invalid syntax", 1, 7));
        assert_eq!(error("a = €"), err("invalid character '€' (U+20AC)", 1, 5));
        assert_eq!(error("  a = 1"), err("unexpected indent", 1, 1));
        assert_eq!(error("\ta = 1"), err("unexpected indent", 1, 1));
        assert_eq!(
            error("x = 99999999999999999999"),
            err("integer literal too large", 1, 5)
        );
        assert_eq!(error("a = 1:2"), err("invalid syntax", 1, 6));
        assert_eq!(error("x[]"), err("invalid syntax", 1, 3));
        assert_eq!(error("x[1:2:3:4]"), err("invalid syntax", 1, 8));
        assert_eq!(error("f(,)"), err("invalid syntax", 1, 3));
        assert_eq!(error("[1,,]"), err("invalid syntax", 1, 4));
        assert_eq!(error("(a b)"), err("invalid syntax", 1, 4));
        assert_eq!(error("a.1"), err("invalid syntax", 1, 2));
        assert_eq!(error("a.if"), err("invalid syntax", 1, 3));
        assert_eq!(error("x = 1 if a else 2"), err("invalid syntax", 1, 7));
        assert_eq!(error("lambda: 0"), err("invalid syntax", 1, 1));
        assert_eq!(error(";"), err("invalid syntax", 1, 1));
        assert_eq!(
            error("a = 1; b = 2"),
            err(
                "multiple statements on one line are not supported here",
                1,
                8
            )
        );
        assert_eq!(error("x = [1,\n 2"), err("'[' was never closed", 1, 5));
    }

    #[test]
    fn unsupported_constructs() {
        assert_eq!(
            error("a << 1"),
            err("the '<<' operator is not supported here", 1, 3)
        );
        assert_eq!(
            error("a in b"),
            err("the 'in' operator is not supported here", 1, 3)
        );
        assert_eq!(
            error("a is None"),
            err("the 'is' operator is not supported here", 1, 3)
        );
        assert_eq!(
            error("a not in b"),
            err("the 'not in' operator is not supported here", 1, 3)
        );
        assert_eq!(
            error("[x for x in y]"),
            err("comprehensions are not supported here", 1, 4)
        );
        assert_eq!(
            error("{1: 2}"),
            err("dict and set displays are not supported here", 1, 1)
        );
        assert_eq!(
            error("*a, b = c"),
            err("starred expressions are not supported here", 1, 1)
        );
        assert_eq!(
            error("f(*args)"),
            err(
                "argument unpacking with '*' or '**' is not supported here",
                1,
                3
            )
        );
        assert_eq!(
            error("f(**kw)"),
            err(
                "argument unpacking with '*' or '**' is not supported here",
                1,
                3
            )
        );
        assert_eq!(
            error("if a"),
            err("'if' statements are not supported here", 1, 1)
        );
        assert_eq!(
            error("import numpy as np"),
            err(
                "only 'import torch' is supported here; torch is already imported",
                1,
                1
            )
        );
        assert_eq!(
            error("import torch as t").0,
            "only 'import torch' is supported here; torch is already imported"
        );
        assert_eq!(
            error("x = f'{a}'"),
            err("f-strings are not supported here", 1, 5)
        );
    }

    #[test]
    fn call_errors() {
        assert_eq!(
            error("f(a=1, 2)"),
            err("positional argument follows keyword argument", 1, 8)
        );
        assert_eq!(
            error("f(a=1, a=2)"),
            err("keyword argument repeated: a", 1, 8)
        );
        assert_eq!(
            error("f(x + 1 = 2)"),
            err(
                "expression cannot contain assignment, perhaps you meant \"==\"?",
                1,
                3
            )
        );
        assert_eq!(error("f(True=1)"), err("cannot assign to True", 1, 3));
    }

    #[test]
    fn augmented_assignment() {
        let hint = |s: &str| format!("augmented assignment is not supported here; write {s}");
        assert_eq!(error("a += 1"), (hint("a.add_(1) or a = a + 1"), 1, 3));
        assert_eq!(
            error("x[0] -= y * 2").0,
            hint("x[0].sub_(y * 2) or x[0] = x[0] - (y * 2)")
        );
        assert_eq!(
            error("a.b *= 2  # c").0,
            hint("a.b.mul_(2) or a.b = a.b * 2")
        );
        assert_eq!(error("a /= b").0, hint("a = a / b"));
        assert_eq!(error("a **= -2").0, hint("a = a ** -2"));
        assert_eq!(error("a @= b").0, hint("a = a @ b"));
        assert_eq!(
            error("f() += 1"),
            err(
                "'function call' is an illegal expression for augmented assignment",
                1,
                1
            )
        );
        assert_eq!(
            error("a, b += 1"),
            err(
                "'tuple' is an illegal expression for augmented assignment",
                1,
                1
            )
        );
        assert_eq!(error("a += "), err("invalid syntax", 1, 6));
    }

    #[test]
    fn invalid_targets() {
        let maybe = |what: &str| {
            format!("cannot assign to {what} here. Maybe you meant '==' instead of '='?")
        };
        assert_eq!(error("f() = 1"), (maybe("function call"), 1, 1));
        assert_eq!(error("1 = a"), (maybe("literal"), 1, 1));
        assert_eq!(error("a + b = 1"), (maybe("expression"), 1, 1));
        assert_eq!(error("'s' = 1"), (maybe("literal"), 1, 1));
        assert_eq!(error("... = 1"), (maybe("ellipsis"), 1, 1));
        assert_eq!(error("-a = 1"), (maybe("expression"), 1, 1));
        assert_eq!(error("a = f() = 1"), (maybe("function call"), 1, 5));
        assert_eq!(error("a, f() = 1"), (maybe("function call"), 1, 4));
        assert_eq!(
            error("f() = a = 1"),
            err("cannot assign to function call", 1, 1)
        );
        assert_eq!(
            error("f(), a = 1"),
            err("cannot assign to function call", 1, 1)
        );
        assert_eq!(
            error("(a, f()) = 1"),
            err("cannot assign to function call", 1, 5)
        );
        assert_eq!(error("[a, 1] = 1"), err("cannot assign to literal", 1, 5));
        assert_eq!(error("True = 1"), err("cannot assign to True", 1, 1));
        assert_eq!(error("None = 1"), err("cannot assign to None", 1, 1));
        assert_eq!(error("a < b = 1"), err("cannot assign to comparison", 1, 1));
        assert_eq!(
            error("a and b = 1"),
            err("cannot assign to expression", 1, 1)
        );
        assert_eq!(error("not a = 1"), err("cannot assign to expression", 1, 1));
    }

    #[test]
    fn parse_expression_edges() {
        assert_eq!(expression("  a, b"), "(tuple a b)");
        assert_eq!(expression("f(\n 1)"), "f(1)");
        assert_eq!(
            parse_expression(""),
            Err(SyntaxError::new(at(1, 1), "invalid syntax"))
        );
        assert_eq!(
            parse_expression("a\nb"),
            Err(SyntaxError::new(at(2, 1), "invalid syntax"))
        );
        assert_eq!(
            parse_expression("a = 1"),
            Err(SyntaxError::new(at(1, 3), "invalid syntax"))
        );
        assert_eq!(
            parse_expression("a;"),
            Err(SyntaxError::new(at(1, 2), "invalid syntax"))
        );
        assert_eq!(
            parse_expression("x(").map_err(|e| e.to_string()),
            Err("SyntaxError: '(' was never closed".to_string())
        );
    }

    #[test]
    fn deep_nesting_is_capped() {
        let depth = lexer::MAX_BRACKET_DEPTH;
        let nested =
            |open: &str, close: &str, n: usize| format!("{}1{}", open.repeat(n), close.repeat(n));
        assert_eq!(expression(&nested("(", ")", depth)), "1");
        assert!(parse_expression(&nested("[", "]", depth)).is_ok());
        assert!(parse_expression(&nested("f(", ")", depth)).is_ok());
        assert!(parse_expression(&nested("x[", "]", depth)).is_ok());
        assert!(parse_expression(&nested("-(", ")", depth)).is_ok());
        assert!(parse_expression(&nested("not (", ")", depth)).is_ok());
        assert!(parse_expression(&nested("2**(", ")", depth)).is_ok());
        assert_eq!(
            parse_expression(&nested("(", ")", depth + 1)),
            Err(SyntaxError::new(
                at(1, depth + 1),
                "too many nested parentheses"
            ))
        );
        let too_deep = "expression is too deeply nested";
        for src in [
            format!("{}1", "-".repeat(100_000)),
            format!("{}x", "not ".repeat(100_000)),
            format!("{}2", "2**".repeat(100_000)),
            format!("1{}", " + 1".repeat(100_000)),
            format!("a{}", " or a".repeat(100_000)),
            format!("a{}", ".b".repeat(100_000)),
            format!("f{}", "()".repeat(100_000)),
            format!("x{}", "[0]".repeat(100_000)),
        ] {
            let result = parse_expression(&src);
            assert_eq!(result.map_err(|e| e.message), Err(too_deep.to_string()));
        }
        // Long but flat is fine.
        let flat = format!("[{}]", "1, ".repeat(100_000));
        assert!(parse_expression(&flat).is_ok());
        assert!(parse_expression(&format!("a < {}", "b < ".repeat(10_000) + "c")).is_ok());
    }

    #[test]
    fn error_display() {
        let e = SyntaxError::new(at(1, 1), "invalid syntax");
        assert_eq!(e.to_string(), "SyntaxError: invalid syntax");
    }

    /// Characters that make interesting edits: brackets, quotes, operators, line breaks.
    const ALPHABET: &str =
        "()[]{}:,.;'\"#\\=+-*/%@<>!~&|^ \n\t0123456789_abcexjorn\u{e9}\u{20ac}$?";

    fn interesting_char() -> impl Strategy<Value = char> {
        let chars: Vec<char> = ALPHABET.chars().collect();
        prop_oneof![4 => prop::sample::select(chars), 1 => any::<char>()]
    }

    /// Applies `(insert?, where, char)` edits to `src`.
    fn mutate(src: &str, edits: &[(bool, prop::sample::Index, char)]) -> String {
        let mut chars: Vec<char> = src.chars().collect();
        for (insert, index, c) in edits {
            if *insert {
                let at = index.index(chars.len() + 1);
                chars.insert(at, *c);
            } else if !chars.is_empty() {
                chars.remove(index.index(chars.len()));
            }
        }
        chars.into_iter().collect()
    }

    /// Parses `src` both ways and checks what holds for any input.
    fn check_any(src: &str) {
        let line_count = src.split('\n').count();
        let mut last = 0;
        for result in parse_script(src) {
            let line = match &result {
                Ok(s) => {
                    assert!(!s.source.is_empty());
                    s.line
                }
                Err((line, e)) => {
                    assert!(e.pos.line >= 1 && e.pos.col >= 1 && !e.message.is_empty());
                    *line
                }
            };
            assert!(line > last && line <= line_count, "{src:?}");
            last = line;
        }
        let _ = parse_expression(src);
    }

    proptest! {
        #[test]
        fn random_text_never_panics(src in any::<String>()) {
            check_any(&src);
        }

        #[test]
        fn random_symbols_never_panic(chars in prop::collection::vec(interesting_char(), 0..80)) {
            check_any(&chars.into_iter().collect::<String>());
        }

        #[test]
        fn mutated_lines_never_panic(
            line in prop::sample::select(LINES.to_vec()),
            edits in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>(), interesting_char()), 1..6),
        ) {
            check_any(&mutate(line, &edits));
        }

        #[test]
        fn mutated_script_never_panics(
            edits in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>(), interesting_char()), 1..12),
        ) {
            check_any(&mutate(&LINES.join("\n"), &edits));
        }
    }
}
