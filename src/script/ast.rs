//! The syntax tree of the notebook script language: a small, faithful subset of Python.

/// A position in the script: 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// One statement: one non-blank, non-comment line of the script.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// 1-based line number.
    pub line: usize,
    /// The line's text, trimmed of surrounding whitespace and of a trailing comment.
    pub source: String,
    pub kind: StatementKind,
}

/// What a statement does.
#[derive(Clone, Debug, PartialEq)]
pub enum StatementKind {
    /// `b = expr`, `p, q = expr`, `p, = expr`, and chained `a = b = expr`.
    Assign { targets: Vec<Target>, value: Expr },
    /// A bare expression, whose value the notebook shows.
    Expr(Expr),
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
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
}
