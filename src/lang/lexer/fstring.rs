//! Splitting an f-string's body into literal text and replacement fields, with Python's
//! f-string errors. The fields' expressions are tokenized and parsed later, by the parser.

use crate::lang::ast::Pos;
use crate::lang::lexer::literals::decode;

/// One piece of an f-string as the lexer reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum FPiece {
    /// Literal text, escapes decoded and `{{`/`}}` turned into braces.
    Text(String),
    /// A replacement field `{expr!c:spec}`.
    Field(FField),
}

/// A replacement field whose expression is still source text.
#[derive(Clone, Debug, PartialEq)]
pub struct FField {
    /// The expression's source text (as written, surrounding spaces included).
    pub expr: String,
    /// Where `expr` starts in the script.
    pub pos: Pos,
    /// The conversion after `!`: `r`, `s` or `a`.
    pub conversion: Option<char>,
    /// The format spec after `:`, escapes decoded.
    pub spec: String,
    /// For `{expr=}`, the text from the expression to the `=` and the spaces after it.
    pub debug_text: Option<String>,
}

/// Splits the body of an f-string (the characters between its quotes, starting at `start`)
/// into pieces.
pub(super) fn scan_fstring(body: &[char], raw: bool, start: Pos) -> Result<Vec<FPiece>, String> {
    let mut pieces = Vec::new();
    let mut text: Vec<char> = Vec::new();
    let mut i = 0;
    while let Some(&c) = body.get(i) {
        match c {
            '{' if body.get(i + 1) == Some(&'{') => {
                text.push('{');
                i += 2;
            }
            '}' if body.get(i + 1) == Some(&'}') => {
                text.push('}');
                i += 2;
            }
            '}' => return Err("f-string: single '}' is not allowed".to_string()),
            '{' => {
                flush_text(&mut text, raw, &mut pieces)?;
                let field = scan_field(body, &mut i, raw, start)?;
                pieces.push(FPiece::Field(field));
            }
            '\\' => {
                // Keep the escape whole so that `\{` is never read as a field's brace twice.
                text.push('\\');
                if let Some(&next) = body.get(i + 1).filter(|n| !matches!(n, '{' | '}')) {
                    text.push(next);
                    i += 1;
                }
                i += 1;
            }
            _ => {
                text.push(c);
                i += 1;
            }
        }
    }
    flush_text(&mut text, raw, &mut pieces)?;
    Ok(pieces)
}

/// Decodes the literal text gathered so far into a piece.
fn flush_text(text: &mut Vec<char>, raw: bool, pieces: &mut Vec<FPiece>) -> Result<(), String> {
    if !text.is_empty() {
        pieces.push(FPiece::Text(decode(text, raw)?));
        text.clear();
    }
    Ok(())
}

/// The position of `body[index]`, for a body that starts at `start` (and may span lines).
fn position(body: &[char], start: Pos, index: usize) -> Pos {
    let before = body.get(..index).unwrap_or_default();
    match before.iter().rposition(|c| *c == '\n') {
        None => Pos {
            line: start.line,
            col: start.col + index,
        },
        Some(newline) => Pos {
            line: start.line + before.iter().filter(|c| **c == '\n').count(),
            col: index - newline,
        },
    }
}

/// The bracket that closes `open`.
fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// Reads the field whose `{` is `body[*i]`, moving `*i` past its `}`.
fn scan_field(body: &[char], i: &mut usize, raw: bool, start: Pos) -> Result<FField, String> {
    let expecting = || "f-string: expecting '}'".to_string();
    *i += 1;
    let expr_start = *i;
    let mut brackets: Vec<char> = Vec::new();
    // Find where the expression ends: `}`, `!`, `:` or a debugging `=` outside brackets.
    let expr_end = loop {
        let Some(&c) = body.get(*i) else {
            return Err(expecting());
        };
        match c {
            '\\' => return Err("f-string expression part cannot include a backslash".to_string()),
            '\n' if brackets.is_empty() => {}
            '#' => return Err("f-string expression part cannot include '#'".to_string()),
            '\'' | '"' => {
                *i += 1;
                while body.get(*i).is_some_and(|q| *q != c) {
                    *i += 1;
                }
                if body.get(*i).is_none() {
                    return Err("f-string: unterminated string".to_string());
                }
            }
            '(' | '[' | '{' => brackets.push(c),
            ')' | ']' | '}' => match brackets.pop() {
                Some(open) if closing(open) == c => {}
                Some(open) => {
                    return Err(format!(
                        "f-string: closing parenthesis '{c}' does not match opening parenthesis '{open}'"
                    ))
                }
                None if c == '}' => break *i,
                None => return Err(format!("f-string: unmatched '{c}'")),
            },
            '!' | ':' | '=' if !brackets.is_empty() => {}
            '!' if body.get(*i + 1) == Some(&'=') => *i += 1,
            '!' | ':' => break *i,
            '=' if body.get(*i + 1) == Some(&'=') => *i += 1,
            '=' if *i > expr_start
                && matches!(body.get(*i - 1), Some('<' | '>' | '=' | '!')) => {}
            '=' => break *i,
            _ => {}
        }
        *i += 1;
    };
    let expr: String = body
        .get(expr_start..expr_end)
        .unwrap_or_default()
        .iter()
        .collect();
    if expr.trim().is_empty() {
        return Err("f-string: empty expression not allowed".to_string());
    }
    let mut debug_text = None;
    if body.get(*i) == Some(&'=') {
        *i += 1;
        while body.get(*i).is_some_and(|c| c.is_whitespace()) {
            *i += 1;
        }
        debug_text = Some(
            body.get(expr_start..*i)
                .unwrap_or_default()
                .iter()
                .collect(),
        );
    }
    let mut conversion = None;
    if body.get(*i) == Some(&'!') {
        let c = body.get(*i + 1).copied();
        match c {
            Some(c @ ('r' | 's' | 'a')) if matches!(body.get(*i + 2), Some(':' | '}')) => {
                conversion = Some(c);
                *i += 2;
            }
            Some(c) if c != '}' && c != ':' && body.get(*i + 2).is_none() => {
                return Err(expecting())
            }
            _ => {
                return Err(
                    "f-string: invalid conversion character: expected 's', 'r', or 'a'".to_string(),
                )
            }
        }
    }
    let mut spec = String::new();
    if body.get(*i) == Some(&':') {
        *i += 1;
        let spec_start = *i;
        loop {
            match body.get(*i) {
                None => return Err(expecting()),
                Some('{') => return Err(
                    "f-string: nested replacement fields in format specs are not supported here"
                        .to_string(),
                ),
                Some('}') => break,
                Some(_) => *i += 1,
            }
        }
        spec = decode(body.get(spec_start..*i).unwrap_or_default(), raw)?;
    }
    if body.get(*i) != Some(&'}') {
        return Err(expecting());
    }
    *i += 1;
    Ok(FField {
        expr,
        pos: position(body, start, expr_start),
        conversion,
        spec,
        debug_text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(body: &str) -> Result<Vec<FPiece>, String> {
        let chars: Vec<char> = body.chars().collect();
        scan_fstring(&chars, false, Pos { line: 1, col: 3 })
    }

    fn field(
        expr: &str,
        col: usize,
        conversion: Option<char>,
        spec: &str,
        debug: Option<&str>,
    ) -> FPiece {
        FPiece::Field(FField {
            expr: expr.to_string(),
            pos: Pos { line: 1, col },
            conversion,
            spec: spec.to_string(),
            debug_text: debug.map(str::to_string),
        })
    }

    fn text(s: &str) -> FPiece {
        FPiece::Text(s.to_string())
    }

    #[test]
    fn pieces() {
        assert_eq!(
            scan("a{{b}}\\n{x}"),
            Ok(vec![text("a{b}\n"), field("x", 12, None, "", None)])
        );
        assert_eq!(
            scan("{x!r:>10} {y:.2f}"),
            Ok(vec![
                field("x", 4, Some('r'), ">10", None),
                text(" "),
                field("y", 14, None, ".2f", None)
            ])
        );
        assert_eq!(scan("{x=}"), Ok(vec![field("x", 4, None, "", Some("x="))]));
        assert_eq!(
            scan("{ x = !r}"),
            Ok(vec![field(" x ", 4, Some('r'), "", Some(" x = "))])
        );
        assert_eq!(
            scan("{d['a']}{a[1:2]}{x == y}{x != y}{x <= y}{f(a=1)}"),
            Ok(vec![
                field("d['a']", 4, None, "", None),
                field("a[1:2]", 12, None, "", None),
                field("x == y", 20, None, "", None),
                field("x != y", 28, None, "", None),
                field("x <= y", 36, None, "", None),
                field("f(a=1)", 44, None, "", None),
            ])
        );
        assert_eq!(scan("{ {'a': 1}['a'] }").map(|p| p.len()), Ok(1));
        assert_eq!(scan(""), Ok(vec![]));
    }

    #[test]
    fn errors() {
        let cases = [
            ("{x", "f-string: expecting '}'"),
            ("{x!r", "f-string: expecting '}'"),
            ("{x:>3", "f-string: expecting '}'"),
            (
                "{x!r x}",
                "f-string: invalid conversion character: expected 's', 'r', or 'a'",
            ),
            (
                "{x!z}",
                "f-string: invalid conversion character: expected 's', 'r', or 'a'",
            ),
            (
                "{x!}",
                "f-string: invalid conversion character: expected 's', 'r', or 'a'",
            ),
            ("{}", "f-string: empty expression not allowed"),
            ("{  }", "f-string: empty expression not allowed"),
            ("{!r}", "f-string: empty expression not allowed"),
            ("a}b", "f-string: single '}' is not allowed"),
            (
                "{x:>{w}}",
                "f-string: nested replacement fields in format specs are not supported here",
            ),
            (
                "{a\\n}",
                "f-string expression part cannot include a backslash",
            ),
            ("{a#}", "f-string expression part cannot include '#'"),
            ("{a)}", "f-string: unmatched ')'"),
            (
                "{(a]}",
                "f-string: closing parenthesis ']' does not match opening parenthesis '('",
            ),
            (
                "{(a}",
                "f-string: closing parenthesis '}' does not match opening parenthesis '('",
            ),
            ("{'a}", "f-string: unterminated string"),
        ];
        for (body, message) in cases {
            assert_eq!(scan(body), Err(message.to_string()), "{body}");
        }
    }
}
