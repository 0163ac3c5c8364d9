//! Python's format-spec mini-language (`format(x, ".2f")`, `f"{x:>8,}"`) for ints, floats,
//! bools and strings, with the exact float digits of [`crate::core::print::pyfmt`].

use crate::core::print::pyfmt;

/// A value that a format spec applies to.
#[derive(Clone, Copy, Debug)]
pub enum Formattable<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'a str),
}

/// A parsed spec: `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
#[derive(Debug, Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

fn parse(spec: &str) -> Result<Spec, String> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if let Some(&c) = chars.get(i) {
        if matches!(c, '+' | '-' | ' ') {
            s.sign = Some(c);
            i += 1;
        }
    }
    if chars.get(i) == Some(&'z') {
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        s.alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.zero = true;
        i += 1;
    }
    let start = i;
    while chars.get(i).is_some_and(char::is_ascii_digit) {
        i += 1;
    }
    if i > start {
        let digits: String = chars[start..i].iter().collect();
        s.width = digits
            .parse()
            .map_err(|_| "Too many decimal digits in format string".to_string())?;
    }
    if let Some(&c) = chars.get(i) {
        if c == ',' || c == '_' {
            s.grouping = Some(c);
            i += 1;
        }
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        let start = i;
        while chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return Err("Format specifier missing precision".into());
        }
        let digits: String = chars[start..i].iter().collect();
        s.precision = Some(
            digits
                .parse()
                .map_err(|_| "Too many decimal digits in format string".to_string())?,
        );
    }
    if let Some(&c) = chars.get(i) {
        s.kind = Some(c);
        i += 1;
    }
    if i != chars.len() {
        return Err("Invalid format specifier".into());
    }
    if s.width > 100_000 {
        return Err("Too many decimal digits in format string".into());
    }
    Ok(s)
}

/// `format(value, spec)` as Python computes it; `Err` holds a `ValueError` message.
pub fn format_with_spec(value: Formattable, spec: &str) -> Result<String, String> {
    let s = parse(spec)?;
    let type_name = match value {
        Formattable::Int(_) => "int",
        Formattable::Float(_) => "float",
        Formattable::Bool(_) => "bool",
        Formattable::Str(_) => "str",
    };
    let unknown = |c: char| format!("Unknown format code '{c}' for object of type '{type_name}'");
    let (negative, body) = match value {
        Formattable::Str(text) => {
            if let Some(c) = s.kind.filter(|&c| c != 's') {
                return Err(unknown(c));
            }
            if s.sign.is_some() {
                return Err("Sign not allowed in string format specifier".into());
            }
            let text: String = match s.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text.to_string(),
            };
            return Ok(pad(&s, "", &text, '<'));
        }
        Formattable::Bool(b) if s.kind.is_none() && s.width == 0 && s.sign.is_none() => {
            return Ok(if b { "True" } else { "False" }.to_string());
        }
        Formattable::Int(_) | Formattable::Bool(_) => {
            let i = match value {
                Formattable::Int(i) => i,
                Formattable::Bool(b) => i64::from(b),
                _ => 0,
            };
            match s.kind {
                None | Some('d') | Some('n') => {
                    if s.precision.is_some() {
                        return Err("Precision not allowed in integer format specifier".into());
                    }
                    (i < 0, group(&i.unsigned_abs().to_string(), s.grouping))
                }
                Some('b') => (i < 0, radix(i.unsigned_abs(), 2, s.alternate, "0b")),
                Some('o') => (i < 0, radix(i.unsigned_abs(), 8, s.alternate, "0o")),
                Some('x') => (i < 0, radix(i.unsigned_abs(), 16, s.alternate, "0x")),
                Some('X') => (
                    i < 0,
                    radix(i.unsigned_abs(), 16, s.alternate, "0X").to_ascii_uppercase(),
                ),
                Some('c') => (false, char::from_u32(i as u32).unwrap_or('?').to_string()),
                Some(c @ ('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%')) => float_body(i as f64, &s, c),
                Some(c) => return Err(unknown(c)),
            }
        }
        Formattable::Float(x) => match s.kind {
            None => {
                let text = match s.precision {
                    // Python: like 'g' but always with at least one digit after the point.
                    Some(p) => {
                        let g = pyfmt::general(x.abs(), p.max(1));
                        if g.contains(['.', 'e', 'n', 'i']) {
                            g
                        } else {
                            format!("{g}.0")
                        }
                    }
                    None => pyfmt::repr(x.abs()),
                };
                (
                    x.is_sign_negative() && !x.is_nan(),
                    group_float(&text, s.grouping),
                )
            }
            Some(c @ ('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' | 'n')) => {
                float_body(x, &s, if c == 'n' { 'g' } else { c })
            }
            Some(c) => return Err(unknown(c)),
        },
    };
    let sign = match (negative, s.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    Ok(pad(&s, sign, &body, '>'))
}

/// The digits of a float formatted with type `c` (without its sign).
fn float_body(x: f64, s: &Spec, c: char) -> (bool, String) {
    let negative = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let p = s.precision.unwrap_or(6);
    let text = match c {
        'e' => pyfmt::sci(a, p),
        'E' => pyfmt::sci(a, p).to_ascii_uppercase(),
        'f' => pyfmt::fixed(a, p),
        'F' => pyfmt::fixed(a, p).to_ascii_uppercase(),
        'g' => pyfmt::general(a, p.max(1)),
        'G' => pyfmt::general(a, p.max(1)).to_ascii_uppercase(),
        _ => format!("{}%", pyfmt::fixed(a * 100.0, p)),
    };
    let text = if s.alternate && !text.contains('.') && a.is_finite() {
        match text.find(['e', 'E', '%']) {
            Some(at) => format!("{}.{}", &text[..at], &text[at..]),
            None => format!("{text}."),
        }
    } else {
        text
    };
    (negative, group_float(&text, s.grouping))
}

fn radix(mut n: u64, base: u64, alternate: bool, prefix: &str) -> String {
    let mut digits = Vec::new();
    loop {
        let d = (n % base) as u8;
        digits.push(if d < 10 { b'0' + d } else { b'a' + d - 10 } as char);
        n /= base;
        if n == 0 {
            break;
        }
    }
    let body: String = digits.into_iter().rev().collect();
    if alternate {
        format!("{prefix}{body}")
    } else {
        body
    }
}

/// Inserts thousands separators into a run of digits.
fn group(digits: &str, sep: Option<char>) -> String {
    let Some(sep) = sep else {
        return digits.to_string();
    };
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// Groups the integer part of a formatted float.
fn group_float(text: &str, sep: Option<char>) -> String {
    if sep.is_none() {
        return text.to_string();
    }
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    format!("{}{}", group(&text[..end], sep), &text[end..])
}

/// Pads `sign + body` to the spec's width with its fill and alignment.
fn pad(s: &Spec, sign: &str, body: &str, default_align: char) -> String {
    let len = sign.chars().count() + body.chars().count();
    if len >= s.width {
        return format!("{sign}{body}");
    }
    let (fill, align) = match (s.fill, s.align) {
        (f, Some(a)) => (f.unwrap_or(' '), a),
        (None, None) if s.zero => ('0', '='),
        _ => (' ', default_align),
    };
    let n = s.width - len;
    let run = |k: usize| fill.to_string().repeat(k);
    match align {
        '<' => format!("{sign}{body}{}", run(n)),
        '^' => format!("{}{sign}{body}{}", run(n / 2), run(n - n / 2)),
        '=' => format!("{sign}{}{body}", run(n)),
        _ => format!("{}{sign}{body}", run(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Formattable, spec: &str) -> String {
        format_with_spec(v, spec).unwrap()
    }

    #[test]
    fn matches_python() {
        assert_eq!(f(Formattable::Float(1.23456), ".2f"), "1.23");
        assert_eq!(f(Formattable::Float(-2.5), "8.3f"), "  -2.500");
        assert_eq!(f(Formattable::Float(1234567.891), ",.1f"), "1,234,567.9");
        assert_eq!(f(Formattable::Float(0.25), ".1%"), "25.0%");
        assert_eq!(f(Formattable::Float(12345.678), ".3e"), "1.235e+04");
        assert_eq!(f(Formattable::Float(1.0), ""), "1.0");
        assert_eq!(f(Formattable::Float(2.0), ".3"), "2.0");
        assert_eq!(f(Formattable::Float(0.000123), ".2g"), "0.00012");
        assert_eq!(f(Formattable::Int(42), "5d"), "   42");
        assert_eq!(f(Formattable::Int(42), "<5"), "42   ");
        assert_eq!(f(Formattable::Int(42), "^6"), "  42  ");
        assert_eq!(f(Formattable::Int(-42), "05"), "-0042");
        assert_eq!(f(Formattable::Int(1234567), ","), "1,234,567");
        assert_eq!(f(Formattable::Int(255), "#x"), "0xff");
        assert_eq!(f(Formattable::Int(5), "08b"), "00000101");
        assert_eq!(f(Formattable::Int(3), ".2f"), "3.00");
        assert_eq!(f(Formattable::Str("ab"), ">4"), "  ab");
        assert_eq!(f(Formattable::Str("abc"), "*^7"), "**abc**");
        assert_eq!(f(Formattable::Bool(true), ""), "True");
        assert_eq!(f(Formattable::Bool(true), "d"), "1");
    }

    #[test]
    fn errors_are_pythons() {
        assert_eq!(
            format_with_spec(Formattable::Str("x"), "d").unwrap_err(),
            "Unknown format code 'd' for object of type 'str'"
        );
        assert_eq!(
            format_with_spec(Formattable::Int(1), ".2d").unwrap_err(),
            "Precision not allowed in integer format specifier"
        );
        assert!(format_with_spec(Formattable::Int(1), "9999999999999999999").is_err());
    }
}
