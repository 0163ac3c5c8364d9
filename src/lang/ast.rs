//! The syntax tree of the notebook script language: a small, faithful subset of Python.

/// A position in the script: 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// One statement: a simple statement on its logical line, or a compound statement (`if`,
/// `for`, `while`) with the statements of its blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// 1-based line number where the statement starts.
    pub line: usize,
    /// The statement's first line, trimmed of surrounding whitespace and of a trailing comment
    /// (for a compound statement, its header: `for row in a:`).
    pub source: String,
    pub kind: StatementKind,
}

/// One name an import binds: `alias` to the object at the dotted `path` (`numpy`,
/// `torch.nn.functional`, `torch.nn`). `import torch.nn` binds `torch` (path `torch`), as
/// Python does.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportName {
    /// The dotted path of the object.
    pub path: String,
    /// The name bound.
    pub alias: String,
}

/// What a statement does.
#[derive(Clone, Debug, PartialEq)]
pub enum StatementKind {
    /// `b = expr`, `p, q = expr`, `p, = expr`, and chained `a = b = expr`.
    Assign { targets: Vec<Target>, value: Expr },
    /// A bare expression, whose value the notebook shows.
    Expr(Expr),
    /// `a += b` (Python's `__iadd__`: in place for a tensor, a new binding for a number).
    AugAssign {
        target: Target,
        op: BinOp,
        value: Expr,
    },
    /// `del a, b[0]`.
    Del(Vec<Target>),
    /// `import numpy as np`, `import torch.nn.functional as F`, `from torch import nn, tensor`:
    /// binds each name's `alias` to the object at its dotted `path`, in order.
    Import(Vec<ImportName>),
    /// `if c: ... elif d: ... else: ...`: each branch's condition and block, then the `else`
    /// block (empty when absent).
    If {
        branches: Vec<(Expr, Vec<Statement>)>,
        orelse: Vec<Statement>,
    },
    /// `for target in iter: body`.
    For {
        target: Target,
        iter: Expr,
        body: Vec<Statement>,
    },
    /// `while cond: body`.
    While { cond: Expr, body: Vec<Statement> },
    /// `try: body` with its `except` handlers, then the `else:` block (run when the body
    /// raised nothing) and the `finally:` block (always run); either may be empty.
    Try {
        body: Vec<Statement>,
        handlers: Vec<ExceptHandler>,
        orelse: Vec<Statement>,
        finalbody: Vec<Statement>,
    },
    /// `with context [as name]: body` (the grad-mode context managers).
    With {
        context: Expr,
        name: Option<String>,
        body: Vec<Statement>,
    },
    /// `def name(params): body`.
    FunctionDef(std::sync::Arc<FunctionDef>),
    /// `class Name(Base): body`.
    ClassDef(std::sync::Arc<ClassDef>),
    /// `return` or `return expr` (inside a function).
    Return(Option<Expr>),
    /// `raise`, `raise expr`.
    Raise(Option<Expr>),
    /// `assert test` or `assert test, message`.
    Assert { test: Expr, message: Option<Expr> },
    /// `pass`.
    Pass,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
}

/// One `except` clause: the exception class(es) it catches (every exception when `None`),
/// the name it binds (`except RuntimeError as e`) and its block.
#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    /// The clause's line.
    pub line: usize,
    pub kind: Option<Expr>,
    pub name: Option<String>,
    pub body: Vec<Statement>,
}

/// A function a script defines: its name, its parameters (with their default expressions,
/// evaluated when the `def` runs) and its body.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub name: String,
    /// The positional-or-keyword parameters.
    pub params: Vec<(String, Option<Expr>)>,
    /// `*args` (its name), or an empty name for a bare `*` before keyword-only parameters.
    pub star: Option<String>,
    /// The keyword-only parameters (after `*` or `*args`), with their defaults.
    pub kwonly: Vec<(String, Option<Expr>)>,
    /// `**kwargs` (its name).
    pub double_star: Option<String>,
    pub body: Vec<Statement>,
    /// The `@decorator` lines above the `def`, outermost first (applied innermost first).
    pub decorators: Vec<Expr>,
}

/// A class a script defines: its name, its base classes and `class` keywords
/// (`metaclass=...`), its body (run once, when the `class` statement runs) and its
/// decorators.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub name: String,
    pub bases: Vec<Expr>,
    pub keywords: Vec<(String, Expr)>,
    pub body: Vec<Statement>,
    /// The `@decorator` lines above the `class`, outermost first.
    pub decorators: Vec<Expr>,
}

/// The left-hand side of an assignment.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// `name = ...`
    Name(String),
    /// `p, q = ...` (also `(p, q) = ...` and `p, = ...`).
    Tuple(Vec<Target>),
    /// `obj[index] = ...`
    Subscript { object: Box<Expr>, index: Box<Expr> },
    /// `obj.attr = ...` (parsed so that the evaluator can reject it with Python's message).
    Attribute { object: Box<Expr>, name: String },
    /// `*rest` inside a tuple target (`first, *rest = x.shape`): takes the values left over.
    Starred(Box<Target>),
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    /// `in` (only in comparisons).
    In,
    /// `not in` (only in comparisons).
    NotIn,
    /// `is` (only in comparisons).
    Is,
    /// `is not` (only in comparisons).
    IsNot,
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
    Not,
}

/// An expression, with the position of its first character.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub pos: Pos,
    pub kind: ExprKind,
}

/// The expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    /// An imaginary literal `2j` (its imaginary part).
    Imag(f64),
    Bool(bool),
    None,
    Str(String),
    /// `...`
    Ellipsis,
    Name(String),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `(a, b)`, `(a,)`, `()` and bare `a, b` where Python allows it.
    Tuple(Vec<Expr>),
    /// `start:stop:step`, only inside a subscript.
    Slice {
        start: Option<Box<Expr>>,
        stop: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `a and b`, `a or b` (short-circuit).
    BoolOp {
        and: bool,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `a < b < c`: Python's chained comparison (`ops.len() == rest.len()`).
    Compare {
        first: Box<Expr>,
        ops: Vec<BinOp>,
        rest: Vec<Expr>,
    },
    Attribute {
        object: Box<Expr>,
        name: String,
    },
    /// `obj[index]`; several indices are a `Tuple` index, as in Python.
    Subscript {
        object: Box<Expr>,
        index: Box<Expr>,
    },
    /// `f(a, *rest, k=v)`: a positional argument may be [`ExprKind::Starred`].
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
    /// `*x` inside a call's arguments (or a list/tuple display): unpacks an iterable.
    Starred(Box<Expr>),
    /// `a if cond else b`.
    IfExp {
        cond: Box<Expr>,
        then: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// `f"x = {x:.2f}"`: literal text and replacement fields, in order.
    FString(Vec<FStringPart>),
    /// `[e for x in xs if c]` (`kind` List) or `(e for x in xs)` (`kind` Generator; also the
    /// bare generator argument `sum(x for x in xs)`).
    Comprehension {
        kind: ComprehensionKind,
        element: Box<Expr>,
        generators: Vec<Generator>,
    },
    /// `{k: v, ...}` (a dict display; keys are evaluated in order).
    Dict(Vec<(Expr, Expr)>),
    /// `lambda params: body`: a function whose body returns one expression.
    Lambda(std::sync::Arc<FunctionDef>),
}

/// One piece of an f-string.
#[derive(Clone, Debug, PartialEq)]
pub enum FStringPart {
    /// Literal text (`{{` and `}}` already turned into braces).
    Text(String),
    /// `{expr!r:spec}`: the expression, its conversion (`r`, `s`, `a`), its format spec (the
    /// spec's own `{...}` fields are not supported), and whether it was `{expr=}` (self-documenting:
    /// the source text and `=` precede the value).
    Field {
        expr: Box<Expr>,
        conversion: Option<char>,
        spec: String,
        debug_text: Option<String>,
    },
}

/// What a comprehension builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComprehensionKind {
    List,
    Generator,
    Set,
    /// `{k: v for ...}`: the element is the tuple `(k, v)`.
    Dict,
}

/// `for target in iter if cond1 if cond2` inside a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct Generator {
    pub target: Target,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}
