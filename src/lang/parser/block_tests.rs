//! Tests of blocks, compound and new simple statements, and the newer expression forms.

use crate::lang::ast::{ExprKind, FStringPart, StatementKind};
use crate::lang::parser::parse_script;
use crate::lang::parser::test_support::*;

/// Each item of `src`'s parse: `line:rendering` or `line!message@line:col`.
fn items(src: &str) -> Vec<String> {
    parse_script(src)
        .iter()
        .map(|r| match r {
            Ok(s) => format!("{}:{}", s.line, show_statement(s)),
            Err((line, e)) => format!("{line}!{}@{}:{}", e.message, e.pos.line, e.pos.col),
        })
        .collect()
}

#[test]
fn if_elif_else() {
    let src = "if a:\n    b = 1\nelif c:\n    b = 2\n    d\nelse:\n    b = 3\ne = 4";
    assert_eq!(
        items(src),
        [
            "1:if a: {2:b = 1} if c: {4:b = 2; 5:d} else: {7:b = 3}",
            "8:e = 4"
        ]
    );
    let script = parse_script(src);
    let Some(Ok(first)) = script.first() else {
        panic!("{script:?}")
    };
    assert_eq!(first.source, "if a:");
    assert_eq!(
        items("if a: b = 1\nelse: pass"),
        ["1:if a: {1:b = 1} else: {2:pass}"]
    );
    assert_eq!(items("if x: y = 1"), ["1:if x: {1:y = 1}"]);
    assert_eq!(
        items("if a:  # c\n    b = [1,\n2]\n# dedented comment\n\n    c\nd"),
        ["1:if a: {2:b = [1, 2]; 6:c}", "7:d"]
    );
    assert_eq!(
        items("if a:\n  b\nif c:\n  d"),
        ["1:if a: {2:b}", "3:if c: {4:d}"]
    );
}

#[test]
fn loops_and_nesting() {
    let src = "for row in a:\n\tfor x in row:\n\t\tif x > 0:\n\t\t\tcontinue\n\t\ts += x\n\n  # c\n\tbreak\nwhile i < 3:\n    i += 1\n";
    assert_eq!(
        items(src),
        [
            "1:for row in a: {2:for x in row: {3:if (> x 0): {4:continue}; 5:s += x}; 8:break}",
            "9:while (< i 3): {10:i += 1}"
        ]
    );
    assert_eq!(
        items("for i in range(3): print(i)"),
        ["1:for i in range(3): {1:print(i)}"]
    );
    assert_eq!(
        items("for i, (x, y) in enumerate(z):\n pass"),
        ["1:for (tuple i (tuple x y)) in enumerate(z): {2:pass}"]
    );
    assert_eq!(
        items("for x in *a, b:\n  pass"),
        ["1:for x in (tuple *a b): {2:pass}"]
    );
    let script = parse_script("for i in range(3): print(i)");
    let Some(Ok(s)) = script.first() else {
        panic!()
    };
    let StatementKind::For { body, .. } = &s.kind else {
        panic!()
    };
    assert_eq!(body[0].source, "print(i)");
    assert_eq!(s.source, "for i in range(3): print(i)");
    // Deeply nested blocks are fine up to the limit.
    let mut deep = String::new();
    for level in 0..99 {
        deep.push_str(&" ".repeat(level));
        deep.push_str("if a:\n");
    }
    deep.push_str(&" ".repeat(99));
    deep.push_str("pass\n");
    assert!(matches!(parse_script(&deep).as_slice(), [Ok(_)]));
    deep.insert_str(0, "if b:\n");
    let deeper: String = deep
        .lines()
        .enumerate()
        .map(|(k, l)| {
            if k == 0 {
                format!("{l}\n")
            } else {
                format!(" {l}\n")
            }
        })
        .collect();
    assert_eq!(
        items(&deeper),
        ["101!too many levels of indentation@101:101"]
    );
}

#[test]
fn block_errors() {
    assert_eq!(
        items("for i in x:\nprint(i)"),
        [
            "1!expected an indented block after 'for' statement on line 1@1:12",
            "2:print(i)"
        ]
    );
    assert_eq!(
        items("x = 1\nif x:\n"),
        [
            "1:x = 1",
            "2!expected an indented block after 'if' statement on line 2@2:6"
        ]
    );
    assert_eq!(
        items("if a:\n  b\nelse:\nc"),
        [
            "3!expected an indented block after 'else' statement on line 3@3:6",
            "4:c"
        ]
    );
    assert_eq!(
        items("if a:\n    b\n  c\nd"),
        [
            "3!unindent does not match any outer indentation level@3:3",
            "4:d"
        ]
    );
    assert_eq!(
        items("if a:\n  b\n    c\n  d\ne"),
        ["3!unexpected indent@3:1", "5:e"]
    );
    assert_eq!(
        items("if a:\n        b\n\tc"),
        ["3!inconsistent use of tabs and spaces in indentation@3:2"]
    );
    assert_eq!(
        items("for i in range(3)\n  x\ny"),
        ["1!expected ':'@1:18", "3:y"]
    );
    assert_eq!(items("if a b:\n  c"), ["1!invalid syntax@1:6"]);
    assert_eq!(items("while x y:\n  c"), ["1!invalid syntax@1:9"]);
    assert_eq!(
        items("for f() in x:\n  c"),
        ["1!cannot assign to function call@1:5"]
    );
    assert_eq!(items("for x y:\n  c"), ["1!invalid syntax@1:7"]);
    assert_eq!(items("break"), ["1!'break' outside loop@1:1"]);
    assert_eq!(
        items("if a: continue"),
        ["1!'continue' not properly in loop@1:7"]
    );
    assert_eq!(
        items("while a:\n  if b:\n    break\n  else: continue"),
        ["1:while a: {2:if b: {3:break} else: {4:continue}}"]
    );
    assert_eq!(items("else:\n  a\nb"), ["1!invalid syntax@1:1", "3:b"]);
    assert_eq!(items("elif a:\n  b"), ["1!invalid syntax@1:1"]);
    assert_eq!(
        items("for a in b:\n  c\nelse:\n  d\ne"),
        ["3!'else' after a loop is not supported here@3:1", "5:e"]
    );
    assert_eq!(items("if a: if b: c"), ["1!invalid syntax@1:7"]);
    assert_eq!(items("if a: for b in c: d"), ["1!invalid syntax@1:7"]);
    assert_eq!(
        items("  a = 1\n  b = 2"),
        ["1!unexpected indent@1:1", "2!unexpected indent@2:1"]
    );
}

#[test]
fn errors_inside_blocks_end_the_statement() {
    // The error's line, then the next top-level statement runs.
    assert_eq!(
        items("for i in x:\n    a = $\n    b = 1\nc = 2"),
        ["2!invalid syntax@2:9", "4:c = 2"]
    );
    assert_eq!(
        items("if a:\n  b = f(1,\nc = 2\nd = 3"),
        ["2!'(' was never closed@2:8", "3:c = 2", "4:d = 3"]
    );
    assert_eq!(
        items("if a:\n  b = (1,\n  c = 2)\nd = 3"),
        ["2!'(' was never closed@2:7", "4:d = 3"]
    );
    assert_eq!(
        items("while a:\n  x = 'abc\n  y\nz"),
        [
            "2!unterminated string literal (detected at line 2)@2:7",
            "4:z"
        ]
    );
    assert_eq!(
        items("if a:\n  b\nelif c d:\n  e\nf"),
        ["3!invalid syntax@3:8", "5:f"]
    );
}

#[test]
fn simple_statements() {
    let cases = [
        ("a += 1", "a += 1"),
        ("a -= b * 2", "a -= (* b 2)"),
        ("x[0] *= 2", "x[0] *= 2"),
        ("a.b /= 2", "a.b /= 2"),
        ("a //= 2", "a //= 2"),
        ("a %= 2", "a %= 2"),
        ("a **= 2", "a **= 2"),
        ("a @= b", "a @= b"),
        ("a &= b", "a &= b"),
        ("a |= b", "a |= b"),
        ("a ^= b", "a ^= b"),
        ("a += 1, 2", "a += (tuple 1 2)"),
        ("del a, b[0]", "del a, b[0]"),
        ("del (a, b)", "del (tuple a b)"),
        ("del a.x", "del a.x"),
        ("pass", "pass"),
        ("import numpy as np", "import numpy as np"),
        (
            "import torch.nn.functional as F",
            "import torch.nn.functional as F",
        ),
        ("import torch.nn as nn", "import torch.nn as nn"),
        ("import torch.nn", "import torch as torch"),
        ("import torch as t", "import torch as t"),
        ("from torch import nn", "import torch.nn as nn"),
        ("from torch import (nn)", "import torch.nn as nn"),
        (
            "from torch.nn import functional as F",
            "import torch.nn.functional as F",
        ),
        (
            "from torchvision.io import read_image",
            "import torchvision.io.read_image as read_image",
        ),
        (
            "from torchvision.io import read_image, ImageReadMode as M",
            "import torchvision.io.read_image as read_image, torchvision.io.ImageReadMode as M",
        ),
        (
            "from torch import (nn,\n tensor,)",
            "import torch.nn as nn, torch.tensor as tensor",
        ),
        (
            "import numpy as np, torch.nn",
            "import numpy as np, torch as torch",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(statement(src), want, "{src}");
    }
    assert_eq!(parse_script("import torch\nimport torch;").len(), 2);
}

#[test]
fn simple_statement_errors() {
    let cases = [
        ("a <<= 1", "the '<<=' operator is not supported here", 1, 3),
        (
            "f() += 1",
            "'function call' is an illegal expression for augmented assignment",
            1,
            1,
        ),
        (
            "a, b += 1",
            "'tuple' is an illegal expression for augmented assignment",
            1,
            1,
        ),
        ("a += ", "invalid syntax", 1, 6),
        ("del f()", "cannot delete function call", 1, 5),
        ("del 1", "cannot delete literal", 1, 5),
        ("del", "invalid syntax", 1, 4),
        ("pass 1", "invalid syntax", 1, 6),
        ("import", "invalid syntax", 1, 7),
        ("import a.", "invalid syntax", 1, 10),
        ("import a as", "invalid syntax", 1, 12),
        (
            "from torch import *",
            "'from ... import *' is not supported here",
            1,
            19,
        ),
        (
            "from . import a",
            "relative imports are not supported here",
            1,
            6,
        ),
        ("from torch nn", "invalid syntax", 1, 12),
        (
            "global x",
            "'global' statements are not supported here",
            1,
            1,
        ),
        ("return 1", "'return' outside function", 1, 1),
        (
            "*s = [1, 2]",
            "starred assignment target must be in a list or tuple",
            1,
            1,
        ),
        (
            "*a, *b = c",
            "multiple starred expressions in assignment",
            1,
            5,
        ),
        (
            "def f(a, a): pass",
            "duplicate argument 'a' in function definition",
            1,
            10,
        ),
        (
            "def f(a=1, b): pass",
            "parameter without a default follows parameter with a default",
            1,
            12,
        ),
        (
            "def f(a, /): pass",
            "'/' parameters are not supported here",
            1,
            10,
        ),
        ("def f(*): pass", "named arguments must follow bare *", 1, 7),
        ("a = 1;; b = 2", "invalid syntax", 1, 7),
        ("*a", "can't use starred expression here", 1, 1),
        ("x = *a", "can't use starred expression here", 1, 5),
    ];
    for (src, message, line, col) in cases {
        assert_eq!(error(src), err(message, line, col), "{src}");
    }
    assert_eq!(
        error("from torch import nn,"),
        err(
            "trailing comma not allowed without surrounding parentheses",
            1,
            21
        )
    );
    assert_eq!(
        statement("from torch import (nn,)"),
        "import torch.nn as nn"
    );
}

#[test]
fn newer_expressions() {
    let cases = [
        ("a if c else b", "(if c a b)"),
        ("a if c else b if d else e", "(if c a (if d b e))"),
        ("x = 1 if a else 2", "x = (if a 1 2)"),
        ("a in b", "(in a b)"),
        ("a not in b", "(not in a b)"),
        ("a is None", "(is a None)"),
        ("a is not None", "(is not a None)"),
        ("not a in b", "(not (in a b))"),
        ("a < b in c is not d", "(cmp a < b in c is not d)"),
        ("[x * x for x in xs]", "(list (* x x) for x in xs)"),
        (
            "[e for x in xs if c if d for y in ys]",
            "(list e for x in xs if c if d for y in ys)",
        ),
        ("[a if b else c for x in y]", "(list (if b a c) for x in y)"),
        (
            "[i for i, x in enumerate(y)]",
            "(list i for (tuple i x) in enumerate(y))",
        ),
        ("(e for x in xs)", "(gen e for x in xs)"),
        ("sum(x * x for x in xs)", "sum((gen (* x x) for x in xs))"),
        ("{x for x in xs}", "(set x for x in xs)"),
        ("f(*args, k=1)", "f(*args, k=1)"),
        ("f(k=1, *args)", "f(*args, k=1)"),
        ("[*a, b]", "[*a, b]"),
        ("(*a, b)", "(tuple *a b)"),
        ("*a, b", "(tuple *a b)"),
        ("{}", "{}"),
        ("{'a': 1, b: c + 1,}", "{\"a\": 1, b: (+ c 1)}"),
        ("{'a': [x for x in y]}", "{\"a\": (list x for x in y)}"),
    ];
    for (src, want) in cases {
        assert_eq!(statement(src), want, "{src}");
    }
}

#[test]
fn newer_expression_errors() {
    let cases = [
        ("lambda *: 0", "named arguments must follow bare *", 1, 8),
        ("lambda x 0", "invalid syntax", 1, 10),
        ("{1, 2}", "set displays are not supported here", 1, 1),
        ("{1}", "set displays are not supported here", 1, 1),
        (
            "{**a}",
            "dict unpacking with '**' is not supported here",
            1,
            2,
        ),
        ("a if b", "expected 'else' after 'if' expression", 1, 7),
        (
            "f(x for x in y, 1)",
            "Generator expression must be parenthesized",
            1,
            3,
        ),
        (
            "f(1, x for x in y)",
            "Generator expression must be parenthesized",
            1,
            6,
        ),
        (
            "[*a for a in b]",
            "iterable unpacking cannot be used in comprehension",
            1,
            2,
        ),
        ("(*a)", "can't use starred expression here", 1, 2),
        ("[x for x y]", "invalid syntax", 1, 10),
        ("[x for 1 in y]", "cannot assign to literal", 1, 8),
        ("x[*a]", "can't use starred expression here", 1, 3),
        (
            "a if b else c = 1",
            "cannot assign to conditional expression here. Maybe you meant '==' instead of '='?",
            1,
            1,
        ),
    ];
    for (src, message, line, col) in cases {
        assert_eq!(error(src), err(message, line, col), "{src}");
    }
}

#[test]
fn fstrings() {
    let cases = [
        ("f'x = {x}'", "(f \"x = \" {x})"),
        ("F\"{x!r}\"", "(f {x!r})"),
        ("f'{x:.2f}'", "(f {x:.2f})"),
        ("f'{x:>10}|'", "(f {x:>10} \"|\")"),
        ("f'{x=}'", "(f {\"x=\"=x})"),
        ("f'{x = !s:5}'", "(f {\"x = \"=x!s:5})"),
        ("f\"{d['a']}\"", "(f {d[\"a\"]})"),
        ("f'{{a}} {b}'", "(f \"{a} \" {b})"),
        ("rf'\\n{x}'", "(f \"\\\\n\" {x})"),
        ("fr'{x}\\t'", "(f {x} \"\\\\t\")"),
        ("f'\\n{x}'", "(f \"\\n\" {x})"),
        ("f'''{x}'''", "(f {x})"),
        ("f\"\"\"a'{x}\"\"\"", "(f \"a'\" {x})"),
        ("'a' f'{b}' 'c'", "(f \"a\" {b} \"c\")"),
        ("f'plain'", "(f \"plain\")"),
        ("f''", "(f )"),
        ("'''a'''", "\"a\""),
        ("f'{a + b * 2}'", "(f {(+ a (* b 2))})"),
        ("f'{a, b}'", "(f {(tuple a b)})"),
        ("f'{x if y else z}'", "(f {(if y x z)})"),
        ("f'{f\"{x}\"}'", "(f {(f {x})})"),
        ("f'{[i for i in y]}'", "(f {(list i for i in y)})"),
        ("f'{a[1:2]!r}'", "(f {a[(slice 1 2 _)]!r})"),
    ];
    for (src, want) in cases {
        assert_eq!(expression(src), want, "{src}");
    }
    // A field's expression has its own position in the script.
    let script = parse_script("s = f'ab{ x + yy }'");
    let Some(Ok(s)) = script.first() else {
        panic!("{script:?}")
    };
    let StatementKind::Assign { value, .. } = &s.kind else {
        panic!()
    };
    let ExprKind::FString(parts) = &value.kind else {
        panic!("{value:?}")
    };
    let Some(FStringPart::Field { expr, .. }) = parts.get(1) else {
        panic!("{parts:?}")
    };
    assert_eq!(expr.pos, at(1, 11));
}

#[test]
fn fstring_errors() {
    let cases = [
        ("f'{x'", "f-string: expecting '}'", 1, 1),
        ("f'{}'", "f-string: empty expression not allowed", 1, 1),
        ("x = f'a}'", "f-string: single '}' is not allowed", 1, 5),
        (
            "f'{x:>{w}}'",
            "f-string: nested replacement fields in format specs are not supported here",
            1,
            1,
        ),
        (
            "f'{x!z}'",
            "f-string: invalid conversion character: expected 's', 'r', or 'a'",
            1,
            1,
        ),
        ("f'{a b}'", "invalid syntax", 1, 6),
        ("f'{a +}'", "invalid syntax", 1, 7),
        ("f'{1abc}'", "invalid decimal literal", 1, 4),
        ("f'{$}'", "invalid syntax", 1, 4),
        ("f'{a = 1}'", "f-string: expecting '}'", 1, 1),
        ("b'{x}'", "bytes literals are not supported here", 1, 1),
        (
            "f'''abc",
            "unterminated triple-quoted string literal (detected at line 1)",
            1,
            1,
        ),
        (
            "x = f'{x",
            "unterminated string literal (detected at line 1)",
            1,
            5,
        ),
    ];
    for (src, message, line, col) in cases {
        assert_eq!(error(src), err(message, line, col), "{src}");
    }
}

#[test]
fn multi_line_strings() {
    let src = "\"\"\"Doc\n  # not a comment\n\"\"\"\nx = f'''a\n{y +\n z!r}'''  # c\nt = 1";
    assert_eq!(
        items(src),
        [
            "1:\"Doc\\n  # not a comment\\n\"",
            "4:x = (f \"a\\n\" {(+ y z)!r})",
            "7:t = 1"
        ]
    );
    let script = parse_script(src);
    let Some(Ok(s)) = script.get(1) else {
        panic!("{script:?}")
    };
    assert_eq!(s.source, "x = f'''a\n{y +\n z!r}'''");
    let StatementKind::Assign { value, .. } = &s.kind else {
        panic!()
    };
    let ExprKind::FString(parts) = &value.kind else {
        panic!("{value:?}")
    };
    let Some(FStringPart::Field { expr, .. }) = parts.get(1) else {
        panic!("{parts:?}")
    };
    let ExprKind::Binary { right, .. } = &expr.kind else {
        panic!("{expr:?}")
    };
    assert_eq!((expr.pos, right.pos), (at(5, 2), at(6, 2)));
    assert_eq!(
        items("a = 1\ns = '''abc\n  def\nb = 2"),
        [
            "1:a = 1",
            "2!unterminated triple-quoted string literal (detected at line 4)@2:5",
            "4:b = 2"
        ]
    );
    assert_eq!(
        items("if a:\n    s = \"\"\"x\ny\"\"\"\n    t = s\nu"),
        ["1:if a: {2:s = \"x\\ny\"; 4:t = s}", "5:u"]
    );
}

#[test]
fn deep_fstrings_and_blocks_stay_bounded() {
    // Fields nest only as deep as the quote kinds allow; long inputs stay flat.
    let many = format!("f'{}'", "{x}".repeat(10_000));
    assert!(matches!(parse_script(&many).as_slice(), [Ok(_)]));
    let deep = format!("f'{{{}1{}}}'", "(".repeat(250), ")".repeat(250));
    assert_eq!(error(&deep).0, "too many nested parentheses");
    let inner = format!("{}1{}", "-(".repeat(180), ")".repeat(180));
    let nested = format!("x = f'{{{inner}}}'");
    assert!(matches!(parse_script(&nested).as_slice(), [Ok(_)]));
    let ladder: String = (0..500)
        .map(|k| format!("{}if a:\n", " ".repeat(k)))
        .collect();
    let parsed = parse_script(&ladder);
    assert_eq!(parsed.len(), 1);
    assert!(parsed[0].is_err());
}

#[test]
fn try_statements() {
    assert_eq!(
        statement("try:\n  a\nexcept RuntimeError as e:\n  b\nelse:\n  c\nfinally:\n  d"),
        "try: {2:a} 3:except RuntimeError as e: {4:b} else: {6:c} finally: {8:d}"
    );
    assert_eq!(
        statement("try:\n  a\nexcept (TypeError, ValueError):\n  b\nexcept:\n  c"),
        "try: {2:a} 3:except (tuple TypeError ValueError): {4:b} 5:except : {6:c}"
    );
    assert_eq!(statement("try: a\nfinally: b"), "try: {1:a} finally: {2:b}");
    assert_eq!(
        items("try:\n  a\nb"),
        ["1!expected 'except' or 'finally' block@3:1", "3:b"]
    );
    assert_eq!(
        error("try:\n  a\nexcept:\n  b\nexcept ValueError:\n  c"),
        err("default 'except:' must be last", 5, 1)
    );
    assert_eq!(items("except ValueError:\n  b"), ["1!invalid syntax@1:1"]);
}

#[test]
fn function_definitions() {
    assert_eq!(
        statement("def f(x, k=2):\n  y = x * k\n  return y"),
        "def f(x, k=2): {2:y = (* x k); 3:return y}"
    );
    assert_eq!(
        statement("def g(t: torch.Tensor) -> int:\n  return"),
        "def g(t): {2:return }"
    );
    assert_eq!(
        statement("def h():\n  for i in a:\n    return i"),
        "def h(): {2:for i in a: {3:return i}}"
    );
    assert_eq!(statement("assert a, 'm'"), "assert a, \"m\"");
    assert_eq!(
        statement("raise ValueError('x')"),
        "raise ValueError(\"x\")"
    );
}

#[test]
fn classes_and_decorators() {
    let src = "class Net(Base):\n    \"\"\"Doc.\"\"\"\n    size = 3\n\n    @staticmethod\n    def make(n=1):\n        return n\n\n    def forward(self, x):\n        return x\nnet = Net()";
    assert_eq!(
        items(src),
        [
            "1:class Net(Base): {2:\"Doc.\"; 3:size = 3; 5:@staticmethod def make(n=1): {7:return n}; 9:def forward(self, x): {10:return x}}",
            "11:net = Net()"
        ]
    );
    assert_eq!(items("class A: pass"), ["1:class A(): {1:pass}"]);
    assert_eq!(
        items("class A(B, metaclass=M):\n  pass"),
        ["1:class A(B, metaclass=M): {2:pass}"]
    );
    assert_eq!(
        items("@a\n@b.c(1)\ndef f(): pass\n@d\nclass E: pass"),
        ["1:@a @b.c(1) def f(): {3:pass}", "4:@d class E(): {5:pass}"]
    );
    // A decorator's statement starts at the decorator's line, with its text.
    let script = parse_script("@staticmethod\ndef f(): pass");
    let Some(Ok(first)) = script.first() else {
        panic!("{script:?}")
    };
    assert_eq!((first.line, first.source.as_str()), (1, "@staticmethod"));
}

#[test]
fn class_errors_are_python_s() {
    assert_eq!(
        items("class A:\nx = 1"),
        [
            "1!expected an indented block after class definition on line 1@1:9",
            "2:x = 1"
        ]
    );
    assert_eq!(items("class A\n  pass"), ["1!expected ':'@1:8"]);
    assert_eq!(items("class A(:): pass"), ["1!invalid syntax@1:9"]);
    assert_eq!(
        items("class A(): return 1"),
        ["1!'return' outside function@1:12"]
    );
    assert_eq!(items("@foo\nx = 1"), ["2!invalid syntax@2:1"]);
}
