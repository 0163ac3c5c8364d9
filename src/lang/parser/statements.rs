//! Simple statements and the headers of compound statements, on one logical line.

use crate::lang::ast::{
    BinOp, ComprehensionKind, Expr, ExprKind, ImportName, Pos, StatementKind, Target, UnaryOp,
};
use crate::lang::lexer::TokenKind;
use crate::lang::parser::expressions::{is_comparison, is_keyword, Node, Parser};
use crate::lang::parser::SyntaxError;

/// Keywords that start a statement we do not support.
const UNSUPPORTED_STATEMENTS: [&str; 4] = ["async", "global", "nonlocal", "yield"];

/// Augmented assignment operators and the operation each applies (`None`: unsupported).
const AUGMENTED: [(&str, Option<BinOp>); 13] = [
    ("+=", Some(BinOp::Add)),
    ("-=", Some(BinOp::Sub)),
    ("*=", Some(BinOp::Mul)),
    ("/=", Some(BinOp::Div)),
    ("//=", Some(BinOp::FloorDiv)),
    ("%=", Some(BinOp::Mod)),
    ("**=", Some(BinOp::Pow)),
    ("@=", Some(BinOp::MatMul)),
    ("&=", Some(BinOp::BitAnd)),
    ("|=", Some(BinOp::BitOr)),
    ("^=", Some(BinOp::BitXor)),
    ("<<=", None),
    (">>=", None),
];

/// A `def`'s or `lambda`'s parameters.
#[derive(Debug, Default)]
pub(super) struct Signature {
    pub params: Vec<(String, Option<Expr>)>,
    pub star: Option<String>,
    pub kwonly: Vec<(String, Option<Expr>)>,
    pub double_star: Option<String>,
}

/// The clause a compound statement's header opens.
#[derive(Debug)]
pub(super) enum Clause {
    /// `if cond:`
    If(Expr),
    /// `elif cond:`
    Elif(Expr),
    /// `else:`
    Else,
    /// `for target in iter:`
    For(Target, Expr),
    /// `while cond:`
    While(Expr),
    /// `try:`
    Try,
    /// `except:`, `except Kind:`, `except Kind as name:`
    Except(Option<Expr>, Option<String>),
    /// `finally:`
    Finally,
    /// `def name(params):`
    Def(String, Signature),
    /// `with context [as name]:`
    With(Expr, Option<String>),
    /// `class Name(bases, keywords):`
    Class(String, Vec<Expr>, Vec<(String, Expr)>),
}

impl Clause {
    /// The keyword that starts the clause.
    pub(super) fn keyword(&self) -> &'static str {
        match self {
            Clause::If(_) => "if",
            Clause::Elif(_) => "elif",
            Clause::Else => "else",
            Clause::For(..) => "for",
            Clause::While(_) => "while",
            Clause::Try => "try",
            Clause::Except(..) => "except",
            Clause::Finally => "finally",
            Clause::Def(..) => "function definition",
            Clause::With(..) => "with",
            Clause::Class(..) => "class definition",
        }
    }
}

/// A simple statement: where it starts, its source text, and what it does.
#[derive(Debug)]
pub(super) struct Simple {
    pub(super) pos: Pos,
    pub(super) source: String,
    pub(super) kind: StatementKind,
}

/// What one logical line holds.
#[derive(Debug)]
pub(super) enum LineStatement {
    /// Simple statements, one or more (`a = 1; b = 2`).
    Simple(Vec<Simple>),
    /// `@expr`: a decorator of the `def` or `class` below it.
    Decorator(Expr),
    /// A compound statement's header, with its body when it follows the `:` on the same line.
    Header {
        clause: Clause,
        pos: Pos,
        /// Where the header's line ends (for "expected an indented block").
        end: Pos,
        /// The statements after the `:` on the header's line (none for an indented block).
        inline: Vec<Simple>,
    },
}

/// What Python calls an expression of this kind in its error messages.
pub(super) fn expr_name(kind: &ExprKind) -> &'static str {
    match kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Imag(_) | ExprKind::Str(_) => "literal",
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
        ExprKind::Starred(_) => "starred",
        ExprKind::IfExp { .. } => "conditional expression",
        ExprKind::FString(_) => "f-string expression",
        ExprKind::Comprehension { kind, .. } => match kind {
            ComprehensionKind::List => "list comprehension",
            ComprehensionKind::Set => "set comprehension",
            ComprehensionKind::Dict => "dict comprehension",
            ComprehensionKind::Generator => "generator expression",
        },
        ExprKind::Dict(_) => "dict literal",
        ExprKind::Lambda(_) => "lambda",
    }
}

/// Converts an assignment's left side to a target, with Python's messages for invalid ones.
/// `bare` says the expression is an unparenthesised tuple; `suggest` that it sits right before
/// the final `=`, where Python adds "Maybe you meant '=='".
pub(super) fn to_target(expr: Expr, bare: bool, suggest: bool) -> Result<Target, SyntaxError> {
    match expr.kind {
        ExprKind::Name(name) => Ok(Target::Name(name)),
        ExprKind::Attribute { object, name } => Ok(Target::Attribute { object, name }),
        ExprKind::Subscript { object, index } => Ok(Target::Subscript { object, index }),
        ExprKind::Starred(_) => Err(SyntaxError::new(
            expr.pos,
            "starred assignment target must be in a list or tuple",
        )),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            let count = items.len();
            let mut starred = false;
            let mut targets = Vec::with_capacity(count);
            for (k, item) in items.into_iter().enumerate() {
                targets.push(match item.kind {
                    ExprKind::Starred(inner) => {
                        if starred {
                            return Err(SyntaxError::new(
                                item.pos,
                                "multiple starred expressions in assignment",
                            ));
                        }
                        starred = true;
                        Target::Starred(Box::new(to_target(*inner, false, false)?))
                    }
                    _ => to_target(item, false, bare && suggest && k + 1 == count)?,
                });
            }
            Ok(Target::Tuple(targets))
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

impl Parser<'_> {
    /// The statement or clause header on this logical line.
    pub(super) fn line_statement(&mut self) -> Result<LineStatement, SyntaxError> {
        let first = self.peek().clone();
        let word = match &first.kind {
            TokenKind::Name(word) => word.as_str(),
            _ => "",
        };
        let clause = match word {
            "if" | "elif" | "while" => {
                self.bump();
                let cond = self.expr()?.expr;
                match word {
                    "if" => Clause::If(cond),
                    "elif" => Clause::Elif(cond),
                    _ => Clause::While(cond),
                }
            }
            "else" | "try" | "finally" => {
                self.bump();
                match word {
                    "else" => Clause::Else,
                    "try" => Clause::Try,
                    _ => Clause::Finally,
                }
            }
            "except" => {
                self.bump();
                let kind = if self.is_op(":") {
                    None
                } else {
                    Some(self.expr()?.expr)
                };
                Clause::Except(kind, self.alias()?)
            }
            "def" => {
                self.bump();
                self.def_header()?
            }
            "class" => {
                self.bump();
                self.class_header()?
            }
            _ if self.is_op("@") => {
                self.bump();
                let decorator = self.expr()?.expr;
                if !matches!(self.peek().kind, TokenKind::End) {
                    return Err(self.invalid_syntax());
                }
                return Ok(LineStatement::Decorator(decorator));
            }
            "with" => {
                self.bump();
                let context = self.expr()?.expr;
                let name = self.alias()?;
                if self.is_op(",") {
                    return Err(SyntaxError::new(
                        self.peek().pos,
                        "'with' statements with several context managers are not supported here",
                    ));
                }
                Clause::With(context, name)
            }
            "for" => {
                self.bump();
                let (target, bare) = self.target_list()?;
                let target = to_target(target.expr, bare, false)?;
                if !self.is_name("in") {
                    return Err(self.invalid_syntax());
                }
                self.bump();
                let (iter, _) = self.testlist()?;
                Clause::For(target, iter.expr)
            }
            _ => return self.simples().map(LineStatement::Simple),
        };
        if !self.is_op(":") {
            if matches!(self.peek().kind, TokenKind::End) {
                return Err(SyntaxError::new(self.peek().pos, "expected ':'"));
            }
            return Err(self.invalid_syntax());
        }
        self.bump();
        let end = self.tokens.last().map_or(first.pos, |t| t.pos);
        let inline = if matches!(self.peek().kind, TokenKind::End) {
            Vec::new()
        } else {
            self.simples()?
        };
        Ok(LineStatement::Header {
            clause,
            pos: first.pos,
            end,
            inline,
        })
    }

    /// The simple statements up to the end of the line, separated by `;` (a last `;` is
    /// allowed). Each has the text of them all as its source, as a notebook shows the line.
    fn simples(&mut self) -> Result<Vec<Simple>, SyntaxError> {
        let start = self.next;
        let source = self.source(start, self.tokens.len()).to_string();
        let mut simples = Vec::new();
        loop {
            let pos = self.peek().pos;
            let kind = self.simple_kind()?;
            simples.push(Simple {
                pos,
                source: source.clone(),
                kind,
            });
            if !self.eat_op(";") || matches!(self.peek().kind, TokenKind::End) {
                return Ok(simples);
            }
        }
    }

    /// What a simple statement does.
    fn simple_kind(&mut self) -> Result<StatementKind, SyntaxError> {
        let first = self.peek().clone();
        if let TokenKind::Name(word) = &first.kind {
            let word = word.as_str();
            if UNSUPPORTED_STATEMENTS.contains(&word) {
                return Err(SyntaxError::new(
                    first.pos,
                    format!("'{word}' statements are not supported here"),
                ));
            }
            let kind = match word {
                "pass" | "break" | "continue" => {
                    self.bump();
                    Some(match word {
                        "pass" => StatementKind::Pass,
                        "break" => StatementKind::Break,
                        _ => StatementKind::Continue,
                    })
                }
                "del" => {
                    self.bump();
                    Some(self.del()?)
                }
                "return" | "raise" => {
                    self.bump();
                    let value = if matches!(self.peek().kind, TokenKind::End) || self.is_op(";") {
                        None
                    } else {
                        Some(self.testlist()?.0.expr)
                    };
                    Some(if word == "return" {
                        StatementKind::Return(value)
                    } else {
                        StatementKind::Raise(value)
                    })
                }
                "assert" => {
                    self.bump();
                    let test = self.expr()?.expr;
                    let message = if self.eat_op(",") {
                        Some(self.expr()?.expr)
                    } else {
                        None
                    };
                    Some(StatementKind::Assert { test, message })
                }
                "import" | "from" => {
                    let import = self.import()?;
                    self.end_of_statement()?;
                    return Ok(import);
                }
                "if" | "elif" | "else" | "for" | "while" | "in" | "is" | "and" | "or" | "as" => {
                    return Err(self.invalid_syntax())
                }
                _ => None,
            };
            if let Some(kind) = kind {
                self.end_of_statement()?;
                return Ok(kind);
            }
        }
        self.assignment()
    }

    /// `name(params) [-> annotation]` after `def`: parameters, each with an optional
    /// annotation (ignored) and default, `*args` or a bare `*`, keyword-only parameters and
    /// `**kwargs`.
    fn def_header(&mut self) -> Result<Clause, SyntaxError> {
        let name = self.identifier()?;
        self.expect_op("(")?;
        let signature = self.parameters(")", true)?;
        self.expect_op(")")?;
        if self.eat_op("->") {
            self.expr()?;
        }
        Ok(Clause::Def(name, signature))
    }

    /// A parameter list up to `close` (`)` for a `def`, `:` for a `lambda`).
    pub(super) fn parameters(
        &mut self,
        close: &str,
        annotations: bool,
    ) -> Result<Signature, SyntaxError> {
        let mut signature = Signature::default();
        let mut names: Vec<String> = Vec::new();
        while !self.is_op(close) {
            let pos = self.peek().pos;
            if self.is_op("/") {
                return Err(SyntaxError::new(
                    pos,
                    "'/' parameters are not supported here",
                ));
            }
            if signature.double_star.is_some() {
                return Err(SyntaxError::new(
                    pos,
                    "arguments cannot follow var-keyword argument",
                ));
            }
            let kind = if self.eat_op("**") {
                2
            } else if self.eat_op("*") {
                1
            } else {
                0
            };
            if kind == 1 && signature.star.is_some() {
                return Err(SyntaxError::new(pos, "* argument may appear only once"));
            }
            if kind == 1 && (self.is_op(",") || self.is_op(close)) {
                if self.is_op(close) {
                    return Err(SyntaxError::new(pos, "named arguments must follow bare *"));
                }
                signature.star = Some(String::new());
                self.eat_op(",");
                continue;
            }
            let param_pos = self.peek().pos;
            let param = self.identifier()?;
            if annotations && self.eat_op(":") {
                self.expr()?;
            }
            if names.contains(&param) {
                return Err(SyntaxError::new(
                    param_pos,
                    format!("duplicate argument '{param}' in function definition"),
                ));
            }
            names.push(param.clone());
            match kind {
                1 => signature.star = Some(param),
                2 => signature.double_star = Some(param),
                _ => {
                    let default = if self.eat_op("=") {
                        Some(self.expr()?.expr)
                    } else {
                        None
                    };
                    if signature.star.is_some() {
                        signature.kwonly.push((param, default));
                    } else {
                        if default.is_none() && signature.params.iter().any(|(_, d)| d.is_some()) {
                            return Err(SyntaxError::new(
                                param_pos,
                                "parameter without a default follows parameter with a default",
                            ));
                        }
                        signature.params.push((param, default));
                    }
                }
            }
            if !self.eat_op(",") {
                break;
            }
        }
        if matches!(&signature.star, Some(s) if s.is_empty()) && signature.kwonly.is_empty() {
            return Err(SyntaxError::new(
                self.peek().pos,
                "named arguments must follow bare *",
            ));
        }
        Ok(signature)
    }

    /// `Name[(bases, keyword=value)]` after `class`.
    fn class_header(&mut self) -> Result<Clause, SyntaxError> {
        let name = self.identifier()?;
        let (bases, keywords) = if self.is_op("(") {
            let open = self.bump().pos;
            let (bases, keywords, _) = self.nested(open, Self::call_arguments)?;
            (bases, keywords)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Clause::Class(name, bases, keywords))
    }

    /// `del target, ...` after the `del`.
    fn del(&mut self) -> Result<StatementKind, SyntaxError> {
        let (node, bare) = self.testlist()?;
        let targets = match node.expr.kind {
            ExprKind::Tuple(items) if bare => items,
            _ => vec![node.expr],
        };
        targets
            .into_iter()
            .map(to_del_target)
            .collect::<Result<_, _>>()
            .map(StatementKind::Del)
    }

    /// `import a.b [as c]` or `from a.b import c [as d]`.
    fn import(&mut self) -> Result<StatementKind, SyntaxError> {
        let from = self.is_name("from");
        self.bump();
        if self.is_op(".") || self.is_op("...") {
            return Err(SyntaxError::new(
                self.peek().pos,
                "relative imports are not supported here",
            ));
        }
        let mut names = Vec::new();
        if from {
            let module = self.dotted_name()?;
            if !self.is_name("import") {
                return Err(self.invalid_syntax());
            }
            self.bump();
            if self.is_op("*") {
                return Err(SyntaxError::new(
                    self.peek().pos,
                    "'from ... import *' is not supported here",
                ));
            }
            let parenthesized = self.eat_op("(");
            loop {
                let name = self.identifier()?;
                let alias = self.alias()?.unwrap_or_else(|| name.clone());
                names.push(ImportName {
                    path: format!("{module}.{name}"),
                    alias,
                });
                if !self.is_op(",") {
                    break;
                }
                let comma = self.peek().pos;
                self.bump();
                let after = &self.peek().kind;
                if parenthesized && matches!(after, TokenKind::Op(")")) {
                    break;
                }
                if !parenthesized && matches!(after, TokenKind::End) {
                    return Err(SyntaxError::new(
                        comma,
                        "trailing comma not allowed without surrounding parentheses",
                    ));
                }
            }
            if parenthesized {
                self.expect_op(")")?;
            }
        } else {
            loop {
                let module = self.dotted_name()?;
                names.push(match self.alias()? {
                    Some(alias) => ImportName {
                        path: module,
                        alias,
                    },
                    None => {
                        let top = module.split('.').next().unwrap_or_default().to_string();
                        ImportName {
                            path: top.clone(),
                            alias: top,
                        }
                    }
                });
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        // `import torch` is a statement like any other (a notebook's first cell shows it as a
        // step); `torch` is also bound from the start.
        Ok(StatementKind::Import(names))
    }

    /// An optional `as NAME`.
    fn alias(&mut self) -> Result<Option<String>, SyntaxError> {
        if !self.is_name("as") {
            return Ok(None);
        }
        self.bump();
        self.identifier().map(Some)
    }

    /// `NAME ('.' NAME)*`.
    fn dotted_name(&mut self) -> Result<String, SyntaxError> {
        let mut path = self.identifier()?;
        while self.eat_op(".") {
            path.push('.');
            path.push_str(&self.identifier()?);
        }
        Ok(path)
    }

    /// A name that is not a keyword.
    fn identifier(&mut self) -> Result<String, SyntaxError> {
        match &self.peek().kind {
            TokenKind::Name(name) if !is_keyword(name) => {
                let name = name.clone();
                self.bump();
                Ok(name)
            }
            _ => Err(self.invalid_syntax()),
        }
    }

    /// `(testlist '=')* testlist` or `target op= testlist`.
    fn assignment(&mut self) -> Result<StatementKind, SyntaxError> {
        let mut current = self.testlist()?;
        if let TokenKind::Op(op) = self.peek().kind {
            if let Some((_, operation)) = AUGMENTED.iter().find(|(o, _)| *o == op) {
                return self.augmented(current, op, *operation);
            }
        }
        let mut targets = Vec::new();
        while self.eat_op("=") {
            let next = self.testlist()?;
            targets.push(std::mem::replace(&mut current, next));
        }
        self.end_of_statement()?;
        let value = current.0.expr;
        if let ExprKind::Starred(_) = value.kind {
            return Err(SyntaxError::new(
                value.pos,
                "can't use starred expression here",
            ));
        }
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

    /// The end of a simple statement: the end of the line or a `;` (left for
    /// [`Parser::simples`]).
    fn end_of_statement(&mut self) -> Result<(), SyntaxError> {
        if matches!(self.peek().kind, TokenKind::End) || self.is_op(";") {
            Ok(())
        } else {
            Err(self.invalid_syntax())
        }
    }

    /// `target <op>= value` after the target.
    fn augmented(
        &mut self,
        (target, bare): (Node, bool),
        op: &str,
        operation: Option<BinOp>,
    ) -> Result<StatementKind, SyntaxError> {
        let op_pos = self.bump().pos;
        let (value, _) = self.testlist()?;
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
        let Some(op) = operation else {
            return Err(SyntaxError::new(
                op_pos,
                format!("the '{op}' operator is not supported here"),
            ));
        };
        let target = to_target(target, false, false)?;
        Ok(StatementKind::AugAssign {
            target,
            op,
            value: value.expr,
        })
    }
}

/// Converts a `del` operand to a target, with Python's messages for invalid ones.
fn to_del_target(expr: Expr) -> Result<Target, SyntaxError> {
    match expr.kind {
        ExprKind::Name(name) => Ok(Target::Name(name)),
        ExprKind::Attribute { object, name } => Ok(Target::Attribute { object, name }),
        ExprKind::Subscript { object, index } => Ok(Target::Subscript { object, index }),
        ExprKind::Tuple(items) | ExprKind::List(items) => items
            .into_iter()
            .map(to_del_target)
            .collect::<Result<_, _>>()
            .map(Target::Tuple),
        kind => Err(SyntaxError::new(
            expr.pos,
            format!("cannot delete {}", expr_name(&kind)),
        )),
    }
}
