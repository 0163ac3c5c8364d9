//! Helpers for the parser's tests: compact renderings of expressions and statements.

use crate::lang::ast::{
    BinOp, ComprehensionKind, Expr, ExprKind, FStringPart, Pos, Statement, StatementKind, Target,
    UnaryOp,
};
use crate::lang::parser::{parse_expression, parse_script};

/// The sample notebook lines from the course material.
pub(super) const LINES: [&str; 18] = [
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
pub(super) fn show(expr: &Expr) -> String {
    let list = |items: &[Expr]| items.iter().map(show).collect::<Vec<_>>().join(" ");
    let part = |part: &Option<Box<Expr>>| part.as_deref().map_or("_".to_string(), show);
    match &expr.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::Imag(v) => format!("{v:?}j"),
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
        ExprKind::Starred(inner) => format!("*{}", show(inner)),
        ExprKind::IfExp { cond, then, orelse } => {
            format!("(if {} {} {})", show(cond), show(then), show(orelse))
        }
        ExprKind::FString(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|part| match part {
                    FStringPart::Text(text) => format!("{text:?}"),
                    FStringPart::Field {
                        expr,
                        conversion,
                        spec,
                        debug_text,
                    } => {
                        let mut field = show(expr);
                        if let Some(d) = debug_text {
                            field = format!("{d:?}={field}");
                        }
                        if let Some(c) = conversion {
                            field.push_str(&format!("!{c}"));
                        }
                        if !spec.is_empty() {
                            field.push_str(&format!(":{spec}"));
                        }
                        format!("{{{field}}}")
                    }
                })
                .collect();
            format!("(f {})", parts.join(" "))
        }
        ExprKind::Comprehension {
            kind,
            element,
            generators,
        } => {
            let kind = match kind {
                ComprehensionKind::List => "list",
                ComprehensionKind::Generator => "gen",
                ComprehensionKind::Set => "set",
                ComprehensionKind::Dict => "dict",
            };
            let generators: Vec<String> = generators
                .iter()
                .map(|g| {
                    let ifs: String = g.ifs.iter().map(|c| format!(" if {}", show(c))).collect();
                    format!(" for {} in {}{ifs}", show_target(&g.target), show(&g.iter))
                })
                .collect();
            format!("({kind} {}{})", show(element), generators.concat())
        }
        ExprKind::Lambda(def) => {
            let params: Vec<&str> = def.params.iter().map(|(p, _)| p.as_str()).collect();
            format!("(lambda {})", params.join(" "))
        }
        ExprKind::Dict(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", show(k), show(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

pub(super) fn symbol(op: BinOp) -> &'static str {
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
        BinOp::In => "in",
        BinOp::NotIn => "not in",
        BinOp::Is => "is",
        BinOp::IsNot => "is not",
    }
}

pub(super) fn show_target(target: &Target) -> String {
    match target {
        Target::Name(n) => n.clone(),
        Target::Tuple(items) => {
            let items: Vec<String> = items.iter().map(show_target).collect();
            format!("(tuple {})", items.join(" ")).replace("(tuple )", "(tuple)")
        }
        Target::Subscript { object, index } => format!("{}[{}]", show(object), show(index)),
        Target::Attribute { object, name } => format!("{}.{name}", show(object)),
        Target::Starred(inner) => format!("*{}", show_target(inner)),
    }
}

pub(super) fn show_statement(statement: &Statement) -> String {
    match &statement.kind {
        StatementKind::Expr(e) => show(e),
        StatementKind::Assign { targets, value } => {
            let mut parts: Vec<String> = targets.iter().map(show_target).collect();
            parts.push(show(value));
            parts.join(" = ")
        }
        StatementKind::AugAssign { target, op, value } => {
            format!("{} {}= {}", show_target(target), symbol(*op), show(value))
        }
        StatementKind::Del(targets) => {
            let targets: Vec<String> = targets.iter().map(show_target).collect();
            format!("del {}", targets.join(", "))
        }
        StatementKind::Import(names) => {
            let names: Vec<String> = names
                .iter()
                .map(|n| format!("{} as {}", n.path, n.alias))
                .collect();
            format!("import {}", names.join(", "))
        }
        StatementKind::If { branches, orelse } => {
            let mut out: Vec<String> = branches
                .iter()
                .map(|(cond, body)| format!("if {}: {}", show(cond), show_block(body)))
                .collect();
            if !orelse.is_empty() {
                out.push(format!("else: {}", show_block(orelse)));
            }
            out.join(" ")
        }
        StatementKind::For { target, iter, body } => format!(
            "for {} in {}: {}",
            show_target(target),
            show(iter),
            show_block(body)
        ),
        StatementKind::While { cond, body } => {
            format!("while {}: {}", show(cond), show_block(body))
        }
        StatementKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            let mut out = vec![format!("try: {}", show_block(body))];
            for h in handlers {
                let kind = h.kind.as_ref().map(show).unwrap_or_default();
                let name = h
                    .name
                    .as_ref()
                    .map(|n| format!(" as {n}"))
                    .unwrap_or_default();
                out.push(format!(
                    "{}:except {kind}{name}: {}",
                    h.line,
                    show_block(&h.body)
                ));
            }
            if !orelse.is_empty() {
                out.push(format!("else: {}", show_block(orelse)));
            }
            if !finalbody.is_empty() {
                out.push(format!("finally: {}", show_block(finalbody)));
            }
            out.join(" ")
        }
        StatementKind::FunctionDef(def) => {
            let params: Vec<String> = def
                .params
                .iter()
                .map(|(p, d)| match d {
                    Some(d) => format!("{p}={}", show(d)),
                    None => p.clone(),
                })
                .collect();
            let decorators: String = def
                .decorators
                .iter()
                .map(|d| format!("@{} ", show(d)))
                .collect();
            format!(
                "{decorators}def {}({}): {}",
                def.name,
                params.join(", "),
                show_block(&def.body)
            )
        }
        StatementKind::ClassDef(def) => {
            let decorators: String = def
                .decorators
                .iter()
                .map(|d| format!("@{} ", show(d)))
                .collect();
            let bases = def
                .bases
                .iter()
                .map(show)
                .chain(def.keywords.iter().map(|(k, v)| format!("{k}={}", show(v))));
            format!(
                "{decorators}class {}({}): {}",
                def.name,
                bases.collect::<Vec<_>>().join(", "),
                show_block(&def.body)
            )
        }
        StatementKind::With {
            context,
            name,
            body,
        } => format!(
            "with {}{}: {}",
            show(context),
            name.as_ref()
                .map(|n| format!(" as {n}"))
                .unwrap_or_default(),
            show_block(body)
        ),
        StatementKind::Return(v) => format!("return {}", v.as_ref().map(show).unwrap_or_default()),
        StatementKind::Raise(v) => format!("raise {}", v.as_ref().map(show).unwrap_or_default()),
        StatementKind::Assert { test, message } => format!(
            "assert {}{}",
            show(test),
            message
                .as_ref()
                .map(|m| format!(", {}", show(m)))
                .unwrap_or_default()
        ),
        StatementKind::Pass => "pass".to_string(),
        StatementKind::Break => "break".to_string(),
        StatementKind::Continue => "continue".to_string(),
    }
}

/// A block's statements, rendered in braces with their line numbers.
pub(super) fn show_block(body: &[Statement]) -> String {
    let items: Vec<String> = body
        .iter()
        .map(|s| format!("{}:{}", s.line, show_statement(s)))
        .collect();
    format!("{{{}}}", items.join("; "))
}

/// The single statement of `src`, rendered.
pub(super) fn statement(src: &str) -> String {
    match parse_script(src).as_slice() {
        [Ok(s)] => show_statement(s),
        other => panic!("{src:?} gave {other:?}"),
    }
}

pub(super) fn expression(src: &str) -> String {
    match parse_expression(src) {
        Ok(e) => show(&e),
        Err(e) => panic!("{src:?} gave {e:?}"),
    }
}

/// The single error of `src`: message, line, column.
pub(super) fn error(src: &str) -> (String, usize, usize) {
    match parse_script(src).as_slice() {
        [Err((_, e))] => (e.message.clone(), e.pos.line, e.pos.col),
        other => panic!("{src:?} gave {other:?}"),
    }
}

pub(super) fn err(message: &str, line: usize, col: usize) -> (String, usize, usize) {
    (message.to_string(), line, col)
}

pub(super) fn at(line: usize, col: usize) -> Pos {
    Pos { line, col }
}
