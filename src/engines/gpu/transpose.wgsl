// Register-tiled batched transpose: dst[b][r][c] = src[b * sb + c * sc + r], destination
// dense, same dtype on both sides. This is what contiguous() of `.t()`, NCHW <-> NHWC and
// most permutes become once the host collapses the dims that stay contiguous together.
//
// A tile is T x T elements with T = 16 / ELEM_BYTES, so one tile row is one vec4<u32>: an
// invocation loads T vec4s (T source rows), transposes them in registers (shuffling bytes
// or halves for the packed dtypes) and stores T vec4s (T destination rows), each a whole
// set of words no other invocation touches. On CPU adapters (lavapipe) workgroup barriers
// are expensive and each invocation's memory accesses run one after the other, so there is
// no workgroup-memory staging: an invocation takes a block of SB x SB tiles, and so reads
// and writes whole cache lines of every row it touches.
//
// Copies keep PyTorch's CPU semantics: float NaNs come out quiet, bools come out 0/1.

struct TransposeParams {
    batch: u32,
    rows: u32,
    cols: u32,
    tiles_per_row: u32,
    dst_offset: u32,
    src_offset: u32,
    src_batch_stride: u32,
    src_col_stride: u32,
}

override ELEM_BYTES: u32 = 4u;
override FLOAT_T: u32 = 8u;

@group(0) @binding(0) var<uniform> params: TransposeParams;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> src: array<vec4<u32>>;

fn quiet_halves(v: vec4<u32>, quiet: u32, inf: u32) -> vec4<u32> {
    let lo = v & vec4<u32>(0xffffu);
    let hi = v >> vec4<u32>(16u);
    let lo2 = select(lo, lo | vec4<u32>(quiet), (lo & vec4<u32>(0x7fffu)) > vec4<u32>(inf));
    let hi2 = select(hi, hi | vec4<u32>(quiet), (hi & vec4<u32>(0x7fffu)) > vec4<u32>(inf));
    return lo2 | (hi2 << vec4<u32>(16u));
}

// The CPU engine's same-dtype round trip: quiet NaNs, bools as 0/1.
fn canonical(v: vec4<u32>) -> vec4<u32> {
    switch FLOAT_T {
        case 0u: {
            var t = v | (v >> vec4<u32>(4u));
            t = t | (t >> vec4<u32>(2u));
            t = t | (t >> vec4<u32>(1u));
            return t & vec4<u32>(0x01010101u);
        }
        case 6u: {
            return quiet_halves(v, 0x200u, 0x7c00u);
        }
        case 7u: {
            return quiet_halves(v, 0x40u, 0x7f80u);
        }
        case 8u: {
            return select(v, v | vec4<u32>(0x400000u), (v & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u));
        }
        default: {
            return v;
        }
    }
}

// One 16x16 tile of 1-byte elements: 16 vec4 loads, 16 vec4 stores.
fn tile_1(s0: u32, sv: u32, d0: u32, dv: u32) {
    let r0 = src[s0 + 0u * sv];
    let r1 = src[s0 + 1u * sv];
    let r2 = src[s0 + 2u * sv];
    let r3 = src[s0 + 3u * sv];
    let r4 = src[s0 + 4u * sv];
    let r5 = src[s0 + 5u * sv];
    let r6 = src[s0 + 6u * sv];
    let r7 = src[s0 + 7u * sv];
    let r8 = src[s0 + 8u * sv];
    let r9 = src[s0 + 9u * sv];
    let r10 = src[s0 + 10u * sv];
    let r11 = src[s0 + 11u * sv];
    let r12 = src[s0 + 12u * sv];
    let r13 = src[s0 + 13u * sv];
    let r14 = src[s0 + 14u * sv];
    let r15 = src[s0 + 15u * sv];
    dst[d0 + 0u * dv] = canonical(vec4<u32>(
        (r0[0] & 0xffu) | ((r1[0] & 0xffu) << 8u) | ((r2[0] & 0xffu) << 16u) | ((r3[0] & 0xffu) << 24u),
        (r4[0] & 0xffu) | ((r5[0] & 0xffu) << 8u) | ((r6[0] & 0xffu) << 16u) | ((r7[0] & 0xffu) << 24u),
        (r8[0] & 0xffu) | ((r9[0] & 0xffu) << 8u) | ((r10[0] & 0xffu) << 16u) | ((r11[0] & 0xffu) << 24u),
        (r12[0] & 0xffu) | ((r13[0] & 0xffu) << 8u) | ((r14[0] & 0xffu) << 16u) | ((r15[0] & 0xffu) << 24u)));
    dst[d0 + 1u * dv] = canonical(vec4<u32>(
        ((r0[0] >> 8u) & 0xffu) | (((r1[0] >> 8u) & 0xffu) << 8u) | (((r2[0] >> 8u) & 0xffu) << 16u) | (((r3[0] >> 8u) & 0xffu) << 24u),
        ((r4[0] >> 8u) & 0xffu) | (((r5[0] >> 8u) & 0xffu) << 8u) | (((r6[0] >> 8u) & 0xffu) << 16u) | (((r7[0] >> 8u) & 0xffu) << 24u),
        ((r8[0] >> 8u) & 0xffu) | (((r9[0] >> 8u) & 0xffu) << 8u) | (((r10[0] >> 8u) & 0xffu) << 16u) | (((r11[0] >> 8u) & 0xffu) << 24u),
        ((r12[0] >> 8u) & 0xffu) | (((r13[0] >> 8u) & 0xffu) << 8u) | (((r14[0] >> 8u) & 0xffu) << 16u) | (((r15[0] >> 8u) & 0xffu) << 24u)));
    dst[d0 + 2u * dv] = canonical(vec4<u32>(
        ((r0[0] >> 16u) & 0xffu) | (((r1[0] >> 16u) & 0xffu) << 8u) | (((r2[0] >> 16u) & 0xffu) << 16u) | (((r3[0] >> 16u) & 0xffu) << 24u),
        ((r4[0] >> 16u) & 0xffu) | (((r5[0] >> 16u) & 0xffu) << 8u) | (((r6[0] >> 16u) & 0xffu) << 16u) | (((r7[0] >> 16u) & 0xffu) << 24u),
        ((r8[0] >> 16u) & 0xffu) | (((r9[0] >> 16u) & 0xffu) << 8u) | (((r10[0] >> 16u) & 0xffu) << 16u) | (((r11[0] >> 16u) & 0xffu) << 24u),
        ((r12[0] >> 16u) & 0xffu) | (((r13[0] >> 16u) & 0xffu) << 8u) | (((r14[0] >> 16u) & 0xffu) << 16u) | (((r15[0] >> 16u) & 0xffu) << 24u)));
    dst[d0 + 3u * dv] = canonical(vec4<u32>(
        ((r0[0] >> 24u) & 0xffu) | (((r1[0] >> 24u) & 0xffu) << 8u) | (((r2[0] >> 24u) & 0xffu) << 16u) | (((r3[0] >> 24u) & 0xffu) << 24u),
        ((r4[0] >> 24u) & 0xffu) | (((r5[0] >> 24u) & 0xffu) << 8u) | (((r6[0] >> 24u) & 0xffu) << 16u) | (((r7[0] >> 24u) & 0xffu) << 24u),
        ((r8[0] >> 24u) & 0xffu) | (((r9[0] >> 24u) & 0xffu) << 8u) | (((r10[0] >> 24u) & 0xffu) << 16u) | (((r11[0] >> 24u) & 0xffu) << 24u),
        ((r12[0] >> 24u) & 0xffu) | (((r13[0] >> 24u) & 0xffu) << 8u) | (((r14[0] >> 24u) & 0xffu) << 16u) | (((r15[0] >> 24u) & 0xffu) << 24u)));
    dst[d0 + 4u * dv] = canonical(vec4<u32>(
        (r0[1] & 0xffu) | ((r1[1] & 0xffu) << 8u) | ((r2[1] & 0xffu) << 16u) | ((r3[1] & 0xffu) << 24u),
        (r4[1] & 0xffu) | ((r5[1] & 0xffu) << 8u) | ((r6[1] & 0xffu) << 16u) | ((r7[1] & 0xffu) << 24u),
        (r8[1] & 0xffu) | ((r9[1] & 0xffu) << 8u) | ((r10[1] & 0xffu) << 16u) | ((r11[1] & 0xffu) << 24u),
        (r12[1] & 0xffu) | ((r13[1] & 0xffu) << 8u) | ((r14[1] & 0xffu) << 16u) | ((r15[1] & 0xffu) << 24u)));
    dst[d0 + 5u * dv] = canonical(vec4<u32>(
        ((r0[1] >> 8u) & 0xffu) | (((r1[1] >> 8u) & 0xffu) << 8u) | (((r2[1] >> 8u) & 0xffu) << 16u) | (((r3[1] >> 8u) & 0xffu) << 24u),
        ((r4[1] >> 8u) & 0xffu) | (((r5[1] >> 8u) & 0xffu) << 8u) | (((r6[1] >> 8u) & 0xffu) << 16u) | (((r7[1] >> 8u) & 0xffu) << 24u),
        ((r8[1] >> 8u) & 0xffu) | (((r9[1] >> 8u) & 0xffu) << 8u) | (((r10[1] >> 8u) & 0xffu) << 16u) | (((r11[1] >> 8u) & 0xffu) << 24u),
        ((r12[1] >> 8u) & 0xffu) | (((r13[1] >> 8u) & 0xffu) << 8u) | (((r14[1] >> 8u) & 0xffu) << 16u) | (((r15[1] >> 8u) & 0xffu) << 24u)));
    dst[d0 + 6u * dv] = canonical(vec4<u32>(
        ((r0[1] >> 16u) & 0xffu) | (((r1[1] >> 16u) & 0xffu) << 8u) | (((r2[1] >> 16u) & 0xffu) << 16u) | (((r3[1] >> 16u) & 0xffu) << 24u),
        ((r4[1] >> 16u) & 0xffu) | (((r5[1] >> 16u) & 0xffu) << 8u) | (((r6[1] >> 16u) & 0xffu) << 16u) | (((r7[1] >> 16u) & 0xffu) << 24u),
        ((r8[1] >> 16u) & 0xffu) | (((r9[1] >> 16u) & 0xffu) << 8u) | (((r10[1] >> 16u) & 0xffu) << 16u) | (((r11[1] >> 16u) & 0xffu) << 24u),
        ((r12[1] >> 16u) & 0xffu) | (((r13[1] >> 16u) & 0xffu) << 8u) | (((r14[1] >> 16u) & 0xffu) << 16u) | (((r15[1] >> 16u) & 0xffu) << 24u)));
    dst[d0 + 7u * dv] = canonical(vec4<u32>(
        ((r0[1] >> 24u) & 0xffu) | (((r1[1] >> 24u) & 0xffu) << 8u) | (((r2[1] >> 24u) & 0xffu) << 16u) | (((r3[1] >> 24u) & 0xffu) << 24u),
        ((r4[1] >> 24u) & 0xffu) | (((r5[1] >> 24u) & 0xffu) << 8u) | (((r6[1] >> 24u) & 0xffu) << 16u) | (((r7[1] >> 24u) & 0xffu) << 24u),
        ((r8[1] >> 24u) & 0xffu) | (((r9[1] >> 24u) & 0xffu) << 8u) | (((r10[1] >> 24u) & 0xffu) << 16u) | (((r11[1] >> 24u) & 0xffu) << 24u),
        ((r12[1] >> 24u) & 0xffu) | (((r13[1] >> 24u) & 0xffu) << 8u) | (((r14[1] >> 24u) & 0xffu) << 16u) | (((r15[1] >> 24u) & 0xffu) << 24u)));
    dst[d0 + 8u * dv] = canonical(vec4<u32>(
        (r0[2] & 0xffu) | ((r1[2] & 0xffu) << 8u) | ((r2[2] & 0xffu) << 16u) | ((r3[2] & 0xffu) << 24u),
        (r4[2] & 0xffu) | ((r5[2] & 0xffu) << 8u) | ((r6[2] & 0xffu) << 16u) | ((r7[2] & 0xffu) << 24u),
        (r8[2] & 0xffu) | ((r9[2] & 0xffu) << 8u) | ((r10[2] & 0xffu) << 16u) | ((r11[2] & 0xffu) << 24u),
        (r12[2] & 0xffu) | ((r13[2] & 0xffu) << 8u) | ((r14[2] & 0xffu) << 16u) | ((r15[2] & 0xffu) << 24u)));
    dst[d0 + 9u * dv] = canonical(vec4<u32>(
        ((r0[2] >> 8u) & 0xffu) | (((r1[2] >> 8u) & 0xffu) << 8u) | (((r2[2] >> 8u) & 0xffu) << 16u) | (((r3[2] >> 8u) & 0xffu) << 24u),
        ((r4[2] >> 8u) & 0xffu) | (((r5[2] >> 8u) & 0xffu) << 8u) | (((r6[2] >> 8u) & 0xffu) << 16u) | (((r7[2] >> 8u) & 0xffu) << 24u),
        ((r8[2] >> 8u) & 0xffu) | (((r9[2] >> 8u) & 0xffu) << 8u) | (((r10[2] >> 8u) & 0xffu) << 16u) | (((r11[2] >> 8u) & 0xffu) << 24u),
        ((r12[2] >> 8u) & 0xffu) | (((r13[2] >> 8u) & 0xffu) << 8u) | (((r14[2] >> 8u) & 0xffu) << 16u) | (((r15[2] >> 8u) & 0xffu) << 24u)));
    dst[d0 + 10u * dv] = canonical(vec4<u32>(
        ((r0[2] >> 16u) & 0xffu) | (((r1[2] >> 16u) & 0xffu) << 8u) | (((r2[2] >> 16u) & 0xffu) << 16u) | (((r3[2] >> 16u) & 0xffu) << 24u),
        ((r4[2] >> 16u) & 0xffu) | (((r5[2] >> 16u) & 0xffu) << 8u) | (((r6[2] >> 16u) & 0xffu) << 16u) | (((r7[2] >> 16u) & 0xffu) << 24u),
        ((r8[2] >> 16u) & 0xffu) | (((r9[2] >> 16u) & 0xffu) << 8u) | (((r10[2] >> 16u) & 0xffu) << 16u) | (((r11[2] >> 16u) & 0xffu) << 24u),
        ((r12[2] >> 16u) & 0xffu) | (((r13[2] >> 16u) & 0xffu) << 8u) | (((r14[2] >> 16u) & 0xffu) << 16u) | (((r15[2] >> 16u) & 0xffu) << 24u)));
    dst[d0 + 11u * dv] = canonical(vec4<u32>(
        ((r0[2] >> 24u) & 0xffu) | (((r1[2] >> 24u) & 0xffu) << 8u) | (((r2[2] >> 24u) & 0xffu) << 16u) | (((r3[2] >> 24u) & 0xffu) << 24u),
        ((r4[2] >> 24u) & 0xffu) | (((r5[2] >> 24u) & 0xffu) << 8u) | (((r6[2] >> 24u) & 0xffu) << 16u) | (((r7[2] >> 24u) & 0xffu) << 24u),
        ((r8[2] >> 24u) & 0xffu) | (((r9[2] >> 24u) & 0xffu) << 8u) | (((r10[2] >> 24u) & 0xffu) << 16u) | (((r11[2] >> 24u) & 0xffu) << 24u),
        ((r12[2] >> 24u) & 0xffu) | (((r13[2] >> 24u) & 0xffu) << 8u) | (((r14[2] >> 24u) & 0xffu) << 16u) | (((r15[2] >> 24u) & 0xffu) << 24u)));
    dst[d0 + 12u * dv] = canonical(vec4<u32>(
        (r0[3] & 0xffu) | ((r1[3] & 0xffu) << 8u) | ((r2[3] & 0xffu) << 16u) | ((r3[3] & 0xffu) << 24u),
        (r4[3] & 0xffu) | ((r5[3] & 0xffu) << 8u) | ((r6[3] & 0xffu) << 16u) | ((r7[3] & 0xffu) << 24u),
        (r8[3] & 0xffu) | ((r9[3] & 0xffu) << 8u) | ((r10[3] & 0xffu) << 16u) | ((r11[3] & 0xffu) << 24u),
        (r12[3] & 0xffu) | ((r13[3] & 0xffu) << 8u) | ((r14[3] & 0xffu) << 16u) | ((r15[3] & 0xffu) << 24u)));
    dst[d0 + 13u * dv] = canonical(vec4<u32>(
        ((r0[3] >> 8u) & 0xffu) | (((r1[3] >> 8u) & 0xffu) << 8u) | (((r2[3] >> 8u) & 0xffu) << 16u) | (((r3[3] >> 8u) & 0xffu) << 24u),
        ((r4[3] >> 8u) & 0xffu) | (((r5[3] >> 8u) & 0xffu) << 8u) | (((r6[3] >> 8u) & 0xffu) << 16u) | (((r7[3] >> 8u) & 0xffu) << 24u),
        ((r8[3] >> 8u) & 0xffu) | (((r9[3] >> 8u) & 0xffu) << 8u) | (((r10[3] >> 8u) & 0xffu) << 16u) | (((r11[3] >> 8u) & 0xffu) << 24u),
        ((r12[3] >> 8u) & 0xffu) | (((r13[3] >> 8u) & 0xffu) << 8u) | (((r14[3] >> 8u) & 0xffu) << 16u) | (((r15[3] >> 8u) & 0xffu) << 24u)));
    dst[d0 + 14u * dv] = canonical(vec4<u32>(
        ((r0[3] >> 16u) & 0xffu) | (((r1[3] >> 16u) & 0xffu) << 8u) | (((r2[3] >> 16u) & 0xffu) << 16u) | (((r3[3] >> 16u) & 0xffu) << 24u),
        ((r4[3] >> 16u) & 0xffu) | (((r5[3] >> 16u) & 0xffu) << 8u) | (((r6[3] >> 16u) & 0xffu) << 16u) | (((r7[3] >> 16u) & 0xffu) << 24u),
        ((r8[3] >> 16u) & 0xffu) | (((r9[3] >> 16u) & 0xffu) << 8u) | (((r10[3] >> 16u) & 0xffu) << 16u) | (((r11[3] >> 16u) & 0xffu) << 24u),
        ((r12[3] >> 16u) & 0xffu) | (((r13[3] >> 16u) & 0xffu) << 8u) | (((r14[3] >> 16u) & 0xffu) << 16u) | (((r15[3] >> 16u) & 0xffu) << 24u)));
    dst[d0 + 15u * dv] = canonical(vec4<u32>(
        ((r0[3] >> 24u) & 0xffu) | (((r1[3] >> 24u) & 0xffu) << 8u) | (((r2[3] >> 24u) & 0xffu) << 16u) | (((r3[3] >> 24u) & 0xffu) << 24u),
        ((r4[3] >> 24u) & 0xffu) | (((r5[3] >> 24u) & 0xffu) << 8u) | (((r6[3] >> 24u) & 0xffu) << 16u) | (((r7[3] >> 24u) & 0xffu) << 24u),
        ((r8[3] >> 24u) & 0xffu) | (((r9[3] >> 24u) & 0xffu) << 8u) | (((r10[3] >> 24u) & 0xffu) << 16u) | (((r11[3] >> 24u) & 0xffu) << 24u),
        ((r12[3] >> 24u) & 0xffu) | (((r13[3] >> 24u) & 0xffu) << 8u) | (((r14[3] >> 24u) & 0xffu) << 16u) | (((r15[3] >> 24u) & 0xffu) << 24u)));
}

// One 8x8 tile of 2-byte elements: 8 vec4 loads, 8 vec4 stores.
fn tile_2(s0: u32, sv: u32, d0: u32, dv: u32) {
    let r0 = src[s0 + 0u * sv];
    let r1 = src[s0 + 1u * sv];
    let r2 = src[s0 + 2u * sv];
    let r3 = src[s0 + 3u * sv];
    let r4 = src[s0 + 4u * sv];
    let r5 = src[s0 + 5u * sv];
    let r6 = src[s0 + 6u * sv];
    let r7 = src[s0 + 7u * sv];
    dst[d0 + 0u * dv] = canonical(vec4<u32>(
        (r0[0] & 0xffffu) | (r1[0] << 16u),
        (r2[0] & 0xffffu) | (r3[0] << 16u),
        (r4[0] & 0xffffu) | (r5[0] << 16u),
        (r6[0] & 0xffffu) | (r7[0] << 16u)));
    dst[d0 + 1u * dv] = canonical(vec4<u32>(
        ((r0[0] >> 16u) & 0xffffu) | ((r1[0] >> 16u) << 16u),
        ((r2[0] >> 16u) & 0xffffu) | ((r3[0] >> 16u) << 16u),
        ((r4[0] >> 16u) & 0xffffu) | ((r5[0] >> 16u) << 16u),
        ((r6[0] >> 16u) & 0xffffu) | ((r7[0] >> 16u) << 16u)));
    dst[d0 + 2u * dv] = canonical(vec4<u32>(
        (r0[1] & 0xffffu) | (r1[1] << 16u),
        (r2[1] & 0xffffu) | (r3[1] << 16u),
        (r4[1] & 0xffffu) | (r5[1] << 16u),
        (r6[1] & 0xffffu) | (r7[1] << 16u)));
    dst[d0 + 3u * dv] = canonical(vec4<u32>(
        ((r0[1] >> 16u) & 0xffffu) | ((r1[1] >> 16u) << 16u),
        ((r2[1] >> 16u) & 0xffffu) | ((r3[1] >> 16u) << 16u),
        ((r4[1] >> 16u) & 0xffffu) | ((r5[1] >> 16u) << 16u),
        ((r6[1] >> 16u) & 0xffffu) | ((r7[1] >> 16u) << 16u)));
    dst[d0 + 4u * dv] = canonical(vec4<u32>(
        (r0[2] & 0xffffu) | (r1[2] << 16u),
        (r2[2] & 0xffffu) | (r3[2] << 16u),
        (r4[2] & 0xffffu) | (r5[2] << 16u),
        (r6[2] & 0xffffu) | (r7[2] << 16u)));
    dst[d0 + 5u * dv] = canonical(vec4<u32>(
        ((r0[2] >> 16u) & 0xffffu) | ((r1[2] >> 16u) << 16u),
        ((r2[2] >> 16u) & 0xffffu) | ((r3[2] >> 16u) << 16u),
        ((r4[2] >> 16u) & 0xffffu) | ((r5[2] >> 16u) << 16u),
        ((r6[2] >> 16u) & 0xffffu) | ((r7[2] >> 16u) << 16u)));
    dst[d0 + 6u * dv] = canonical(vec4<u32>(
        (r0[3] & 0xffffu) | (r1[3] << 16u),
        (r2[3] & 0xffffu) | (r3[3] << 16u),
        (r4[3] & 0xffffu) | (r5[3] << 16u),
        (r6[3] & 0xffffu) | (r7[3] << 16u)));
    dst[d0 + 7u * dv] = canonical(vec4<u32>(
        ((r0[3] >> 16u) & 0xffffu) | ((r1[3] >> 16u) << 16u),
        ((r2[3] >> 16u) & 0xffffu) | ((r3[3] >> 16u) << 16u),
        ((r4[3] >> 16u) & 0xffffu) | ((r5[3] >> 16u) << 16u),
        ((r6[3] >> 16u) & 0xffffu) | ((r7[3] >> 16u) << 16u)));
}

// One 4x4 tile of 4-byte elements: 4 vec4 loads, 4 vec4 stores.
fn tile_4(s0: u32, sv: u32, d0: u32, dv: u32) {
    let r0 = src[s0 + 0u * sv];
    let r1 = src[s0 + 1u * sv];
    let r2 = src[s0 + 2u * sv];
    let r3 = src[s0 + 3u * sv];
    dst[d0 + 0u * dv] = canonical(vec4<u32>(r0[0], r1[0], r2[0], r3[0]));
    dst[d0 + 1u * dv] = canonical(vec4<u32>(r0[1], r1[1], r2[1], r3[1]));
    dst[d0 + 2u * dv] = canonical(vec4<u32>(r0[2], r1[2], r2[2], r3[2]));
    dst[d0 + 3u * dv] = canonical(vec4<u32>(r0[3], r1[3], r2[3], r3[3]));
}

// One 2x2 tile of 8-byte elements: 2 vec4 loads, 2 vec4 stores.
fn tile_8(s0: u32, sv: u32, d0: u32, dv: u32) {
    let r0 = src[s0 + 0u * sv];
    let r1 = src[s0 + 1u * sv];
    dst[d0 + 0u * dv] = canonical(vec4<u32>(r0[0], r0[1], r1[0], r1[1]));
    dst[d0 + 1u * dv] = canonical(vec4<u32>(r0[2], r0[3], r1[2], r1[3]));
}

// Each invocation transposes a block of SB x SB tiles, walking down its columns: every
// source row it reads and every destination row it writes is a run of SB vec4s (a whole
// 64-byte cache line), which is what makes a CPU adapter's per-lane memory accesses fast.
const SB: u32 = 4u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let T = 16u / ELEM_BYTES;
    let g = invocation_index(gid, groups);
    let tpr = params.tiles_per_row;
    let tile_rows = params.rows / T;
    let bcols = (tpr + SB - 1u) / SB;
    let brows = (tile_rows + SB - 1u) / SB;
    if g >= params.batch * bcols * brows {
        return;
    }
    let bc = g % bcols;
    let rest = g / bcols;
    let br = rest % brows;
    let b = rest / brows;
    let sc = params.src_col_stride;
    let sv = sc / T;
    let dv = params.cols / T;
    let tr0 = br * SB;
    let tc0 = bc * SB;
    let tr1 = min(tr0 + SB, tile_rows);
    let tc1 = min(tc0 + SB, tpr);
    for (var tc = tc0; tc < tc1; tc = tc + 1u) {
        for (var tr = tr0; tr < tr1; tr = tr + 1u) {
            let s0 = (params.src_offset + b * params.src_batch_stride + tc * T * sc + tr * T) / T;
            let d0 = (params.dst_offset + b * params.rows * params.cols + tr * T * params.cols + tc * T) / T;
            switch ELEM_BYTES {
                case 1u: { tile_1(s0, sv, d0, dv); }
                case 2u: { tile_2(s0, sv, d0, dv); }
                case 4u: { tile_4(s0, sv, d0, dv); }
                default: { tile_8(s0, sv, d0, dv); }
            }
        }
    }
}

// The workgroup-memory tiled transpose for GPUs (where barriers are cheap and memory wants
// coalesced accesses): a 32 x 8 workgroup moves a 32 x 32 tile of 4- or 8-byte elements
// through workgroup memory padded to 33 columns (no bank conflicts), reading source rows
// and writing destination rows with consecutive invocations on consecutive elements.
// Host preconditions as for `main`; rows and cols need not be multiples of 32.
const SHARED_TILE: u32 = 32u;
var<workgroup> shared_tile: array<vec2<u32>, 1056>;

fn load_element(e: u32) -> vec2<u32> {
    if ELEM_BYTES == 8u {
        let w = 2u * e;
        return vec2<u32>(src[w / 4u][w % 4u], src[(w + 1u) / 4u][(w + 1u) % 4u]);
    }
    return vec2<u32>(src[e / 4u][e % 4u], 0u);
}

fn store_element(e: u32, v: vec2<u32>) {
    if ELEM_BYTES == 8u {
        let w = 2u * e;
        dst[w / 4u][w % 4u] = v.x;
        dst[(w + 1u) / 4u][(w + 1u) % 4u] = v.y;
    } else {
        dst[e / 4u][e % 4u] = canonical(vec4<u32>(v.x, 0u, 0u, 0u)).x;
    }
}

@compute @workgroup_size(32, 8)
fn shared_main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
) {
    let tiles_x = (params.cols + SHARED_TILE - 1u) / SHARED_TILE;
    let tiles_y = (params.rows + SHARED_TILE - 1u) / SHARED_TILE;
    let id = wg.x + wg.y * groups.x;
    if id >= params.batch * tiles_x * tiles_y {
        return;
    }
    let tx = id % tiles_x;
    let rest = id / tiles_x;
    let ty = rest % tiles_y;
    let b = rest / tiles_y;
    let src_base = params.src_offset + b * params.src_batch_stride;
    let dst_base = params.dst_offset + b * params.rows * params.cols;
    // Load: source row c (a destination column), consecutive invocations on consecutive r.
    for (var i = 0u; i < SHARED_TILE; i = i + 8u) {
        let c = tx * SHARED_TILE + local.y + i;
        let r = ty * SHARED_TILE + local.x;
        if c < params.cols && r < params.rows {
            shared_tile[(local.y + i) * (SHARED_TILE + 1u) + local.x] =
                load_element(src_base + c * params.src_col_stride + r);
        }
    }
    workgroupBarrier();
    // Store: destination row r, consecutive invocations on consecutive c.
    for (var i = 0u; i < SHARED_TILE; i = i + 8u) {
        let r = ty * SHARED_TILE + local.y + i;
        let c = tx * SHARED_TILE + local.x;
        if c < params.cols && r < params.rows {
            store_element(dst_base + r * params.cols + c, shared_tile[local.x * (SHARED_TILE + 1u) + local.y + i]);
        }
    }
}
