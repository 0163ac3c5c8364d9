// Shared by every kernel family (prepended to each family's file by the engine).
//
// Storages are `array<u32>`; element `e` of a dtype of `b` bytes lives at byte `e * b`,
// little-endian. Values move through kernels in a canonical form:
//   * bool and integers: a signed 64-bit integer as vec2<u32>(lo, hi);
//   * floats: the bits of an f64 as vec2<u32>(lo, hi).
// Every conversion is written with integer operations, so results never depend on the
// adapter's float behaviour (flush-to-zero, NaN payloads): they equal the CPU engine's
// (`DType::read` / `DType::write` with the `half` crate) bit for bit.

const DT_BOOL: u32 = 0u;
const DT_U8: u32 = 1u;
const DT_I8: u32 = 2u;
const DT_I16: u32 = 3u;
const DT_I32: u32 = 4u;
const DT_I64: u32 = 5u;
const DT_F16: u32 = 6u;
const DT_BF16: u32 = 7u;
const DT_F32: u32 = 8u;
const DT_F64: u32 = 9u;

const WORKGROUP: u32 = 64u;
const MAX_RANK: u32 = 8u;
const ALL_LANES: u32 = 0xffffffffu;

fn dt_bytes(t: u32) -> u32 {
    switch t {
        case 0u, 1u, 2u: { return 1u; }
        case 3u, 6u, 7u: { return 2u; }
        case 4u, 8u: { return 4u; }
        default: { return 8u; }
    }
}

fn dt_is_float(t: u32) -> bool {
    return t >= DT_F16;
}

// ---- 64-bit integers on (lo, hi) pairs ----

fn u64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn u64_neg(a: vec2<u32>) -> vec2<u32> {
    return u64_add(~a, vec2<u32>(1u, 0u));
}

fn u64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return u64_add(a, u64_neg(b));
}

fn mul_32x32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = p01 + (p00 >> 16u) + (p10 & 0xffffu);
    let lo = (mid << 16u) | (p00 & 0xffffu);
    let hi = p11 + (mid >> 16u) + (p10 >> 16u);
    return vec2<u32>(lo, hi);
}

// Wrapping 64-bit multiplication (the same bits for signed and unsigned).
fn u64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = mul_32x32(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

fn i64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    return ah < bh || (ah == bh && a.x < b.x);
}

fn i64_is_neg(a: vec2<u32>) -> bool {
    return (a.y >> 31u) != 0u;
}

fn u64_shr(a: vec2<u32>, s: u32) -> vec2<u32> {
    if s == 0u {
        return a;
    }
    if s < 32u {
        return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
    }
    if s < 64u {
        return vec2<u32>(a.y >> (s - 32u), 0u);
    }
    return vec2<u32>(0u, 0u);
}

fn u64_shl(a: vec2<u32>, s: u32) -> vec2<u32> {
    if s == 0u {
        return a;
    }
    if s < 32u {
        return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
    }
    if s < 64u {
        return vec2<u32>(0u, a.x << (s - 32u));
    }
    return vec2<u32>(0u, 0u);
}

// Index of the highest set bit (the value must be non-zero).
fn u64_top_bit(a: vec2<u32>) -> u32 {
    if a.y != 0u {
        return 63u - countLeadingZeros(a.y);
    }
    return 31u - countLeadingZeros(a.x);
}

// The bits strictly below bit `s` are non-zero.
fn u64_low_bits_nonzero(a: vec2<u32>, s: u32) -> bool {
    if s == 0u {
        return false;
    }
    if s < 32u {
        return (a.x & ((1u << s) - 1u)) != 0u;
    }
    if s == 32u {
        return a.x != 0u;
    }
    if s < 64u {
        return a.x != 0u || (a.y & ((1u << (s - 32u)) - 1u)) != 0u;
    }
    return a.x != 0u || a.y != 0u;
}

fn u64_bit(a: vec2<u32>, s: u32) -> bool {
    if s < 32u {
        return ((a.x >> s) & 1u) != 0u;
    }
    return ((a.y >> (s - 32u)) & 1u) != 0u;
}

fn sext32(v: u32) -> vec2<u32> {
    return vec2<u32>(v, select(0u, 0xffffffffu, (v >> 31u) != 0u));
}

// ---- float bit conversions (exactly Rust's `as` casts and the `half` crate) ----

// f32 bits -> f64 bits (exact; NaNs come out quiet, as x86's cvtss2sd makes them).
fn f32_to_f64(x: u32) -> vec2<u32> {
    let sign = x & 0x80000000u;
    let e = (x >> 23u) & 0xffu;
    let m = x & 0x7fffffu;
    if e == 0xffu {
        if m == 0u {
            return vec2<u32>(0u, sign | 0x7ff00000u);
        }
        return vec2<u32>(m << 29u, sign | 0x7ff80000u | (m >> 3u));
    }
    if e == 0u {
        if m == 0u {
            return vec2<u32>(0u, sign);
        }
        // Subnormal: m * 2^-149; normalize.
        let top = 31u - countLeadingZeros(m);
        let exp64 = top + 1023u - 149u;
        let frac = u64_shl(vec2<u32>(m, 0u), 52u - top);
        return vec2<u32>(frac.x, sign | (exp64 << 20u) | (frac.y & 0xfffffu));
    }
    let exp64 = e + 1023u - 127u;
    return vec2<u32>(m << 29u, sign | (exp64 << 20u) | (m >> 3u));
}

// f64 bits -> f32 bits, rounding to nearest even (NaNs quiet, payload truncated).
fn f64_to_f32(v: vec2<u32>) -> u32 {
    let sign = v.y & 0x80000000u;
    let e = (v.y >> 20u) & 0x7ffu;
    let mant = vec2<u32>(v.x, v.y & 0xfffffu);
    if e == 0x7ffu {
        if mant.x == 0u && mant.y == 0u {
            return sign | 0x7f800000u;
        }
        return sign | 0x7fc00000u | ((u64_shr(mant, 29u).x) & 0x3fffffu);
    }
    if e == 0u {
        return sign;
    }
    let ue = i32(e) - 1023;
    if ue > 127 {
        return sign | 0x7f800000u;
    }
    let sig = vec2<u32>(mant.x, mant.y | 0x100000u);
    var shift: u32;
    var exp_bits: u32;
    if ue >= -126 {
        shift = 29u;
        exp_bits = u32(ue + 127) << 23u;
    } else {
        shift = u32(29 + (-126 - ue));
        exp_bits = 0u;
        if shift > 60u {
            return sign;
        }
    }
    let kept = u64_shr(sig, shift).x;
    var bits = kept;
    if exp_bits != 0u {
        bits = exp_bits | (kept & 0x7fffffu);
    }
    let round_bit = u64_bit(sig, shift - 1u);
    let sticky = u64_low_bits_nonzero(sig, shift - 1u);
    if round_bit && (sticky || (kept & 1u) != 0u) {
        bits = bits + 1u;
    }
    return sign | bits;
}

// half's f16 -> f32 (exact; NaNs quiet).
fn f16_to_f32(h: u32) -> u32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (h & 0x7fffu) == 0u {
        return sign;
    }
    if e == 0x1fu {
        if m == 0u {
            return sign | 0x7f800000u;
        }
        return sign | 0x7fc00000u | (m << 13u);
    }
    if e == 0u {
        // Subnormal: m * 2^-24.
        let top = 31u - countLeadingZeros(m);
        let exp32 = top + 127u - 24u;
        return sign | (exp32 << 23u) | ((m << (23u - top)) & 0x7fffffu);
    }
    return sign | ((e + 112u) << 23u) | (m << 13u);
}

// half's f32 -> f16 (round to nearest even, as `f16::from_f32`).
fn f32_to_f16(x: u32) -> u32 {
    let sign = x & 0x80000000u;
    let e = x & 0x7f800000u;
    let man = x & 0x7fffffu;
    if e == 0x7f800000u {
        let nan_bit = select(0x200u, 0u, man == 0u);
        return (sign >> 16u) | 0x7c00u | nan_bit | (man >> 13u);
    }
    let half_sign = sign >> 16u;
    let half_exp = i32(e >> 23u) - 127 + 15;
    if half_exp >= 0x1f {
        return half_sign | 0x7c00u;
    }
    if half_exp <= 0 {
        if 14 - half_exp > 24 {
            return half_sign;
        }
        let m = man | 0x800000u;
        var half_man = m >> u32(14 - half_exp);
        let round_bit = 1u << u32(13 - half_exp);
        if (m & round_bit) != 0u && (m & (3u * round_bit - 1u)) != 0u {
            half_man = half_man + 1u;
        }
        return half_sign | half_man;
    }
    let bits = half_sign | (u32(half_exp) << 10u) | (man >> 13u);
    if (man & 0x1000u) != 0u && (man & 0x2fffu) != 0u {
        return bits + 1u;
    }
    return bits;
}

// half's f32 -> bf16 (round to nearest even, as `bf16::from_f32`).
fn f32_to_bf16(x: u32) -> u32 {
    if (x & 0x7fffffffu) > 0x7f800000u {
        return (x >> 16u) | 0x40u;
    }
    if (x & 0x8000u) != 0u && (x & 0x17fffu) != 0u {
        return (x >> 16u) + 1u;
    }
    return x >> 16u;
}

// i64 -> f64 bits (round to nearest even, as `i as f64`).
fn i64_to_f64(v: vec2<u32>) -> vec2<u32> {
    if v.x == 0u && v.y == 0u {
        return vec2<u32>(0u, 0u);
    }
    let neg = i64_is_neg(v);
    let mag = select(v, u64_neg(v), neg);
    let sign = select(0u, 0x80000000u, neg);
    let top = u64_top_bit(mag);
    var frac: vec2<u32>;
    var round_up = false;
    if top <= 52u {
        frac = u64_shl(mag, 52u - top);
    } else {
        let s = top - 52u;
        frac = u64_shr(mag, s);
        let rb = u64_bit(mag, s - 1u);
        let sticky = u64_low_bits_nonzero(mag, s - 1u);
        round_up = rb && (sticky || (frac.x & 1u) != 0u);
    }
    var bits = vec2<u32>(frac.x, ((top + 1023u) << 20u) | (frac.y & 0xfffffu));
    if round_up {
        bits = u64_add(bits, vec2<u32>(1u, 0u));
    }
    return vec2<u32>(bits.x, bits.y | sign);
}

// i64 -> f32 bits (round to nearest even, as `i as f32`).
fn i64_to_f32(v: vec2<u32>) -> u32 {
    if v.x == 0u && v.y == 0u {
        return 0u;
    }
    let neg = i64_is_neg(v);
    let mag = select(v, u64_neg(v), neg);
    let sign = select(0u, 0x80000000u, neg);
    let top = u64_top_bit(mag);
    var frac: u32;
    var round_up = false;
    if top <= 23u {
        frac = mag.x << (23u - top);
    } else {
        let s = top - 23u;
        frac = u64_shr(mag, s).x;
        let rb = u64_bit(mag, s - 1u);
        let sticky = u64_low_bits_nonzero(mag, s - 1u);
        round_up = rb && (sticky || (frac & 1u) != 0u);
    }
    var bits = ((top + 127u) << 23u) | (frac & 0x7fffffu);
    if round_up {
        bits = bits + 1u;
    }
    return bits | sign;
}

// `Scalar::to_wrapped_int` of a float: truncation toward zero; NaN, infinities and
// magnitudes of 2^63 or more give i64::MIN.
fn f64_to_i64(v: vec2<u32>) -> vec2<u32> {
    let neg = (v.y >> 31u) != 0u;
    let e = (v.y >> 20u) & 0x7ffu;
    if e == 0x7ffu || e >= 1023u + 63u {
        return vec2<u32>(0u, 0x80000000u);
    }
    if e < 1023u {
        return vec2<u32>(0u, 0u);
    }
    let ue = e - 1023u;
    let sig = vec2<u32>(v.x, (v.y & 0xfffffu) | 0x100000u);
    var mag: vec2<u32>;
    if ue <= 52u {
        mag = u64_shr(sig, 52u - ue);
    } else {
        mag = u64_shl(sig, ue - 52u);
    }
    return select(mag, u64_neg(mag), neg);
}

// True when f64 bits are a NaN.
fn f64_is_nan(v: vec2<u32>) -> bool {
    return (v.y & 0x7fffffffu) > 0x7ff00000u || ((v.y & 0x7fffffffu) == 0x7ff00000u && v.x != 0u);
}

// ---- element codecs ----

// Raw element bits (1-, 2- and 4-byte dtypes in .x) -> canonical value.
fn decode(t: u32, raw: vec2<u32>) -> vec2<u32> {
    switch t {
        case 0u: { return vec2<u32>(select(0u, 1u, (raw.x & 0xffu) != 0u), 0u); }
        case 1u: { return vec2<u32>(raw.x & 0xffu, 0u); }
        case 2u: { return sext32(bitcast<u32>(bitcast<i32>(raw.x << 24u) >> 24u)); }
        case 3u: { return sext32(bitcast<u32>(bitcast<i32>(raw.x << 16u) >> 16u)); }
        case 4u: { return sext32(raw.x); }
        case 6u: { return f32_to_f64(f16_to_f32(raw.x & 0xffffu)); }
        case 7u: { return f32_to_f64((raw.x & 0xffffu) << 16u); }
        case 8u: { return f32_to_f64(raw.x); }
        default: { return raw; }
    }
}

// Canonical value (of a float dtype when `is_float`) -> raw element bits of dtype `t`,
// converted as PyTorch's CPU kernels convert (`DType::write`).
fn encode(t: u32, v: vec2<u32>, is_float: bool) -> vec2<u32> {
    if t == DT_BOOL {
        var nz: bool;
        if is_float {
            nz = v.x != 0u || (v.y & 0x7fffffffu) != 0u;
        } else {
            nz = v.x != 0u || v.y != 0u;
        }
        return vec2<u32>(select(0u, 1u, nz), 0u);
    }
    if t <= DT_I64 {
        var i = v;
        if is_float {
            i = f64_to_i64(v);
        }
        switch t {
            case 1u, 2u: { return vec2<u32>(i.x & 0xffu, 0u); }
            case 3u: { return vec2<u32>(i.x & 0xffffu, 0u); }
            case 4u: { return vec2<u32>(i.x, 0u); }
            default: { return i; }
        }
    }
    if t == DT_F64 {
        if is_float {
            return v;
        }
        return i64_to_f64(v);
    }
    var f: u32;
    if is_float {
        f = f64_to_f32(v);
    } else {
        f = i64_to_f32(v);
    }
    switch t {
        case 6u: { return vec2<u32>(f32_to_f16(f), 0u); }
        case 7u: { return vec2<u32>(f32_to_bf16(f), 0u); }
        default: { return vec2<u32>(f, 0u); }
    }
}

// Converts raw bits of dtype `src_t` into raw bits of dtype `dst_t`.
fn convert_raw(src_t: u32, dst_t: u32, raw: vec2<u32>) -> vec2<u32> {
    if src_t == dst_t {
        // Same dtype: the value round-trips, except that float NaNs come out quiet.
        switch dst_t {
            case 0u: { return vec2<u32>(select(0u, 1u, (raw.x & 0xffu) != 0u), 0u); }
            case 6u: {
                let h = raw.x & 0xffffu;
                return vec2<u32>(select(h, h | 0x200u, (h & 0x7fffu) > 0x7c00u), 0u);
            }
            case 7u: {
                let h = raw.x & 0xffffu;
                return vec2<u32>(select(h, h | 0x40u, (h & 0x7fffu) > 0x7f80u), 0u);
            }
            case 8u: {
                return vec2<u32>(select(raw.x, raw.x | 0x400000u, (raw.x & 0x7fffffffu) > 0x7f800000u), 0u);
            }
            default: { return raw; }
        }
    }
    if src_t != DT_F64 && dst_t != DT_F64 {
        if dt_is_float(src_t) {
            return encode_f32(dst_t, small_float_to_f32(src_t, raw.x));
        }
        if dst_t == DT_F32 || dst_t == DT_F16 || dst_t == DT_BF16 {
            return encode_f32(dst_t, i64_to_f32(decode(src_t, raw)));
        }
    }
    return encode(dst_t, decode(src_t, raw), dt_is_float(src_t));
}

// f16 / bf16 / f32 bits -> f32 bits (exact; NaNs quiet).
fn small_float_to_f32(t: u32, x: u32) -> u32 {
    var f: u32;
    if t == DT_F16 {
        f = f16_to_f32(x & 0xffffu);
    } else if t == DT_BF16 {
        f = (x & 0xffffu) << 16u;
    } else {
        f = x;
    }
    return select(f, f | 0x400000u, (f & 0x7fffffffu) > 0x7f800000u);
}

// `to_wrapped_int` of an f32: truncation; NaN, infinities and |x| >= 2^63 give i64::MIN.
fn f32_to_i64(x: u32) -> vec2<u32> {
    let neg = (x >> 31u) != 0u;
    let e = (x >> 23u) & 0xffu;
    if e >= 127u + 63u {
        return vec2<u32>(0u, 0x80000000u);
    }
    if e < 127u {
        return vec2<u32>(0u, 0u);
    }
    let ue = e - 127u;
    let sig = vec2<u32>((x & 0x7fffffu) | 0x800000u, 0u);
    var mag: vec2<u32>;
    if ue <= 23u {
        mag = u64_shr(sig, 23u - ue);
    } else {
        mag = u64_shl(sig, ue - 23u);
    }
    return select(mag, u64_neg(mag), neg);
}

// An f32 value (bits) stored as dtype `t` (any dtype but f64), as `DType::write` does.
fn encode_f32(t: u32, f: u32) -> vec2<u32> {
    switch t {
        case 0u: { return vec2<u32>(select(0u, 1u, (f & 0x7fffffffu) != 0u), 0u); }
        case 6u: { return vec2<u32>(f32_to_f16(f), 0u); }
        case 7u: { return vec2<u32>(f32_to_bf16(f), 0u); }
        case 8u: { return vec2<u32>(f, 0u); }
        default: {
            let i = f32_to_i64(f);
            switch t {
                case 1u, 2u: { return vec2<u32>(i.x & 0xffu, 0u); }
                case 3u: { return vec2<u32>(i.x & 0xffffu, 0u); }
                case 4u: { return vec2<u32>(i.x, 0u); }
                default: { return i; }
            }
        }
    }
}

// Mask of the bits of one element of `bytes` bytes within its word.
fn elem_mask(bytes: u32) -> u32 {
    switch bytes {
        case 1u: { return 0xffu; }
        case 2u: { return 0xffffu; }
        default: { return 0xffffffffu; }
    }
}

// Global invocation index for a grid that may be 2-D (x wraps past 65535 workgroups).
fn invocation_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * WORKGROUP;
}
