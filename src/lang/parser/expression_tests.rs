//! Tests of expressions: precedence, atoms, subscripts, positions, nesting limits.

use crate::lang::ast::{BinOp, Expr, ExprKind, Pos, Statement, StatementKind, Target};
use crate::lang::parser::test_support::*;
use crate::lang::parser::{lexer, parse_expression, parse_script, SyntaxError};

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
