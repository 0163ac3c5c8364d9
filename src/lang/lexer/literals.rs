//! Number and string literals.

use crate::lang::ast::Pos;
use crate::lang::lexer::fstring::scan_fstring;
use crate::lang::lexer::{is_ident_char, TokenKind};

/// Reads `[0-9]+ ('_' [0-9]+)*` from `chars[*i]`; false if it is malformed.
fn lex_digits(chars: &[char], i: &mut usize) -> bool {
    loop {
        if !chars.get(*i).is_some_and(char::is_ascii_digit) {
            return false;
        }
        while chars.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        if chars.get(*i) != Some(&'_') {
            return true;
        }
        *i += 1;
    }
}

/// Reads a number literal starting at `chars[*i]`.
pub(super) fn lex_number(chars: &[char], i: &mut usize) -> Result<TokenKind, String> {
    let start = *i;
    let radix = match (
        chars.get(start),
        chars.get(start + 1).map(char::to_ascii_lowercase),
    ) {
        (Some('0'), Some('x')) => Some((16, "hexadecimal")),
        (Some('0'), Some('o')) => Some((8, "octal")),
        (Some('0'), Some('b')) => Some((2, "binary")),
        _ => None,
    };
    if let Some((radix, name)) = radix {
        *i += 2;
        let body_start = *i;
        while chars.get(*i).is_some_and(|c| is_ident_char(*c)) {
            *i += 1;
        }
        return lex_radix_int(chars.get(body_start..*i).unwrap_or_default(), radix, name);
    }

    let mut well_formed = true;
    let mut is_float = false;
    if chars.get(*i) == Some(&'.') {
        *i += 1;
        is_float = true;
        well_formed &= lex_digits(chars, i);
    } else {
        well_formed &= lex_digits(chars, i);
        if well_formed && chars.get(*i) == Some(&'.') {
            *i += 1;
            is_float = true;
            if chars.get(*i).is_some_and(char::is_ascii_digit) {
                well_formed &= lex_digits(chars, i);
            }
        }
    }
    if well_formed && matches!(chars.get(*i), Some('e' | 'E')) {
        *i += 1;
        is_float = true;
        if matches!(chars.get(*i), Some('+' | '-')) {
            *i += 1;
        }
        well_formed &= lex_digits(chars, i);
    }
    let text: String = chars
        .get(start..*i)
        .unwrap_or_default()
        .iter()
        .filter(|c| **c != '_')
        .collect();
    let complex = well_formed && matches!(chars.get(*i), Some('j' | 'J'));
    if complex {
        *i += 1;
    }
    if chars.get(*i).is_some_and(|c| is_ident_char(*c)) {
        well_formed = false;
        while chars.get(*i).is_some_and(|c| is_ident_char(*c)) {
            *i += 1;
        }
    }
    if !well_formed && complex {
        Err("invalid imaginary literal".to_string())
    } else if !well_formed {
        Err("invalid decimal literal".to_string())
    } else if complex {
        // An imaginary literal (`2j`, `1.5e3J`): its digits are read as a float.
        text.parse()
            .map(TokenKind::Imag)
            .map_err(|_| "invalid imaginary literal".to_string())
    } else if is_float {
        text.parse()
            .map(TokenKind::Float)
            .map_err(|_| "invalid decimal literal".to_string())
    } else if text.starts_with('0') && text.chars().any(|c| c != '0') {
        Err(
            "leading zeros in decimal integer literals are not permitted; \
             use an 0o prefix for octal integers"
                .to_string(),
        )
    } else {
        text.parse()
            .map(TokenKind::Int)
            .map_err(|_| "integer literal too large".to_string())
    }
}

/// Converts the digits after `0x`, `0o` or `0b` (underscores allowed between digits).
fn lex_radix_int(body: &[char], radix: u32, name: &str) -> Result<TokenKind, String> {
    let invalid = || format!("invalid {name} literal");
    let mut digits = String::new();
    for (k, &c) in body.iter().enumerate() {
        if c == '_' {
            if !body.get(k + 1).is_some_and(|d| d.is_digit(radix)) {
                return Err(invalid());
            }
        } else if c.is_digit(radix) {
            digits.push(c);
        } else if c.is_ascii_digit() {
            return Err(format!("invalid digit '{c}' in {name} literal"));
        } else {
            return Err(invalid());
        }
    }
    if digits.is_empty() {
        return Err(invalid());
    }
    i64::from_str_radix(&digits, radix)
        .map(TokenKind::Int)
        .map_err(|_| "integer literal too large".to_string())
}

/// Whether `word` is a Python string prefix.
pub(super) fn is_string_prefix(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "f" | "br" | "rb" | "fr" | "rf"
    )
}

/// Reads a string literal whose quote is `chars[*i]`, after its prefix `prefix` (possibly empty;
/// `r`, `u` and `f` are supported, triple quotes too when the string ends on its line). `pos`
/// is where the literal (its prefix) starts.
pub(super) fn lex_prefixed_string(
    prefix: &str,
    chars: &[char],
    i: &mut usize,
    pos: Pos,
) -> Result<TokenKind, String> {
    let prefix = prefix.to_ascii_lowercase();
    let (body_start, body_end) = find_string_end(chars, i, pos.line)?;
    let body = chars.get(body_start..body_end).unwrap_or_default();
    let body_pos = Pos {
        line: pos.line,
        col: body_start + 1,
    };
    finish_string(&prefix, body, body_pos)
}
/// The index of the triple `quote` that closes a string, searching `chars` from `from`.
pub(super) fn triple_end(chars: &[char], from: usize, quote: char) -> Option<usize> {
    let mut k = from;
    while let Some(&c) = chars.get(k) {
        if c == '\\' {
            k += 2;
            continue;
        }
        if c == quote && chars.get(k + 1) == Some(&quote) && chars.get(k + 2) == Some(&quote) {
            return Some(k);
        }
        k += 1;
    }
    None
}

/// The token of a string literal with prefix `prefix` (lowercase) and body `body`, which
/// starts at `body_pos`.
pub(super) fn finish_string(
    prefix: &str,
    body: &[char],
    body_pos: Pos,
) -> Result<TokenKind, String> {
    let raw = prefix.contains('r');
    if prefix.contains('b') {
        Err("bytes literals are not supported here".to_string())
    } else if prefix.contains('f') {
        scan_fstring(body, raw, body_pos).map(TokenKind::FString)
    } else {
        decode(body, raw).map(TokenKind::Str)
    }
}

/// Finds the end of the string whose opening quote is `chars[*i]` and moves `*i` past its
/// closing quote. Returns the range of its body (between the quotes) in `chars`.
fn find_string_end(chars: &[char], i: &mut usize, line: usize) -> Result<(usize, usize), String> {
    let quote = chars.get(*i).copied();
    let triple = chars.get(*i + 1) == quote.as_ref() && chars.get(*i + 2) == quote.as_ref();
    let quote_len = if triple { 3 } else { 1 };
    *i += quote_len;
    let body_start = *i;
    loop {
        let Some(&c) = chars.get(*i) else {
            *i = chars.len();
            return Err(if triple {
                format!("unterminated triple-quoted string literal (detected at line {line})")
            } else {
                format!("unterminated string literal (detected at line {line})")
            });
        };
        if c == '\\' {
            *i += 2;
            continue;
        }
        if Some(c) == quote
            && (!triple
                || (chars.get(*i + 1) == quote.as_ref() && chars.get(*i + 2) == quote.as_ref()))
        {
            let body_end = *i;
            *i += quote_len;
            return Ok((body_start, body_end));
        }
        *i += 1;
    }
}

/// Decodes the escapes of a string's body unless `raw`. Python keeps unknown escapes (and a
/// lone trailing backslash) as they are.
pub(super) fn decode(body: &[char], raw: bool) -> Result<String, String> {
    let mut value = String::new();
    let mut i = 0;
    while let Some(&c) = body.get(i) {
        i += 1;
        if c != '\\' {
            value.push(c);
            continue;
        }
        let Some(&e) = body.get(i) else {
            value.push('\\');
            break;
        };
        i += 1;
        if raw {
            value.push('\\');
            value.push(e);
            continue;
        }
        match decode_escape(e, body, &mut i)? {
            Some(decoded) => value.push(decoded),
            None if e == '\n' => {}
            None => {
                value.push('\\');
                value.push(e);
            }
        }
    }
    Ok(value)
}

/// Decodes the escape `\e` whose arguments start at `chars[*i]`. `Ok(None)` for an unknown
/// escape, which Python keeps as it is.
fn decode_escape(e: char, chars: &[char], i: &mut usize) -> Result<Option<char>, String> {
    let hex = |i: &mut usize, count: usize, name: &str| {
        let digits: String = chars
            .get(*i..*i + count)
            .unwrap_or_default()
            .iter()
            .collect();
        match u32::from_str_radix(&digits, 16) {
            Ok(code) if digits.chars().all(|c| c.is_ascii_hexdigit()) => {
                *i += count;
                char::from_u32(code).ok_or_else(|| {
                    "(unicode error) 'unicodeescape' codec can't decode bytes: \
                     illegal Unicode character"
                        .to_string()
                })
            }
            _ => Err(format!(
                "(unicode error) 'unicodeescape' codec can't decode bytes: truncated {name} escape"
            )),
        }
    };
    let decoded = match e {
        '\\' | '\'' | '"' => e,
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'a' => '\x07',
        'b' => '\x08',
        'f' => '\x0c',
        'v' => '\x0b',
        '0'..='7' => {
            let mut code = e.to_digit(8).unwrap_or(0);
            for _ in 0..2 {
                match chars.get(*i).and_then(|c| c.to_digit(8)) {
                    Some(d) => {
                        code = code * 8 + d;
                        *i += 1;
                    }
                    None => break,
                }
            }
            char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
        }
        'x' => hex(i, 2, "\\xXX")?,
        'u' => hex(i, 4, "\\uXXXX")?,
        'U' => hex(i, 8, "\\UXXXXXXXX")?,
        'N' => return Err("\\N{...} escapes are not supported here".to_string()),
        _ => return Ok(None),
    };
    Ok(Some(decoded))
}
