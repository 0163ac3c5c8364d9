//! Python's float formatting, reproduced exactly: `'{:.Nf}'`, `'{:.Ne}'` (both rounding
//! half-to-even on the exact binary value, as CPython does) and `repr(float)`.

/// The exact decimal expansion of a finite `f64`'s magnitude: the value is
/// `digits × 10^(-frac)`, `digits` being ASCII decimal digits with no leading zeros
/// (`"0"` for zero).
struct ExactDecimal {
    digits: Vec<u8>,
    frac: usize,
}

/// Base of the big-number limbs used while expanding.
const LIMB: u64 = 1_000_000_000;

/// Multiplies a little-endian base-10^9 big number by `factor` (at most about 4.2e9).
fn mul_small(limbs: &mut Vec<u64>, factor: u64) {
    let mut carry = 0u64;
    for limb in limbs.iter_mut() {
        let product = *limb * factor + carry;
        *limb = product % LIMB;
        carry = product / LIMB;
    }
    while carry > 0 {
        limbs.push(carry % LIMB);
        carry /= LIMB;
    }
}

/// Multiplies by `base^count`, in chunks of `chunk` (with `base^chunk` below 2^32).
fn mul_pow(limbs: &mut Vec<u64>, base: u64, chunk: u32, mut count: u32) {
    while count > 0 {
        let step = count.min(chunk);
        mul_small(limbs, base.pow(step));
        count -= step;
    }
}

impl ExactDecimal {
    /// Expands `|x|` exactly. `x` must be finite (non-finite values give zero).
    fn new(x: f64) -> ExactDecimal {
        if !x.is_finite() || x == 0.0 {
            return ExactDecimal {
                digits: vec![b'0'],
                frac: 0,
            };
        }
        let bits = x.abs().to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1u64 << 52) - 1);
        let (mantissa, exp) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1u64 << 52), biased - 1075)
        };
        let mut limbs = vec![mantissa % LIMB, mantissa / LIMB];
        let frac = if exp >= 0 {
            mul_pow(&mut limbs, 2, 31, exp.unsigned_abs());
            0
        } else {
            // m × 2^-k = m × 5^k / 10^k
            mul_pow(&mut limbs, 5, 13, exp.unsigned_abs());
            exp.unsigned_abs() as usize
        };
        while limbs.len() > 1 && limbs.last() == Some(&0) {
            limbs.pop();
        }
        let mut text = String::new();
        for (i, limb) in limbs.iter().rev().enumerate() {
            if i == 0 {
                text.push_str(&limb.to_string());
            } else {
                text.push_str(&format!("{limb:09}"));
            }
        }
        ExactDecimal {
            digits: text.into_bytes(),
            frac,
        }
    }
}

/// Adds one to an ASCII decimal digit string; returns true when it grew a digit.
fn increment(digits: &mut Vec<u8>) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    digits.insert(0, b'1');
    true
}

/// Whether dropping `dropped` (the digits after the cut) from a number whose last kept
/// digit is `last_kept` must round up, half-to-even.
fn rounds_up(last_kept: u8, dropped: &[u8]) -> bool {
    match dropped.first() {
        None => false,
        Some(&d) if d > b'5' => true,
        Some(&d) if d < b'5' => false,
        Some(_) => {
            if dropped[1..].iter().any(|&d| d != b'0') {
                true
            } else {
                (last_kept - b'0') % 2 == 1
            }
        }
    }
}

/// The text of a non-finite value as Python's `format` writes it (`nan` never has a sign).
fn non_finite(x: f64) -> String {
    if x.is_nan() {
        "nan".to_string()
    } else if x < 0.0 {
        "-inf".to_string()
    } else {
        "inf".to_string()
    }
}

/// Python's `'{:.{prec}f}'.format(x)`.
pub fn fixed(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    let exact = ExactDecimal::new(x);
    let mut digits = exact.digits;
    if exact.frac <= prec {
        digits.extend(std::iter::repeat_n(b'0', prec - exact.frac));
    } else {
        let cut = exact.frac - prec;
        if digits.len() < cut + 1 {
            // Pad so at least one digit remains before the cut.
            let pad = cut + 1 - digits.len();
            let mut padded = vec![b'0'; pad];
            padded.extend_from_slice(&digits);
            digits = padded;
        }
        let keep = digits.len() - cut;
        let up = rounds_up(digits[keep - 1], &digits[keep..]);
        digits.truncate(keep);
        if up {
            increment(&mut digits);
        }
    }
    // Now `digits` is round(|x| × 10^prec); place the decimal point.
    if digits.len() < prec + 1 {
        let pad = prec + 1 - digits.len();
        let mut padded = vec![b'0'; pad];
        padded.extend_from_slice(&digits);
        digits = padded;
    }
    let point = digits.len() - prec;
    let mut out = String::with_capacity(digits.len() + 2);
    if x.is_sign_negative() {
        out.push('-');
    }
    out.push_str(&String::from_utf8_lossy(&digits[..point]));
    if prec > 0 {
        out.push('.');
        out.push_str(&String::from_utf8_lossy(&digits[point..]));
    }
    out
}

/// Python's exponent suffix: `e+05`, `e-12`, `e+100`.
fn exponent_suffix(exp: i64) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("e{sign}{:02}", exp.unsigned_abs())
}

/// Python's `'{:.{prec}e}'.format(x)`.
pub fn sci(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let exact = ExactDecimal::new(x);
    let mut digits = exact.digits;
    let mut exp: i64;
    if digits == b"0" {
        digits = vec![b'0'; prec + 1];
        exp = 0;
    } else {
        exp = digits.len() as i64 - 1 - exact.frac as i64;
        let keep = prec + 1;
        if digits.len() <= keep {
            digits.resize(keep, b'0');
        } else {
            let up = rounds_up(digits[keep - 1], &digits[keep..]);
            digits.truncate(keep);
            if up && increment(&mut digits) {
                digits.truncate(keep);
                exp += 1;
            }
        }
    }
    let mut out = String::from(sign);
    out.push(char::from(digits[0]));
    if prec > 0 {
        out.push('.');
        out.push_str(&String::from_utf8_lossy(&digits[1..]));
    }
    out.push_str(&exponent_suffix(exp));
    out
}

/// C's `printf("%.{prec}g", x)` (what a C++ `ostream` writes for a double by default, with
/// `prec` 6): scientific when the exponent is below -4 or at least `prec`, fixed otherwise,
/// trailing zeros removed.
pub fn general(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    let prec = prec.max(1);
    let as_sci = sci(x, prec - 1);
    let exp: i64 = as_sci
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let strip = |t: &str| -> String {
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t.to_string()
        }
    };
    if exp < -4 || exp >= prec as i64 {
        let (mantissa, e) = as_sci.split_once('e').unwrap_or((as_sci.as_str(), "+00"));
        format!("{}e{e}", strip(mantissa))
    } else {
        let decimals = usize::try_from(prec as i64 - 1 - exp).unwrap_or(0);
        strip(&fixed(x, decimals))
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed notation when the
/// decimal exponent is in `-4..16`, otherwise in scientific notation.
pub fn repr(x: f64) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    // Rust's `{:e}` gives the shortest round-trip digits, like CPython's repr.
    let text = format!("{:e}", x.abs());
    let (mantissa, exp_text) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let mut exp: i64 = exp_text.parse().unwrap_or(0);
    let mut digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    // Rust breaks an exact tie between two shortest candidates upwards; CPython takes the
    // correctly rounded (half-to-even) one. Prefer that one whenever it round-trips too.
    let rounded = sci(x.abs(), digits.len().saturating_sub(1));
    if rounded.parse::<f64>() == Ok(x.abs()) {
        if let Some((m, e)) = rounded.split_once('e') {
            digits = m.chars().filter(|c| c.is_ascii_digit()).collect();
            exp = e.parse().unwrap_or(exp);
        }
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if !(-4..16).contains(&exp) {
        let mut out = String::from(sign);
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push_str(&exponent_suffix(exp));
        return out;
    }
    // Position of the decimal point after the first `decpt` digits.
    let decpt = exp + 1;
    let body = if decpt <= 0 {
        format!("0.{}{}", "0".repeat(decpt.unsigned_abs() as usize), digits)
    } else {
        let decpt = decpt as usize;
        if decpt < digits.len() {
            format!("{}.{}", &digits[..decpt], &digits[decpt..])
        } else {
            format!("{}{}.0", digits, "0".repeat(decpt - digits.len()))
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_is_printf_g() {
        assert_eq!(general(256.0, 6), "256");
        assert_eq!(general(3e9, 6), "3e+09");
        assert_eq!(general(-3e9, 6), "-3e+09");
        assert_eq!(general(0.5, 6), "0.5");
        assert_eq!(general(123456.0, 6), "123456");
        assert_eq!(general(1234567.0, 6), "1.23457e+06");
        assert_eq!(general(0.0001, 6), "0.0001");
        assert_eq!(general(0.00001, 6), "1e-05");
    }

    #[test]
    fn fixed_matches_python() {
        assert_eq!(fixed(0.03125, 4), "0.0312");
        assert_eq!(fixed(0.09375, 4), "0.0938");
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(3.5, 0), "4");
        assert_eq!(fixed(-0.0, 0), "-0");
        assert_eq!(fixed(-0.00001, 4), "-0.0000");
        assert_eq!(fixed(0.1, 4), "0.1000");
        assert_eq!(fixed(1.25, 4), "1.2500");
        assert_eq!(fixed(99.99999, 4), "100.0000");
        assert_eq!(fixed(1e20, 0), "100000000000000000000");
        assert_eq!(fixed(5e-324, 4), "0.0000");
        assert_eq!(fixed(f64::NAN, 4), "nan");
        assert_eq!(fixed(f64::NEG_INFINITY, 4), "-inf");
        assert_eq!(fixed(f64::MAX, 0).len(), 309);
    }

    #[test]
    fn sci_matches_python() {
        assert_eq!(sci(1e-5, 4), "1.0000e-05");
        assert_eq!(sci(1.0, 4), "1.0000e+00");
        assert_eq!(sci(0.0, 4), "0.0000e+00");
        assert_eq!(sci(-0.0, 4), "-0.0000e+00");
        assert_eq!(sci(1e100, 4), "1.0000e+100");
        assert_eq!(sci(99999.5, 4), "1.0000e+05");
        assert_eq!(sci(12344.5, 4), "1.2344e+04");
        assert_eq!(sci(999995.0, 4), "1.0000e+06");
        assert_eq!(sci(123456.0, 4), "1.2346e+05");
        assert_eq!(sci(5e-324, 4), "4.9407e-324");
        assert_eq!(sci(f64::INFINITY, 4), "inf");
    }

    #[test]
    fn repr_matches_python() {
        assert_eq!(repr(1.0), "1.0");
        assert_eq!(repr(0.1), "0.1");
        assert_eq!(repr(1e16), "1e+16");
        assert_eq!(repr(1e15), "1000000000000000.0");
        assert_eq!(repr(1.5e-5), "1.5e-05");
        assert_eq!(repr(0.0001), "0.0001");
        assert_eq!(repr(-0.0), "-0.0");
        assert_eq!(repr(f64::NAN), "nan");
        assert_eq!(repr(f64::NEG_INFINITY), "-inf");
        assert_eq!(repr(123.456), "123.456");
        assert_eq!(repr(1e100), "1e+100");
        assert_eq!(repr(1.7976931348623157e308), "1.7976931348623157e+308");
        assert_eq!(repr(5e-324), "5e-324");
        // An exact tie between two 17-digit candidates goes to the even one.
        assert_eq!(repr(326_325.0 / 131_072.0), "2.4896621704101562");
    }
}
