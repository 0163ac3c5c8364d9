//! Tokenizer for the notebook subset of Python.
//!
//! The script is split into logical lines: a statement continues over several physical lines
//! while a bracket is open or after a trailing backslash, as in Python. Each logical line is
//! tokenized on its own, so an error on one line never hides the lines around it.

use std::ops::Range;

use crate::lang::ast::Pos;
use crate::lang::parser::SyntaxError;

mod fstring;
mod literals;

pub use fstring::{FField, FPiece};
use literals::{finish_string, is_string_prefix, lex_number, lex_prefixed_string, triple_end};

/// The deepest bracket nesting accepted (CPython's tokenizer has the same limit).
pub const MAX_BRACKET_DEPTH: usize = 200;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// An identifier or a keyword.
    Name(String),
    /// An integer literal.
    Int(i64),
    /// A floating-point literal.
    Float(f64),
    /// An imaginary literal `2j`: its imaginary part.
    Imag(f64),
    /// A string literal, with its escapes decoded.
    Str(String),
    /// An f-string literal: its text and its replacement fields, not yet parsed.
    FString(Vec<FPiece>),
    /// An operator or delimiter, spelled as in the source: `"+"`, `"**="`, `"("`, `"..."`.
    Op(&'static str),
    /// The end of the logical line.
    End,
}

/// A token, where it starts, and the bytes it covers in [`LogicalLine::text`].
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// 1-based line and column (in characters) of its first character.
    pub pos: Pos,
    /// Byte range of the token in [`LogicalLine::text`].
    pub span: Range<usize>,
}

/// One logical line of the script, tokenized.
#[derive(Clone, Debug, PartialEq)]
pub struct LogicalLine {
    /// 1-based line where the logical line starts.
    pub line: usize,
    /// Its physical lines, each without its comment and trailing whitespace, joined with `"\n"`.
    pub text: String,
    /// Its tokens; the last one is always [`TokenKind::End`].
    pub tokens: Vec<Token>,
}

/// Operators and delimiters, longest first so that the first match is the longest one.
const OPERATORS: [&str; 47] = [
    "**=", "//=", ">>=", "<<=", "...", "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=",
    "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=", "+", "-", "*", "/", "%", "@", "~", "&",
    "|", "^", "<", ">", "=", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".",
];

/// Splits `src` into logical lines and tokenizes them.
///
/// Blank and comment-only lines produce nothing. A line whose tokenization fails yields
/// `Err((line where the statement starts, error))`. With `allow_indent` false, a statement that
/// starts with whitespace is an "unexpected indent" error.
pub fn logical_lines(
    src: &str,
    allow_indent: bool,
) -> Vec<Result<LogicalLine, (usize, SyntaxError)>> {
    let lines = physical_lines(src);
    let mut out = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let (result, next) = scan_logical_line(&lines, start, allow_indent);
        if let Some(result) = result {
            out.push(result.map_err(|e| (start + 1, e)));
        }
        start = next;
    }
    out
}

/// The physical lines of `src` as characters (`\r\n` endings accepted).
pub fn physical_lines(src: &str) -> Vec<Vec<char>> {
    src.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line).chars().collect())
        .collect()
}

/// Tokenizes the logical line that starts at physical line `start` (0-based). Returns it (None
/// for a blank line) and the index of the physical line where the next one starts.
pub fn scan_logical_line(
    lines: &[Vec<char>],
    start: usize,
    allow_indent: bool,
) -> (Option<Result<LogicalLine, SyntaxError>>, usize) {
    let first = lines.get(start).map_or(&[][..], Vec::as_slice);
    let indent = first.iter().take_while(|c| is_space(**c)).count();
    if matches!(first.get(indent), None | Some('#')) {
        return (None, start + 1);
    }
    let mut lexer = LineLexer::default();
    if indent > 0 && !allow_indent {
        lexer.fail(
            Pos {
                line: start + 1,
                col: 1,
            },
            "unexpected indent",
        );
    }
    let mut index = start;
    loop {
        let chars = lines.get(index).map_or(&[][..], Vec::as_slice);
        let end = lexer.lex_physical_line(chars, index + 1);
        let open =
            !lexer.brackets.is_empty() || end == LineEnd::Continued || lexer.open_string.is_some();
        if end == LineEnd::Fatal || !open {
            return (Some(lexer.finish(start + 1)), index + 1);
        }
        if index + 1 >= lines.len() {
            return lexer.unfinished_at_eof(lines, start);
        }
        index += 1;
    }
}

/// Tokenizes the text of an f-string's replacement field, which starts at `pos`, as a logical
/// line of its own.
pub fn tokenize_fragment(text: &str, pos: Pos) -> Result<LogicalLine, SyntaxError> {
    let mut lexer = LineLexer::default();
    for (k, line) in text.split('\n').enumerate() {
        let mut chars = if k == 0 {
            vec![' '; pos.col.saturating_sub(1)]
        } else {
            Vec::new()
        };
        chars.extend(line.chars());
        if lexer.lex_physical_line(&chars, pos.line + k) == LineEnd::Continued {
            lexer.fail(
                lexer.end,
                "f-string expression part cannot include a backslash",
            );
        }
    }
    if lexer.open_string.is_some() {
        lexer.fail(pos, "f-string: unterminated string");
    }
    if let Some((bracket, at)) = lexer.brackets.last().copied() {
        lexer.fail(at, format!("'{bracket}' was never closed"));
    }
    lexer.finish(pos.line)
}

/// Whether `c` is whitespace between tokens.
pub(super) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c' | '\r')
}

/// Whether `c` may start an identifier.
fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Whether `c` may continue an identifier.
pub(super) fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// How a physical line ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineEnd {
    /// Normally: the logical line ends here unless a bracket is open.
    Complete,
    /// With a continuation backslash.
    Continued,
    /// With an error that leaves the brackets unknown: the logical line ends here.
    Fatal,
}

/// The state of the logical line being tokenized.
#[derive(Default)]
struct LineLexer {
    tokens: Vec<Token>,
    /// Open brackets and where they are.
    brackets: Vec<(char, Pos)>,
    /// The first error met; tokenizing goes on after it only to find where the line ends.
    error: Option<SyntaxError>,
    text: String,
    physical_lines: usize,
    /// The position just after the last physical line read.
    end: Pos,
    /// A triple-quoted string that continues on the next physical line.
    open_string: Option<OpenString>,
}

/// A triple-quoted string not yet closed at the end of a physical line.
struct OpenString {
    /// Its prefix (`f`, `r`, ...), lowercase.
    prefix: String,
    quote: char,
    /// Where the literal starts, and the byte in the logical line's text.
    pos: Pos,
    start_byte: usize,
    /// Where its body starts, and the body read so far.
    body_pos: Pos,
    body: Vec<char>,
}

impl LineLexer {
    /// Records an error unless an earlier one is already recorded.
    fn fail(&mut self, pos: Pos, message: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(SyntaxError::new(pos, message));
        }
    }

    /// The logical line, or its first error.
    fn finish(mut self, line: usize) -> Result<LogicalLine, SyntaxError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let at = self.text.len();
        self.tokens.push(Token {
            kind: TokenKind::End,
            pos: self.end,
            span: at..at,
        });
        Ok(LogicalLine {
            line,
            text: self.text,
            tokens: self.tokens,
        })
    }

    /// The input ended inside a bracket or after a continuation backslash. The statement that
    /// started at `start` is an error; the script resumes at the next line that is not indented
    /// (indented lines are taken as the broken statement's continuation).
    fn unfinished_at_eof(
        self,
        lines: &[Vec<char>],
        start: usize,
    ) -> (Option<Result<LogicalLine, SyntaxError>>, usize) {
        let resume = (start + 1..lines.len())
            .find(|&k| {
                lines
                    .get(k)
                    .and_then(|l| l.first())
                    .is_some_and(|c| !is_space(*c))
            })
            .unwrap_or(lines.len());
        // The innermost bracket left open by the lines that are not parsed again.
        let unclosed = self
            .brackets
            .iter()
            .rev()
            .find(|(_, pos)| pos.line <= resume);
        let unfinished = match (&self.open_string, unclosed) {
            (Some(open), _) => SyntaxError::new(
                open.pos,
                format!(
                    "unterminated triple-quoted string literal (detected at line {})",
                    self.end.line
                ),
            ),
            (None, Some((bracket, pos))) => {
                SyntaxError::new(*pos, format!("'{bracket}' was never closed"))
            }
            (None, None) => SyntaxError::new(self.end, "unexpected EOF while parsing"),
        };
        // An error on a line that is parsed again after `resume` is reported there instead.
        let error = match self.error {
            Some(error) if error.pos.line <= resume => error,
            _ => unfinished,
        };
        (Some(Err(error)), resume)
    }

    /// Tokenizes one physical line (`line` is 1-based) of the logical line.
    fn lex_physical_line(&mut self, chars: &[char], line: usize) -> LineEnd {
        if self.physical_lines > 0 {
            self.text.push('\n');
        }
        self.physical_lines += 1;
        self.end = Pos {
            line,
            col: chars.len() + 1,
        };
        let base = self.text.len();
        let mut offsets = Vec::with_capacity(chars.len() + 1);
        let mut offset = base;
        for c in chars {
            offsets.push(offset);
            offset += c.len_utf8();
        }
        offsets.push(offset);
        let byte = |i: usize| offsets.get(i).copied().unwrap_or(offset);

        let mut content_end = chars.len();
        let mut end = LineEnd::Complete;
        let mut i = 0;
        if let Some(mut open) = self.open_string.take() {
            open.body.push('\n');
            match triple_end(chars, 0, open.quote) {
                None => {
                    open.body.extend_from_slice(chars);
                    self.open_string = Some(open);
                    i = chars.len();
                }
                Some(k) => {
                    open.body
                        .extend_from_slice(chars.get(..k).unwrap_or_default());
                    i = k + 3;
                    match finish_string(&open.prefix, &open.body, open.body_pos) {
                        Ok(kind) => self.tokens.push(Token {
                            kind,
                            pos: open.pos,
                            span: open.start_byte..byte(i),
                        }),
                        Err(message) => self.fail(open.pos, message),
                    }
                }
            }
        }
        while let Some(&c) = chars.get(i) {
            let start = i;
            let pos = Pos { line, col: i + 1 };
            let kind = if is_space(c) {
                i += 1;
                continue;
            } else if c == '#' {
                content_end = i;
                break;
            } else if c == '\\' {
                i += 1;
                if i == chars.len() {
                    end = LineEnd::Continued;
                } else {
                    self.fail(
                        pos,
                        "unexpected character after line continuation character",
                    );
                }
                continue;
            } else if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
            {
                lex_number(chars, &mut i)
            } else if is_ident_start(c) {
                while chars.get(i).is_some_and(|c| is_ident_char(*c)) {
                    i += 1;
                }
                let word: String = chars.get(start..i).unwrap_or_default().iter().collect();
                if matches!(chars.get(i), Some('\'' | '"')) && is_string_prefix(&word) {
                    if self.open_triple(&word, chars, i, pos, byte(start)) {
                        break;
                    }
                    lex_prefixed_string(&word, chars, &mut i, pos)
                } else {
                    Ok(TokenKind::Name(word))
                }
            } else if c == '\'' || c == '"' {
                if self.open_triple("", chars, i, pos, byte(start)) {
                    break;
                }
                lex_prefixed_string("", chars, &mut i, pos)
            } else if let Some(op) = match_operator(chars, i) {
                i += op.len();
                if let Err(message) = self.track_bracket(op, pos) {
                    self.fail(pos, message);
                    end = LineEnd::Fatal;
                    break;
                }
                Ok(TokenKind::Op(op))
            } else {
                i += 1;
                Err(invalid_character(c))
            };
            match kind {
                Ok(kind) => self.tokens.push(Token {
                    kind,
                    pos,
                    span: byte(start)..byte(i),
                }),
                Err(message) => self.fail(pos, message),
            }
        }
        let content = chars.get(..content_end).unwrap_or_default();
        let content = content
            .iter()
            .rposition(|c| !is_space(*c))
            .map_or(&[][..], |last| content.get(..=last).unwrap_or_default());
        self.text.extend(content);
        end
    }

    /// Starts an [`OpenString`] when a triple quote at `chars[quote_at]` is not closed on its
    /// line; true if it did (the rest of the line is the string's).
    fn open_triple(
        &mut self,
        prefix: &str,
        chars: &[char],
        quote_at: usize,
        pos: Pos,
        start_byte: usize,
    ) -> bool {
        let Some(&quote) = chars.get(quote_at) else {
            return false;
        };
        let triple = (1..3).all(|k| chars.get(quote_at + k) == Some(&quote));
        if !triple || triple_end(chars, quote_at + 3, quote).is_some() {
            return false;
        }
        self.open_string = Some(OpenString {
            prefix: prefix.to_ascii_lowercase(),
            quote,
            pos,
            start_byte,
            body_pos: Pos {
                line: pos.line,
                col: quote_at + 4,
            },
            body: chars.get(quote_at + 3..).unwrap_or_default().to_vec(),
        });
        true
    }

    /// Opens or closes a bracket; an error means the brackets can no longer be trusted.
    fn track_bracket(&mut self, op: &str, pos: Pos) -> Result<(), String> {
        let Some(c) = op.chars().next().filter(|_| op.len() == 1) else {
            return Ok(());
        };
        match c {
            '(' | '[' | '{' => {
                if self.brackets.len() >= MAX_BRACKET_DEPTH {
                    return Err("too many nested parentheses".to_string());
                }
                self.brackets.push((c, pos));
            }
            ')' | ']' | '}' => match self.brackets.pop() {
                None => return Err(format!("unmatched '{c}'")),
                Some((open, open_pos)) if closing(open) != c => {
                    let mut message = format!(
                        "closing parenthesis '{c}' does not match opening parenthesis '{open}'"
                    );
                    if open_pos.line != pos.line {
                        message.push_str(&format!(" on line {}", open_pos.line));
                    }
                    return Err(message);
                }
                Some(_) => {}
            },
            _ => {}
        }
        Ok(())
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

/// The operator that starts at `chars[i]`, if any.
fn match_operator(chars: &[char], i: usize) -> Option<&'static str> {
    OPERATORS.iter().copied().find(|op| {
        op.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    })
}

/// Python's message for a character that cannot start a token.
fn invalid_character(c: char) -> String {
    if c == '\0' {
        "source code cannot contain null bytes".to_string()
    } else if c.is_ascii_graphic() {
        "invalid syntax".to_string()
    } else if c.is_control() || c.is_whitespace() {
        format!("invalid non-printable character U+{:04X}", u32::from(c))
    } else {
        format!("invalid character '{c}' (U+{:04X})", u32::from(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        match logical_lines(src, false).into_iter().next() {
            Some(Ok(line)) => line.tokens.into_iter().map(|t| t.kind).collect(),
            other => panic!("no tokens for {src:?}: {other:?}"),
        }
    }

    fn error(src: &str) -> (usize, SyntaxError) {
        let lines = logical_lines(src, false);
        match lines.into_iter().find_map(Result::err) {
            Some(e) => e,
            None => panic!("no error for {src:?}"),
        }
    }

    fn at(line: usize, col: usize) -> Pos {
        Pos { line, col }
    }

    use TokenKind::{End, Float, Int, Name, Op, Str};

    #[test]
    fn numbers() {
        assert_eq!(
            kinds("1_000 0x1F 0b101 0o17 0X_f 1.5 1. .5 1e3 2.5e-3 1_0.0_1 00 0.0"),
            vec![
                Int(1000),
                Int(31),
                Int(5),
                Int(15),
                Int(15),
                Float(1.5),
                Float(1.0),
                Float(0.5),
                Float(1000.0),
                Float(0.0025),
                Float(10.01),
                Int(0),
                Float(0.0),
                End
            ]
        );
        assert_eq!(kinds("9223372036854775807"), vec![Int(i64::MAX), End]);
        assert_eq!(
            kinds("2j 1.5J 1e3j"),
            vec![
                TokenKind::Imag(2.0),
                TokenKind::Imag(1.5),
                TokenKind::Imag(1000.0),
                End
            ]
        );
    }

    #[test]
    fn number_errors() {
        let cases = [
            ("1abc", "invalid decimal literal", 1),
            ("x = 3x", "invalid decimal literal", 5),
            ("1_", "invalid decimal literal", 1),
            ("1__0", "invalid decimal literal", 1),
            ("1e", "invalid decimal literal", 1),
            ("1.5e+x", "invalid decimal literal", 1),
            ("0x", "invalid hexadecimal literal", 1),
            ("0xfg", "invalid hexadecimal literal", 1),
            ("0b102", "invalid digit '2' in binary literal", 1),
            ("0o8", "invalid digit '8' in octal literal", 1),
            ("a = 9223372036854775808", "integer literal too large", 5),
            ("0xffffffffffffffff", "integer literal too large", 1),
            ("2ja", "invalid imaginary literal", 1),
        ];
        for (src, message, col) in cases {
            let (line, e) = error(src);
            assert_eq!(
                (line, e.message.as_str(), e.pos),
                (1, message, at(1, col)),
                "{src}"
            );
        }
        assert!(error("007")
            .1
            .message
            .starts_with("leading zeros in decimal integer literals"));
    }

    #[test]
    fn names_operators_and_strings() {
        assert_eq!(
            kinds("a.b_2 ... ** //= != é 'x#y' \"q\\n\\t\\x41\\u00e9\\101\\d\" r'\\n' u'u'"),
            vec![
                Name("a".into()),
                Op("."),
                Name("b_2".into()),
                Op("..."),
                Op("**"),
                Op("//="),
                Op("!="),
                Name("é".into()),
                Str("x#y".into()),
                Str("q\n\tAéA\\d".into()),
                Str("\\n".into()),
                Str("u".into()),
                End
            ]
        );
    }

    #[test]
    fn string_errors() {
        let (line, e) = error("x = 'abc");
        assert_eq!(line, 1);
        assert_eq!(
            e.message,
            "unterminated string literal (detected at line 1)"
        );
        assert_eq!(e.pos, at(1, 5));
        assert_eq!(
            error("\n\ns = \"a\\\"").1.message,
            "unterminated string literal (detected at line 3)"
        );
        assert_eq!(
            kinds("f'a{x}'"),
            vec![
                TokenKind::FString(vec![
                    FPiece::Text("a".into()),
                    FPiece::Field(FField {
                        expr: "x".into(),
                        pos: at(1, 5),
                        conversion: None,
                        spec: String::new(),
                        debug_text: None,
                    })
                ]),
                End
            ]
        );
        assert_eq!(
            kinds("'''a'b''' \"\"\"\"\"\""),
            vec![Str("a'b".into()), Str(String::new()), End]
        );
        assert_eq!(
            error("s = '''abc").1.message,
            "unterminated triple-quoted string literal (detected at line 1)"
        );
        assert_eq!(
            error("b'x'").1.message,
            "bytes literals are not supported here"
        );
        assert!(error("'\\x4'")
            .1
            .message
            .ends_with("truncated \\xXX escape"));
    }

    #[test]
    fn invalid_characters() {
        assert_eq!(
            error("a = $").1,
            SyntaxError::new(at(1, 5), "invalid syntax")
        );
        assert_eq!(
            error("a ? b").1,
            SyntaxError::new(at(1, 3), "invalid syntax")
        );
        assert_eq!(error("a = €").1.message, "invalid character '€' (U+20AC)");
        assert_eq!(
            error("a\x01").1.message,
            "invalid non-printable character U+0001"
        );
        assert_eq!(
            error("a \\ b").1.message,
            "unexpected character after line continuation character"
        );
    }

    #[test]
    fn brackets() {
        assert_eq!(
            error("x = a)").1,
            SyntaxError::new(at(1, 6), "unmatched ')'")
        );
        assert_eq!(
            error("x = (a]").1,
            SyntaxError::new(
                at(1, 7),
                "closing parenthesis ']' does not match opening parenthesis '('"
            )
        );
        assert_eq!(
            error("x = (a,\n  b]").1.message,
            "closing parenthesis ']' does not match opening parenthesis '(' on line 1"
        );
        assert_eq!(
            error("x = torch.arange(5").1,
            SyntaxError::new(at(1, 17), "'(' was never closed")
        );
        let deep = "(".repeat(MAX_BRACKET_DEPTH + 1);
        assert_eq!(
            error(&deep).1,
            SyntaxError::new(at(1, MAX_BRACKET_DEPTH + 1), "too many nested parentheses")
        );
    }

    #[test]
    fn logical_lines_text_and_spans() {
        let src = "x = f(1,  # one\n      'a#b')   # two\n\n# only\ny = 2 \\\n  + 3\n";
        let lines = logical_lines(src, false);
        assert_eq!(lines.len(), 2);
        let Some(Ok(first)) = lines.first() else {
            panic!("{lines:?}")
        };
        assert_eq!(
            (first.line, first.text.as_str()),
            (1, "x = f(1,\n      'a#b')")
        );
        let spans: Vec<&str> = first
            .tokens
            .iter()
            .filter_map(|t| first.text.get(t.span.clone()))
            .collect();
        assert_eq!(spans, ["x", "=", "f", "(", "1", ",", "'a#b'", ")", ""]);
        assert_eq!(first.tokens.last().map(|t| t.pos), Some(at(2, 21)));
        let Some(Ok(second)) = lines.get(1) else {
            panic!("{lines:?}")
        };
        assert_eq!((second.line, second.text.as_str()), (5, "y = 2 \\\n  + 3"));
    }

    #[test]
    fn indentation() {
        assert_eq!(
            error("  a = 1").1,
            SyntaxError::new(at(1, 1), "unexpected indent")
        );
        assert!(logical_lines("  a = 1", true).iter().all(Result::is_ok));
        assert!(logical_lines("   \n\t# c\n", false).is_empty());
    }

    #[test]
    fn recovery_after_unclosed_bracket() {
        let lines = logical_lines("x = f(1,\n   2\ny = 3\nz = [\n", false);
        let summary: Vec<Result<usize, (usize, String)>> = lines
            .into_iter()
            .map(|l| l.map(|l| l.line).map_err(|(n, e)| (n, e.message)))
            .collect();
        assert_eq!(
            summary,
            vec![
                Err((1, "'(' was never closed".to_string())),
                Ok(3),
                Err((4, "'[' was never closed".to_string()))
            ]
        );
        // An error inside a multi-line statement ends it; the next statement still parses.
        let lines = logical_lines("x = f(1abc,\n      2)\ny = 1", false);
        assert_eq!(lines.len(), 2);
        assert!(matches!(&lines[0], Err((1, e)) if e.pos == at(1, 7)));
        assert!(matches!(&lines[1], Ok(l) if l.line == 3));
        assert_eq!(
            error("a = 1 + \\").1.message,
            "unexpected EOF while parsing"
        );
    }
}
