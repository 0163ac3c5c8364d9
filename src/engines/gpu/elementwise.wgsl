// Elementwise unary and binary ops over strided views (broadcast operands have stride 0),
// with PyTorch's CPU arithmetic exactly as cpu.rs defines it (`to_compute`, `apply_unary`,
// `apply_binary`, `opmath_round`):
//   * bool compute: logic on 0/1;
//   * integer compute: inputs wrapped to the compute dtype, then 64-bit wrapping arithmetic
//     on (lo, hi) pairs;
//   * float16 / bfloat16 / float32 compute: inputs cast to the compute dtype, then widened
//     to f32 (opmath); results rounded to f32.
//     + - * use the adapter's f32 arithmetic (correctly rounded) except where denormals are
//     involved, which take an exact integer path (CPU adapters flush denormals); NaNs follow
//     x86's rules (the first NaN operand, quieted; invalid operations give the default NaN);
//     comparisons, relu, clamp and abs work on the bits.
// The op is a uniform; the dtypes are pipeline constants.
//
// Modes as in gather.wgsl (0: dense destination, invocations own whole words; 1: any
// destination, one dispatch per byte lane). An input in the destination's storage is read
// from the destination binding when it is the destination view itself or reaches disjoint
// bytes (each element is then read before anything overwrites it); otherwise the host
// snapshots it first, so inputs are always read completely before the output is written.

struct EwParams {
    n: u32,
    rank: u32,
    per_invocation: u32,
    mode: u32,
    lane: u32,
    dst_offset: u32,
    a_offset: u32,
    b_offset: u32,
    op: u32,
    a_t: u32,
    b_t: u32,
    dst_t: u32,
    compute_t: u32,
    flags: u32,
    pad0: u32,
    pad1: u32,
    a_lo: u32,
    a_hi: u32,
    b_lo: u32,
    b_hi: u32,
    min_lo: u32,
    min_hi: u32,
    max_lo: u32,
    max_hi: u32,
    shape: array<vec4<u32>, 2>,
    dst_stride: array<vec4<u32>, 2>,
    a_stride: array<vec4<u32>, 2>,
    b_stride: array<vec4<u32>, 2>,
}

// Dtypes are pipeline constants (one pipeline per combination, each compiled small).
override A_T: u32 = 8u;
override B_T: u32 = 8u;
override DST_T: u32 = 8u;
override COMPUTE_T: u32 = 8u;

const F_A_SCALAR: u32 = 1u;
const F_B_SCALAR: u32 = 2u;
const F_A_FROM_DST: u32 = 4u;
const F_B_FROM_DST: u32 = 8u;
const F_HAS_MIN: u32 = 32u;
const F_HAS_MAX: u32 = 64u;

// Binary ops (BinaryOp's order), then unary ops.
const OP_ADD: u32 = 0u;
const OP_SUB: u32 = 1u;
const OP_MUL: u32 = 2u;
const OP_POW: u32 = 6u;
const OP_EQ: u32 = 7u;
const OP_NE: u32 = 8u;
const OP_LT: u32 = 9u;
const OP_LE: u32 = 10u;
const OP_GT: u32 = 11u;
const OP_GE: u32 = 12u;
const OP_AND: u32 = 13u;
const OP_OR: u32 = 14u;
const OP_XOR: u32 = 15u;
const OP_NEG: u32 = 16u;
const OP_RELU: u32 = 17u;
const OP_CLAMP: u32 = 18u;
const OP_LOGICAL_NOT: u32 = 19u;
const OP_BIT_NOT: u32 = 20u;
const OP_ABS: u32 = 21u;

// Result kinds.
const K_BOOL: u32 = 0u;
const K_INT: u32 = 1u;
const K_F32: u32 = 2u;

@group(0) @binding(0) var<uniform> params: EwParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src_a: array<u32>;
@group(0) @binding(3) var<storage, read> src_b: array<u32>;
// Set to 1 when an integer floor division or remainder meets a zero divisor.
@group(0) @binding(4) var<storage, read_write> status: array<atomic<u32>>;

var<private> idx: array<u32, 8>;
var<private> shp: array<u32, 8>;
var<private> dstr: array<u32, 8>;
var<private> astr: array<u32, 8>;
var<private> bstr: array<u32, 8>;

fn word_of(which: u32, w: u32) -> u32 {
    if which == 0u {
        return dst[w];
    }
    if which == 1u {
        return src_a[w];
    }
    return src_b[w];
}

// Raw bits of element `e` of dtype `t` in buffer `which` (0 dst, 1 a, 2 b).
fn load_raw(which: u32, t: u32, e: u32) -> vec2<u32> {
    let b = dt_bytes(t);
    if b == 1u {
        return vec2<u32>((word_of(which, e >> 2u) >> ((e & 3u) * 8u)) & 0xffu, 0u);
    }
    if b == 2u {
        return vec2<u32>((word_of(which, e >> 1u) >> ((e & 1u) * 16u)) & 0xffffu, 0u);
    }
    if b == 4u {
        return vec2<u32>(word_of(which, e), 0u);
    }
    return vec2<u32>(word_of(which, 2u * e), word_of(which, 2u * e + 1u));
}

fn store_dst(e: u32, raw: vec2<u32>) {
    let b = dt_bytes(DST_T);
    if b == 1u {
        let w = e >> 2u;
        let sh = (e & 3u) * 8u;
        dst[w] = (dst[w] & ~(0xffu << sh)) | ((raw.x & 0xffu) << sh);
    } else if b == 2u {
        let w = e >> 1u;
        let sh = (e & 1u) * 16u;
        dst[w] = (dst[w] & ~(0xffffu << sh)) | ((raw.x & 0xffffu) << sh);
    } else if b == 4u {
        dst[e] = raw.x;
    } else {
        dst[2u * e] = raw.x;
        dst[2u * e + 1u] = raw.y;
    }
}

fn compute_kind() -> u32 {
    let c = COMPUTE_T;
    if c == DT_BOOL {
        return K_BOOL;
    }
    if c <= DT_I64 {
        return K_INT;
    }
    return K_F32;
}

// `to_compute`: an element's raw bits in the compute arithmetic's form.
fn to_compute(t: u32, raw: vec2<u32>) -> vec2<u32> {
    let c = COMPUTE_T;
    let k = compute_kind();
    if k == K_BOOL {
        return encode(DT_BOOL, decode(t, raw), dt_is_float(t));
    }
    if k == K_INT {
        return decode(c, convert_raw(t, c, raw));
    }
    // Cast to the compute dtype first (f16 / bf16 / f32), then widened to f32 (opmath).
    return vec2<u32>(small_float_to_f32(c, convert_raw(t, c, raw).x), 0u);
}

fn operand_a(pos: u32) -> vec2<u32> {
    let f = params.flags;
    if (f & F_A_SCALAR) != 0u {
        return vec2<u32>(params.a_lo, params.a_hi);
    }
    let which = select(1u, 0u, (f & F_A_FROM_DST) != 0u);
    return to_compute(A_T, load_raw(which, A_T, pos));
}

fn operand_b(pos: u32) -> vec2<u32> {
    let f = params.flags;
    if (f & F_B_SCALAR) != 0u {
        return vec2<u32>(params.b_lo, params.b_hi);
    }
    let which = select(2u, 0u, (f & F_B_FROM_DST) != 0u);
    return to_compute(B_T, load_raw(which, B_T, pos));
}

// ---- f32 on bits ----

fn f32_is_nan(x: u32) -> bool {
    return (x & 0x7fffffffu) > 0x7f800000u;
}

// Total order key for non-NaN f32 bits (-0 and +0 handled by the callers).
fn f32_key(x: u32) -> u32 {
    return select(x | 0x80000000u, ~x, (x >> 31u) != 0u);
}

// -1, 0, 1 for x < y, x == y, x > y; 2 when unordered (a NaN).
fn f32_cmp(x: u32, y: u32) -> u32 {
    if f32_is_nan(x) || f32_is_nan(y) {
        return 2u;
    }
    if ((x | y) & 0x7fffffffu) == 0u {
        return 0u;
    }
    let kx = f32_key(x);
    let ky = f32_key(y);
    if kx < ky {
        return 0xffffffffu;
    }
    if kx > ky {
        return 1u;
    }
    return 0u;
}

fn f32_lt(x: u32, y: u32) -> bool {
    return f32_cmp(x, y) == 0xffffffffu;
}

// x86's NaN rules for `x op y` computed in f64 and rounded to f32: the first NaN operand
// (quiet), else the default NaN for invalid operations.
fn nan_result(x: u32, y: u32) -> u32 {
    if f32_is_nan(x) {
        return x | 0x400000u;
    }
    if f32_is_nan(y) {
        return y | 0x400000u;
    }
    return 0xffc00000u;
}

// Significand and exponent of finite f32 bits: value = m * 2^(e - 150).
fn f32_parts(x: u32) -> vec2<u32> {
    let e = (x >> 23u) & 0xffu;
    let m = x & 0x7fffffu;
    if e == 0u {
        return vec2<u32>(m, 1u);
    }
    return vec2<u32>(m | 0x800000u, e);
}

// Exact product of two finite f32 values, rounded once to f32 (through an exact f64).
fn f32_mul_exact(x: u32, y: u32) -> u32 {
    let sign = (x ^ y) & 0x80000000u;
    let px = f32_parts(x);
    let py = f32_parts(y);
    let p = mul_32x32(px.x, py.x);
    if p.x == 0u && p.y == 0u {
        return sign;
    }
    // value = p * 2^(ex + ey - 300)
    let top = u64_top_bit(p);
    let exp64 = i32(top) + i32(px.y) + i32(py.y) - 300 + 1023;
    let frac = u64_shl(p, 52u - top);
    let bits = vec2<u32>(frac.x, (u32(exp64) << 20u) | (frac.y & 0xfffffu));
    return f64_to_f32(bits) | sign;
}

// Finite f32 bits scaled by 2^64 (exact: the inputs of the slow path are small).
fn f32_scale_up(x: u32) -> f32 {
    let sign = x & 0x80000000u;
    let e = (x >> 23u) & 0xffu;
    if e == 0u {
        // m * 2^-149 * 2^64 = m * 2^-85
        let v = f32(x & 0x7fffffu) * bitcast<f32>(0x15000000u);
        return bitcast<f32>(bitcast<u32>(v) | sign);
    }
    return bitcast<f32>(x + (64u << 23u));
}

// Normal or zero f32 scaled by 2^-64 (exact: the result is representable).
fn f32_scale_down(x: u32) -> u32 {
    let sign = x & 0x80000000u;
    let e = (x >> 23u) & 0xffu;
    if e == 0u {
        return sign;
    }
    if e > 64u {
        return x - (64u << 23u);
    }
    let m = (x & 0x7fffffu) | 0x800000u;
    return sign | (m >> (65u - e));
}

fn f32_add(x: u32, y: u32) -> u32 {
    let fx = bitcast<f32>(x);
    let fy = bitcast<f32>(y);
    if f32_is_nan(x) || f32_is_nan(y) {
        return nan_result(x, y);
    }
    let ex = (x >> 23u) & 0xffu;
    let ey = (y >> 23u) & 0xffu;
    if ex == 0xffu || ey == 0xffu {
        if ex == 0xffu && ey == 0xffu && ((x ^ y) & 0x80000000u) != 0u {
            return 0xffc00000u;
        }
        return select(y, x, ex == 0xffu);
    }
    let r = bitcast<u32>(fx + fy);
    let er = (r >> 23u) & 0xffu;
    if ex != 0u && ey != 0u && er != 0u {
        return r;
    }
    if max(ex, ey) >= 64u {
        // A denormal operand is far below half an ulp of the other, which decides the
        // result; two normal operands this large never cancel into the denormal range.
        return r;
    }
    let s = f32_scale_up(x) + f32_scale_up(y);
    let sb = bitcast<u32>(s);
    if (sb & 0x7fffffffu) == 0u {
        // Exact zero: +0 unless both operands are -0.
        return select(0u, 0x80000000u, (x & y & 0x80000000u) != 0u);
    }
    return f32_scale_down(sb);
}

fn f32_mul(x: u32, y: u32) -> u32 {
    if f32_is_nan(x) || f32_is_nan(y) {
        return nan_result(x, y);
    }
    let ex = (x >> 23u) & 0xffu;
    let ey = (y >> 23u) & 0xffu;
    let sign = (x ^ y) & 0x80000000u;
    if ex == 0xffu || ey == 0xffu {
        if (x & 0x7fffffffu) == 0u || (y & 0x7fffffffu) == 0u {
            return 0xffc00000u;
        }
        return sign | 0x7f800000u;
    }
    let r = bitcast<u32>(bitcast<f32>(x) * bitcast<f32>(y));
    let er = (r >> 23u) & 0xffu;
    if ex != 0u && ey != 0u && er != 0u {
        return r;
    }
    return f32_mul_exact(x, y);
}

fn cmp_holds(op: u32, c: u32) -> bool {
    // c: 0xffffffff less, 0 equal, 1 greater, 2 unordered
    switch op {
        case 7u: { return c == 0u; }
        case 8u: { return c != 0u; }
        case 9u: { return c == 0xffffffffu; }
        case 10u: { return c == 0xffffffffu || c == 0u; }
        case 11u: { return c == 1u; }
        default: { return c == 1u || c == 0u; }
    }
}

fn i64_cmp(x: vec2<u32>, y: vec2<u32>) -> u32 {
    if i64_lt(x, y) {
        return 0xffffffffu;
    }
    if i64_lt(y, x) {
        return 1u;
    }
    return 0u;
}

fn i64_pow(base: vec2<u32>, exponent: vec2<u32>) -> vec2<u32> {
    if i64_is_neg(exponent) {
        return vec2<u32>(0u, 0u);
    }
    var e = select(exponent.x, 0xffffffffu, exponent.y != 0u);
    var result = vec2<u32>(1u, 0u);
    var b = base;
    loop {
        if e == 0u {
            break;
        }
        if (e & 1u) != 0u {
            result = u64_mul(result, b);
        }
        e = e >> 1u;
        if e != 0u {
            b = u64_mul(b, b);
        }
    }
    return result;
}

// Unsigned 64-bit division: (quotient, remainder), for a non-zero divisor.
fn u64_divmod(n: vec2<u32>, d: vec2<u32>) -> array<vec2<u32>, 2> {
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 0u; i < 64u; i = i + 1u) {
        let bit = 63u - i;
        r = u64_shl(r, 1u);
        if u64_bit(n, bit) {
            r.x = r.x | 1u;
        }
        if !(r.y < d.y || (r.y == d.y && r.x < d.x)) {
            r = u64_sub(r, d);
            if bit < 32u {
                q.x = q.x | (1u << bit);
            } else {
                q.y = q.y | (1u << (bit - 32u));
            }
        }
    }
    return array<vec2<u32>, 2>(q, r);
}

// Python's floor division (`int_floor_div`) and remainder (`int_rem`) of cpu.rs; a zero
// divisor sets the status flag (the host then reports ZeroDivisionError).
fn i64_floor_div_rem(a: vec2<u32>, b: vec2<u32>, want_rem: bool) -> vec2<u32> {
    if b.x == 0u && b.y == 0u {
        atomicStore(&status[0], 1u);
        return vec2<u32>(0u, 0u);
    }
    let an = i64_is_neg(a);
    let bn = i64_is_neg(b);
    let qr = u64_divmod(select(a, u64_neg(a), an), select(b, u64_neg(b), bn));
    let q = select(qr[0], u64_neg(qr[0]), an != bn);
    let r = select(qr[1], u64_neg(qr[1]), an);
    let r_nonzero = r.x != 0u || r.y != 0u;
    if want_rem {
        if r_nonzero && (i64_is_neg(r) != bn) {
            return u64_add(r, b);
        }
        return r;
    }
    if r_nonzero && (an != bn) {
        return u64_sub(q, vec2<u32>(1u, 0u));
    }
    return q;
}

// One op on compute-form values; .z is the result kind.
fn apply(x: vec2<u32>, y: vec2<u32>) -> vec3<u32> {
    let op = params.op;
    let k = compute_kind();
    if op >= OP_NEG {
        if op == OP_LOGICAL_NOT {
            var zero: bool;
            if k == K_F32 {
                zero = (x.x & 0x7fffffffu) == 0u;
            } else {
                zero = x.x == 0u && x.y == 0u;
            }
            return vec3<u32>(select(0u, 1u, zero), 0u, K_BOOL);
        }
        if k == K_BOOL {
            if op == OP_BIT_NOT {
                return vec3<u32>(x.x ^ 1u, 0u, K_BOOL);
            }
            return vec3<u32>(x.x, 0u, K_BOOL);
        }
        if k == K_INT {
            switch op {
                case 16u: { return vec3<u32>(u64_neg(x), K_INT); }
                case 21u: { return vec3<u32>(select(x, u64_neg(x), i64_is_neg(x)), K_INT); }
                case 17u: { return vec3<u32>(select(x, vec2<u32>(0u, 0u), i64_is_neg(x)), K_INT); }
                case 20u: { return vec3<u32>(~x, K_INT); }
                default: {
                    var v = x;
                    if (params.flags & F_HAS_MIN) != 0u {
                        let lo = vec2<u32>(params.min_lo, params.min_hi);
                        if i64_lt(v, lo) {
                            v = lo;
                        }
                    }
                    if (params.flags & F_HAS_MAX) != 0u {
                        let hi = vec2<u32>(params.max_lo, params.max_hi);
                        if i64_lt(hi, v) {
                            v = hi;
                        }
                    }
                    return vec3<u32>(v, K_INT);
                }
            }
        }
        let f = x.x;
        switch op {
            case 16u: { return vec3<u32>(f ^ 0x80000000u, 0u, K_F32); }
            case 21u: { return vec3<u32>(f & 0x7fffffffu, 0u, K_F32); }
            case 17u: { return vec3<u32>(select(f, 0u, f32_lt(f, 0u)), 0u, K_F32); }
            case 20u: { return vec3<u32>(f, 0u, K_F32); }
            default: {
                var v = f;
                if (params.flags & F_HAS_MIN) != 0u && f32_lt(v, params.min_lo) {
                    v = params.min_lo;
                }
                if (params.flags & F_HAS_MAX) != 0u && f32_lt(params.max_lo, v) {
                    v = params.max_lo;
                }
                return vec3<u32>(v, 0u, K_F32);
            }
        }
    }
    let comparison = op >= OP_EQ && op <= OP_GE;
    if k == K_BOOL {
        let a = x.x;
        let b = y.x;
        if comparison {
            return vec3<u32>(select(0u, 1u, cmp_holds(op, i64_cmp(vec2<u32>(a, 0u), vec2<u32>(b, 0u)))), 0u, K_BOOL);
        }
        switch op {
            case 0u, 14u: { return vec3<u32>(a | b, 0u, K_BOOL); }
            case 2u, 13u: { return vec3<u32>(a & b, 0u, K_BOOL); }
            case 1u, 15u: { return vec3<u32>(a ^ b, 0u, K_BOOL); }
            case 6u: { return vec3<u32>(a | (b ^ 1u), 0u, K_BOOL); }
            default: { return vec3<u32>(a, 0u, K_BOOL); }
        }
    }
    if k == K_INT {
        if comparison {
            return vec3<u32>(select(0u, 1u, cmp_holds(op, i64_cmp(x, y))), 0u, K_BOOL);
        }
        switch op {
            case 0u: { return vec3<u32>(u64_add(x, y), K_INT); }
            case 1u: { return vec3<u32>(u64_sub(x, y), K_INT); }
            case 2u: { return vec3<u32>(u64_mul(x, y), K_INT); }
            case 4u: { return vec3<u32>(i64_floor_div_rem(x, y, false), K_INT); }
            case 5u: { return vec3<u32>(i64_floor_div_rem(x, y, true), K_INT); }
            case 6u: { return vec3<u32>(i64_pow(x, y), K_INT); }
            case 13u: { return vec3<u32>(x & y, K_INT); }
            case 14u: { return vec3<u32>(x | y, K_INT); }
            default: { return vec3<u32>(x ^ y, K_INT); }
        }
    }
    if comparison {
        return vec3<u32>(select(0u, 1u, cmp_holds(op, f32_cmp(x.x, y.x))), 0u, K_BOOL);
    }
    switch op {
        case 0u: { return vec3<u32>(f32_add(x.x, y.x), 0u, K_F32); }
        case 1u: {
            if f32_is_nan(x.x) || f32_is_nan(y.x) {
                return vec3<u32>(nan_result(x.x, y.x), 0u, K_F32);
            }
            return vec3<u32>(f32_add(x.x, y.x ^ 0x80000000u), 0u, K_F32);
        }
        case 2u: { return vec3<u32>(f32_mul(x.x, y.x), 0u, K_F32); }
        default: { return vec3<u32>(0u, 0u, K_F32); }
    }
}

// The result written in the destination dtype (`DType::write` of the result Scalar).
fn result_raw(r: vec3<u32>) -> vec2<u32> {
    let t = DST_T;
    if r.z == K_F32 {
        if t == DT_F64 {
            return f32_to_f64(r.x);
        }
        return encode_f32(t, r.x);
    }
    return encode(t, r.xy, false);
}

fn element(pos: vec3<u32>) -> vec2<u32> {
    return result_raw(apply(operand_a(pos.y), operand_b(pos.z)));
}

fn seek(lin: u32) -> vec3<u32> {
    let rank = params.rank;
    for (var d = 0u; d < rank; d = d + 1u) {
        shp[d] = params.shape[d / 4u][d % 4u];
        dstr[d] = params.dst_stride[d / 4u][d % 4u];
        astr[d] = params.a_stride[d / 4u][d % 4u];
        bstr[d] = params.b_stride[d / 4u][d % 4u];
    }
    var rest = lin;
    var pos = vec3<u32>(params.dst_offset, params.a_offset, params.b_offset);
    for (var k = 0u; k < rank; k = k + 1u) {
        let d = rank - 1u - k;
        let i = rest % shp[d];
        rest = rest / shp[d];
        idx[d] = i;
        pos = pos + i * vec3<u32>(dstr[d], astr[d], bstr[d]);
    }
    return pos;
}

fn carry(pos_in: vec3<u32>) -> vec3<u32> {
    var pos = pos_in;
    for (var k = 2u; k <= params.rank; k = k + 1u) {
        let d = params.rank - k;
        let st = vec3<u32>(dstr[d], astr[d], bstr[d]);
        idx[d] = idx[d] + 1u;
        pos = pos + st;
        if idx[d] < shp[d] {
            return pos;
        }
        idx[d] = 0u;
        pos = pos - st * shp[d];
    }
    return pos;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = invocation_index(gid, groups);
    let n = params.n;
    let per = params.per_invocation;
    let last = params.rank - 1u;
    let b = dt_bytes(DST_T);
    let per_unit = select(1u, 4u / b, b < 4u);
    let off = params.dst_offset;
    let dense = params.mode == 0u;
    // The invocation's elements [start, end): whole destination units in dense mode.
    var start: u32;
    var end: u32;
    if dense {
        let first_unit = off / per_unit;
        let end_unit = (off + n + per_unit - 1u) / per_unit;
        let u_begin = first_unit + t * per;
        if u_begin >= end_unit {
            return;
        }
        let u_end = min(u_begin + per, end_unit);
        start = max(u_begin * per_unit, off) - off;
        end = min(u_end * per_unit, off + n) - off;
    } else {
        start = t * per;
        if start >= n {
            return;
        }
        end = min(start + per, n);
    }
    var pos = seek(start);
    var i0 = idx[last];
    let n0 = shp[last];
    let step = vec3<u32>(dstr[last], astr[last], bstr[last]);
    let bits = b * 8u;
    let m = elem_mask(b);
    let lane = params.lane;
    var word = 0u;
    var covered = 0u;
    for (var l = start; l < end; l = l + 1u) {
        let v = element(pos);
        if dense {
            let e = off + l;
            if b >= 4u {
                if b == 4u {
                    dst[e] = v.x;
                } else {
                    dst[2u * e] = v.x;
                    dst[2u * e + 1u] = v.y;
                }
            } else {
                let k = e % per_unit;
                word = word | ((v.x & m) << (k * bits));
                covered = covered | (m << (k * bits));
                if k == per_unit - 1u || l + 1u == end {
                    let u = e / per_unit;
                    if covered != 0xffffffffu {
                        word = word | (dst[u] & ~covered);
                    }
                    dst[u] = word;
                    word = 0u;
                    covered = 0u;
                }
            }
        } else {
            var my_lane = 0u;
            if b == 1u {
                my_lane = pos.x & 3u;
            } else if b == 2u {
                my_lane = pos.x & 1u;
            }
            if lane == ALL_LANES || my_lane == lane {
                store_dst(pos.x, v);
            }
        }
        i0 = i0 + 1u;
        pos = pos + step;
        if i0 == n0 {
            i0 = 0u;
            pos = carry(pos - step * n0);
        }
    }
}
