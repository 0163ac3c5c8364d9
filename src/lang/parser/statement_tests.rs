//! Tests of simple statements, errors, and robustness against random input.

use crate::lang::ast::{ExprKind, StatementKind, Target};
use crate::lang::parser::test_support::*;
use crate::lang::parser::{parse_expression, parse_script};
use proptest::prelude::*;

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
fn multi_line_statements_and_comments() {
    let src = "import torch\n\n# a comment\nx = torch.tensor([1, 2,  # first\n                  3])   # done\n\
               import torch  # again\ny = x + '#'  # c\n  \nf(\n  1,\n  k=2,\n)\n";
    let script = parse_script(src);
    // `import torch` is a statement (of its own line) like any other.
    let summary: Vec<(usize, String, String)> = script
        .iter()
        .filter(|r| !matches!(r, Ok(s) if matches!(s.kind, StatementKind::Import { .. })))
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
    let Some(Ok(s)) = script.get(1) else { panic!() };
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
    assert_eq!(parse_script("import torch;  # c").len(), 1);
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
    assert_eq!(
        error("x = 1 if a"),
        err("expected 'else' after 'if' expression", 1, 11)
    );
    assert_eq!(statement("f = lambda a, b=1: a + b"), "f = (lambda a b)");
    assert_eq!(error(";"), err("invalid syntax", 1, 1));
    assert_eq!(error("x = [1,\n 2"), err("'[' was never closed", 1, 5));
}

#[test]
fn unsupported_constructs() {
    assert_eq!(
        error("a << 1"),
        err("the '<<' operator is not supported here", 1, 3)
    );
    assert_eq!(
        error("nonlocal x"),
        err("'nonlocal' statements are not supported here", 1, 1)
    );
    assert_eq!(
        error("with a, b: pass"),
        err(
            "'with' statements with several context managers are not supported here",
            1,
            7
        )
    );
    assert_eq!(
        statement("with torch.no_grad() as g:\n  w -= 1"),
        "with torch.no_grad() as g: {2:w -= 1}"
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
fn invalid_targets() {
    let maybe =
        |what: &str| format!("cannot assign to {what} here. Maybe you meant '==' instead of '='?");
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

/// Characters that make interesting edits: brackets, quotes, operators, line breaks.
const ALPHABET: &str = "()[]{}:,.;'\"#\\=+-*/%@<>!~&|^ \n\t0123456789_abcefixjorn\u{e9}\u{20ac}$?";

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
        // Statements separated by `;` share their line; otherwise lines increase.
        assert!(line >= last.max(1) && line <= line_count, "{src:?}");
        assert!(line > last || result.is_ok(), "{src:?}");
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

    #[test]
    fn mutated_blocks_never_panic(
        edits in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>(), interesting_char()), 1..12),
    ) {
        check_any(&mutate(BLOCKS, &edits));
    }

    #[test]
    fn random_fstrings_never_panic(chars in prop::collection::vec(interesting_char(), 0..40)) {
        let body: String = chars.into_iter().collect();
        check_any(&format!("x = f'{body}'\ny = f\"{{{body}}}\""));
    }
}

/// A script with blocks of every kind, nested, for the mutation test.
const BLOCKS: &str = "for i in range(3):\n    if i % 2 == 0:\n        a += i\n    elif i > 1: b = [x * x for x in a if x]\n    else:\n\tpass\nwhile a < 3:\n  a = f\"{a!r:>4} {b=}\"\n  if a: break\ndel a, b[0]\nimport numpy as np\n";

#[test]
fn statements_separated_by_semicolons() {
    // Each is a statement of its own on the line, with the whole line as its source (as a
    // notebook records `a = 1; b = 2`: two steps on line 1).
    let parsed = crate::lang::parser::parse_script("a = 1; b = a + 1;\nif a: c = 1; d = 2\n");
    let statements: Vec<_> = parsed.into_iter().map(|s| s.expect("parses")).collect();
    let shown: Vec<String> = statements.iter().map(show_statement).collect();
    assert_eq!(
        shown,
        ["a = 1", "b = (+ a 1)", "if a: {2:c = 1; 2:d = 2}"].map(String::from)
    );
    assert_eq!(statements[0].line, 1);
    assert_eq!(statements[1].line, 1);
    assert_eq!(statements[1].source, "a = 1; b = a + 1;");
    assert_eq!(error("a = 1; import"), err("invalid syntax", 1, 14));
}
