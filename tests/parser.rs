//! The parser end to end: blocks, the newer statements and expressions, recovery, and random
//! indentation, f-string garbage and deep nesting that must never panic or hang.

use proptest::prelude::*;
use stridescope::lang::ast::{ExprKind, FStringPart, ImportName, StatementKind, Target};
use stridescope::lang::parser::{parse_expression, parse_script};

/// A notebook cell with every block form.
const NOTEBOOK: &str = "\
import torch
import numpy as np
from torch import nn

total = 0
for i, row in enumerate(torch.arange(6).reshape(2, 3)):
    if i == 0:
        continue   # skip the first row
    elif row.sum() > 100:
        break
    else:
        total += row.sum()

n = 3
while n > 0:
\tn -= 1
print(f\"total = {total!r:>8} {n=}\", [x * x for x in range(3) if x])
del n
";

#[test]
fn a_notebook_cell() {
    let script = parse_script(NOTEBOOK);
    let lines: Vec<usize> = script
        .iter()
        .map(|r| match r {
            Ok(s) => s.line,
            Err((line, e)) => panic!("line {line}: {e}"),
        })
        .collect();
    assert_eq!(lines, [1, 2, 3, 5, 6, 14, 15, 17, 18]);
    let Some(Ok(for_loop)) = script.get(4) else {
        panic!("{script:?}")
    };
    assert_eq!(
        for_loop.source,
        "for i, row in enumerate(torch.arange(6).reshape(2, 3)):"
    );
    let StatementKind::For { target, body, .. } = &for_loop.kind else {
        panic!("{for_loop:?}")
    };
    assert!(matches!(target, Target::Tuple(items) if items.len() == 2));
    let [if_statement] = body.as_slice() else {
        panic!("{body:?}")
    };
    let StatementKind::If { branches, orelse } = &if_statement.kind else {
        panic!("{if_statement:?}")
    };
    assert_eq!(branches.len(), 2);
    assert!(matches!(branches[0].1[0].kind, StatementKind::Continue));
    assert!(matches!(orelse[0].kind, StatementKind::AugAssign { .. }));
    assert_eq!(orelse[0].line, 12);
    let Some(Ok(import)) = script.get(1) else {
        panic!()
    };
    assert_eq!(
        import.kind,
        StatementKind::Import(vec![ImportName {
            path: "numpy".into(),
            alias: "np".into()
        }])
    );
}

#[test]
fn broken_blocks_keep_the_rest_running() {
    let src = "a = 1\nfor i in range(3):\n    b = (i,\n    c = 2\nd = 2\nif a:\nprint(a)\ne = 3\n";
    let summary: Vec<String> = parse_script(src)
        .into_iter()
        .map(|r| match r {
            Ok(s) => format!("{}", s.line),
            Err((line, e)) => format!("{line}: {}", e.message),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "1",
            "3: '(' was never closed",
            "5",
            "6: expected an indented block after 'if' statement on line 6",
            "7",
            "8"
        ]
    );
}

#[test]
fn fstring_fields() {
    let Ok(expr) = parse_expression("f'{x:.2f} and {d[\"k\"]!r}'") else {
        panic!()
    };
    let ExprKind::FString(parts) = expr.kind else {
        panic!()
    };
    assert!(matches!(
        parts.as_slice(),
        [
            FStringPart::Field { spec, .. },
            FStringPart::Text(and),
            FStringPart::Field { conversion: Some('r'), .. }
        ] if spec == ".2f" && and == " and "
    ));
}

/// Pieces of Python that stress indentation and f-strings.
const PIECES: &[&str] = &[
    "if a:",
    "for x in y:",
    "while z:",
    "else:",
    "elif b:",
    "    ",
    "\t",
    "  ",
    "pass",
    "break",
    "continue",
    "x += 1",
    "f'{",
    "}'",
    "{x!r:>3}",
    "{{",
    "}}",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\n",
    "\n",
    "\n",
    ":",
    "=",
    "'",
    "\"",
    "'''",
    "#",
    "\\",
    "lambda",
    "*",
    "in",
    "not",
    "is",
    " if ",
    " else ",
    "del ",
    "import ",
    "from ",
    " as ",
];

fn check(src: &str) {
    let line_count = src.split('\n').count();
    let mut last = 0;
    for result in parse_script(src) {
        let line = match &result {
            Ok(s) => s.line,
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
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_pieces_never_panic(pieces in prop::collection::vec(prop::sample::select(PIECES.to_vec()), 0..60)) {
        check(&pieces.concat());
    }

    #[test]
    fn random_indentation_never_panics(
        lines in prop::collection::vec((0usize..12, prop::sample::select(PIECES.to_vec()), prop::sample::select(PIECES.to_vec())), 0..30),
    ) {
        let src: String = lines
            .iter()
            .map(|(indent, a, b)| format!("{}{a}{b}\n", if indent % 3 == 0 { "\t".repeat(indent / 3) } else { " ".repeat(*indent) }))
            .collect();
        check(&src);
    }
}

#[test]
fn deep_and_long_inputs_stay_bounded() {
    let ladder: String = (0..2_000)
        .map(|k| format!("{}for x in y:\n", " ".repeat(k)))
        .collect();
    check(&ladder);
    let fields = format!("f'{}'", "{f\"{x}\"}".repeat(5_000));
    check(&fields);
    let brackets = format!("if a:\n  f'{{{}}}'", "[".repeat(5_000));
    check(&brackets);
    let chain = format!("x = {}", "a if b else ".repeat(5_000) + "c");
    check(&chain);
    let comprehension = format!("[x {}]", "for x in y ".repeat(5_000));
    check(&comprehension);
}
