// Register-tiled batched transpose: dst[b][r][c] = src[b * sb + c * sc + r], destination
// dense, same dtype on both sides. This is what contiguous() of `.t()`, NCHW <-> NHWC and
// most permutes become once the host collapses the dims that stay contiguous together.
//
// A tile is T x T elements with T = 16 / ELEM_BYTES, so one tile row is one vec4<u32>: an
// invocation loads T vec4s (T source rows), transposes them in registers (shuffling bytes
// or halves for the packed dtypes) and stores T vec4s (T destination rows), each a whole
// set of words no other invocation touches. On CPU adapters (lavapipe) workgroup barriers
// are expensive, so there is no workgroup-memory staging: each invocation walks TILES tiles
// down the rows, reading whole cache lines of each source row, while its neighbours take
// the next columns and so fill whole cache lines of each destination row.
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
const TILES: u32 = 4u;

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

fn half_of(v: vec4<u32>, j: u32) -> u32 {
    return (v[j / 2u] >> ((j % 2u) * 16u)) & 0xffffu;
}

fn byte_of(v: vec4<u32>, j: u32) -> u32 {
    return (v[j / 4u] >> ((j % 4u) * 8u)) & 0xffu;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let T = 16u / ELEM_BYTES;
    let g = invocation_index(gid, groups);
    let tpr = params.tiles_per_row;
    let tile_rows = params.rows / T;
    let bands = (tile_rows + TILES - 1u) / TILES;
    if g >= params.batch * bands * tpr {
        return;
    }
    let tc = g % tpr;
    let rest = g / tpr;
    let band = rest % bands;
    let b = rest / bands;
    let sc = params.src_col_stride;
    var inp: array<vec4<u32>, 16>;
    for (var s = 0u; s < TILES; s = s + 1u) {
        let tr = band * TILES + s;
        if tr >= tile_rows {
            break;
        }
        let src_base = params.src_offset + b * params.src_batch_stride + tc * T * sc + tr * T;
        for (var k = 0u; k < T; k = k + 1u) {
            inp[k] = src[(src_base + k * sc) / T];
        }
        let dst_base = params.dst_offset + b * params.rows * params.cols + tr * T * params.cols + tc * T;
        for (var j = 0u; j < T; j = j + 1u) {
            var o: vec4<u32>;
            if ELEM_BYTES == 4u {
                o = vec4<u32>(inp[0][j], inp[1][j], inp[2][j], inp[3][j]);
            } else if ELEM_BYTES == 8u {
                o = vec4<u32>(inp[0][2u * j], inp[0][2u * j + 1u], inp[1][2u * j], inp[1][2u * j + 1u]);
            } else if ELEM_BYTES == 2u {
                for (var w = 0u; w < 4u; w = w + 1u) {
                    o[w] = half_of(inp[2u * w], j) | (half_of(inp[2u * w + 1u], j) << 16u);
                }
            } else {
                for (var w = 0u; w < 4u; w = w + 1u) {
                    o[w] = byte_of(inp[4u * w], j) | (byte_of(inp[4u * w + 1u], j) << 8u)
                        | (byte_of(inp[4u * w + 2u], j) << 16u) | (byte_of(inp[4u * w + 3u], j) << 24u);
                }
            }
            dst[(dst_base + j * params.cols) / T] = canonical(o);
        }
    }
}
