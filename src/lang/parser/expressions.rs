//! Expressions: the token cursor and Python's precedence climbing, from lambdas and
//! conditional expressions down to unary operators, powers and postfix calls and subscripts
//! (their atoms and displays are in [`displays`](super::displays)).

use crate::lang::ast::{
    BinOp, Expr, ExprKind, FunctionDef, Pos, Statement, StatementKind, UnaryOp,
};
use crate::lang::lexer::{LogicalLine, Token, TokenKind};
use crate::lang::parser::{SyntaxError, MAX_NESTING};

/// The tallest expression tree accepted; long operator chains build tall trees too.
const MAX_HEIGHT: usize = 300;

/// Python's keywords: never names.
const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
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

/// Whether `word` is a Python keyword.
pub(super) fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// Whether `op` is a comparison.
pub(super) fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// An expression and the height of its tree.
pub(super) struct Node {
    /// The expression.
    pub(super) expr: Expr,
    /// The height of its tree.
    pub(super) height: usize,
}

impl Node {
    /// A node over children whose tallest is `children` high; errors past [`MAX_HEIGHT`].
    pub(super) fn new(pos: Pos, kind: ExprKind, children: usize) -> Result<Node, SyntaxError> {
        if children >= MAX_HEIGHT {
            return Err(SyntaxError::new(pos, "expression is too deeply nested"));
        }
        Ok(Node {
            expr: Expr { pos, kind },
            height: children + 1,
        })
    }

    /// A node without children.
    pub(super) fn leaf(pos: Pos, kind: ExprKind) -> Node {
        Node {
            expr: Expr { pos, kind },
            height: 1,
        }
    }

    /// A binary-like node; `make` builds the kind from the two boxed operands.
    pub(super) fn pair(
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
pub(super) fn unzip(nodes: Vec<Node>) -> (Vec<Expr>, usize) {
    let height = nodes.iter().map(|n| n.height).max().unwrap_or(0);
    (nodes.into_iter().map(|n| n.expr).collect(), height)
}

/// A recursive-descent parser over one logical line's tokens.
pub(super) struct Parser<'a> {
    pub(super) tokens: &'a [Token],
    pub(super) text: &'a str,
    /// Index of the next token.
    pub(super) next: usize,
    /// How deep the parse has recursed (see [`MAX_NESTING`]).
    pub(super) depth: usize,
    /// Returned by [`Parser::peek`] past the last token.
    end: Token,
}

impl<'a> Parser<'a> {
    pub(super) fn new(line: &'a LogicalLine) -> Self {
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

    pub(super) fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    pub(super) fn peek_at(&self, ahead: usize) -> &Token {
        self.tokens.get(self.next + ahead).unwrap_or(&self.end)
    }

    /// Returns the current token and moves past it (never past the end).
    pub(super) fn bump(&mut self) -> Token {
        let token = self.peek().clone();
        if self.next < self.tokens.len() {
            self.next += 1;
        }
        token
    }

    pub(super) fn is_op(&self, op: &str) -> bool {
        matches!(self.peek().kind, TokenKind::Op(o) if o == op)
    }

    pub(super) fn is_name(&self, word: &str) -> bool {
        matches!(&self.peek().kind, TokenKind::Name(w) if w == word)
    }

    pub(super) fn eat_op(&mut self, op: &str) -> bool {
        let found = self.is_op(op);
        if found {
            self.bump();
        }
        found
    }

    pub(super) fn expect_op(&mut self, op: &str) -> Result<(), SyntaxError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.invalid_syntax())
        }
    }

    /// "invalid syntax" at the current token.
    pub(super) fn invalid_syntax(&self) -> SyntaxError {
        SyntaxError::new(self.peek().pos, "invalid syntax")
    }

    /// Runs `parse` one level deeper, failing past [`MAX_NESTING`].
    pub(super) fn nested<T>(
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
    pub(super) fn source(&self, from: usize, to: usize) -> &'a str {
        let start = self.tokens.get(from).map_or(0, |t| t.span.start);
        let end = to
            .checked_sub(1)
            .and_then(|k| self.tokens.get(k))
            .map_or(start, |t| t.span.end);
        self.text.get(start..end).unwrap_or("").trim()
    }

    /// Whether the current token can start an expression (or a starred item).
    pub(super) fn starts_expr(&self) -> bool {
        match &self.peek().kind {
            TokenKind::Name(w) => {
                !is_keyword(w) || matches!(w.as_str(), "True" | "False" | "None" | "not" | "lambda")
            }
            TokenKind::Int(_)
            | TokenKind::Float(_)
            | TokenKind::Imag(_)
            | TokenKind::Str(_)
            | TokenKind::FString(_) => true,
            TokenKind::Op(op) => matches!(*op, "(" | "[" | "{" | "-" | "+" | "~" | "..." | "*"),
            TokenKind::End => false,
        }
    }

    /// testlist: `item (',' item)* [',']` where an item may be starred; a comma makes a bare
    /// tuple (flagged `true`).
    pub(super) fn testlist(&mut self) -> Result<(Node, bool), SyntaxError> {
        let first = self.star_or_expr()?;
        if !self.is_op(",") {
            return Ok((first, false));
        }
        let pos = first.expr.pos;
        let mut items = vec![first];
        while self.eat_op(",") && self.starts_expr() {
            items.push(self.star_or_expr()?);
        }
        let (items, height) = unzip(items);
        Ok((Node::new(pos, ExprKind::Tuple(items), height)?, true))
    }

    /// `'*' bitwise_or` (a [`ExprKind::Starred`]) or an expression.
    pub(super) fn star_or_expr(&mut self) -> Result<Node, SyntaxError> {
        if !self.is_op("*") {
            return self.expr();
        }
        let pos = self.bump().pos;
        let inner = self.nested(pos, |p| p.binary(0))?;
        Node::new(pos, ExprKind::Starred(Box::new(inner.expr)), inner.height)
    }

    /// A target list (`for` targets): `bitwise_or (',' bitwise_or)* [',']`, so that `in` ends it.
    pub(super) fn target_list(&mut self) -> Result<(Node, bool), SyntaxError> {
        let first = self.target_item()?;
        if !self.is_op(",") {
            return Ok((first, false));
        }
        let pos = first.expr.pos;
        let mut items = vec![first];
        while self.eat_op(",") && (self.starts_expr() || self.is_op("*")) {
            items.push(self.target_item()?);
        }
        let (items, height) = unzip(items);
        Ok((Node::new(pos, ExprKind::Tuple(items), height)?, true))
    }

    /// `lambda a, b=1: body`.
    fn lambda(&mut self) -> Result<Node, SyntaxError> {
        let pos = self.bump().pos;
        let signature = self.parameters(":", false)?;
        self.expect_op(":")?;
        let body = self.nested(pos, |p| p.expr())?;
        let line = pos.line;
        let statement = Statement {
            line,
            source: String::new(),
            kind: StatementKind::Return(Some(body.expr)),
        };
        let def = FunctionDef {
            name: "<lambda>".into(),
            params: signature.params,
            star: signature.star,
            kwonly: signature.kwonly,
            double_star: signature.double_star,
            body: vec![statement],
            decorators: Vec::new(),
        };
        Node::new(pos, ExprKind::Lambda(std::sync::Arc::new(def)), body.height)
    }

    /// One item of a target list: `bitwise_or` or `*bitwise_or`.
    fn target_item(&mut self) -> Result<Node, SyntaxError> {
        if !self.is_op("*") {
            return self.binary(0);
        }
        let pos = self.bump().pos;
        let inner = self.nested(pos, |p| p.binary(0))?;
        Node::new(pos, ExprKind::Starred(Box::new(inner.expr)), inner.height)
    }

    /// expr (Python's `test`): `disjunction ['if' disjunction 'else' expr]`.
    pub(super) fn expr(&mut self) -> Result<Node, SyntaxError> {
        if self.is_name("lambda") {
            return self.lambda();
        }
        let then = self.bool_op(false)?;
        if !self.is_name("if") {
            return Ok(then);
        }
        let if_pos = self.bump().pos;
        let cond = self.bool_op(false)?;
        if !self.is_name("else") {
            return Err(SyntaxError::new(
                self.peek().pos,
                "expected 'else' after 'if' expression",
            ));
        }
        self.bump();
        let orelse = self.nested(if_pos, Self::expr)?;
        let height = then.height.max(cond.height).max(orelse.height);
        let pos = then.expr.pos;
        let kind = ExprKind::IfExp {
            cond: Box::new(cond.expr),
            then: Box::new(then.expr),
            orelse: Box::new(orelse.expr),
        };
        Node::new(pos, kind, height)
    }

    /// `or` (with `and` false) or `and` chains, left-associative.
    pub(super) fn bool_op(&mut self, and: bool) -> Result<Node, SyntaxError> {
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
    pub(super) fn not_test(&mut self) -> Result<Node, SyntaxError> {
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

    /// The comparison operator at the current token (two tokens for `not in`, `is not`).
    fn compare_op(&self) -> Option<(BinOp, usize)> {
        let next_is = |word: &str| matches!(&self.peek_at(1).kind, TokenKind::Name(n) if n == word);
        let op = match &self.peek().kind {
            TokenKind::Op("==") => BinOp::Eq,
            TokenKind::Op("!=") => BinOp::Ne,
            TokenKind::Op("<") => BinOp::Lt,
            TokenKind::Op("<=") => BinOp::Le,
            TokenKind::Op(">") => BinOp::Gt,
            TokenKind::Op(">=") => BinOp::Ge,
            TokenKind::Name(w) if w == "in" => BinOp::In,
            TokenKind::Name(w) if w == "is" && next_is("not") => return Some((BinOp::IsNot, 2)),
            TokenKind::Name(w) if w == "is" => BinOp::Is,
            TokenKind::Name(w) if w == "not" && next_is("in") => return Some((BinOp::NotIn, 2)),
            _ => return None,
        };
        Some((op, 1))
    }

    /// comparison: `bitwise_or (compare_op bitwise_or)*`. One comparison is a `Binary`, a
    /// chain of several a `Compare`.
    pub(super) fn comparison(&mut self) -> Result<Node, SyntaxError> {
        let first = self.binary(0)?;
        let mut ops = Vec::new();
        let mut rest = Vec::new();
        while let Some((op, tokens)) = self.compare_op() {
            for _ in 0..tokens {
                self.bump();
            }
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
    pub(super) fn binary(&mut self, level: usize) -> Result<Node, SyntaxError> {
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
    pub(super) fn unary(&mut self) -> Result<Node, SyntaxError> {
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
    pub(super) fn power(&mut self) -> Result<Node, SyntaxError> {
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
    pub(super) fn postfix(&mut self) -> Result<Node, SyntaxError> {
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
}
