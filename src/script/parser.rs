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
const MAX_NESTING: usize = 300;

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
    lexer::logical_lines(src, false)
        .into_iter()
        .filter_map(|line| match line {
            Err(error) => Some(Err(error)),
            Ok(line) => parse_statement(&line)
                .map_err(|e| (line.line, e))
                .transpose(),
        })
        .collect()
}

/// Parses a single expression (a bare tuple `a, b` is allowed, as in Python's `eval`).
pub fn parse_expression(src: &str) -> Result<Expr, SyntaxError> {
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
