// Tiled 2-D matmul, dst[m, n] = sum_k a[m, k] * b[k, n], for integer and bool dtypes, as
// cpu.rs's `matmul`: wrapping 64-bit sums of wrapping products on (lo, hi) pairs (the order
// of a wrapping sum does not matter), bools as "any(a and b)". Float matmuls accumulate in
// f64 on the CPU engine (WGSL has no f64).
//
// An 8x8 workgroup computes an 8x8 block of the output; A and B pass through workgroup
// memory in 8x8 tiles. Outputs of 1- and 2-byte dtypes are stored in one dispatch per byte
// lane, so two invocations never write the same word.

struct MatmulParams {
    m: u32,
    n: u32,
    k: u32,
    lane: u32,
    a_t: u32,
    dst_t: u32,
    a_offset: u32,
    b_offset: u32,
    dst_offset: u32,
    a_row: u32,
    a_col: u32,
    b_row: u32,
    b_col: u32,
    dst_row: u32,
    dst_col: u32,
    pad: u32,
}

const TILE: u32 = 8u;

@group(0) @binding(0) var<uniform> params: MatmulParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> a_buf: array<u32>;
@group(0) @binding(3) var<storage, read> b_buf: array<u32>;

var<workgroup> a_tile: array<vec2<u32>, 64>;
var<workgroup> b_tile: array<vec2<u32>, 64>;

fn word_of(which: u32, w: u32) -> u32 {
    if which == 0u {
        return a_buf[w];
    }
    return b_buf[w];
}

fn load_value(which: u32, e: u32) -> vec2<u32> {
    let t = params.a_t;
    let b = dt_bytes(t);
    var raw: vec2<u32>;
    if b == 1u {
        raw = vec2<u32>((word_of(which, e >> 2u) >> ((e & 3u) * 8u)) & 0xffu, 0u);
    } else if b == 2u {
        raw = vec2<u32>((word_of(which, e >> 1u) >> ((e & 1u) * 16u)) & 0xffffu, 0u);
    } else if b == 4u {
        raw = vec2<u32>(word_of(which, e), 0u);
    } else {
        raw = vec2<u32>(word_of(which, 2u * e), word_of(which, 2u * e + 1u));
    }
    return decode(t, raw);
}

fn store_dst(e: u32, raw: vec2<u32>) {
    let b = dt_bytes(params.dst_t);
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

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let row = wg.y * TILE + local.y;
    let col = wg.x * TILE + local.x;
    var acc = vec2<u32>(0u, 0u);
    let tiles = (params.k + TILE - 1u) / TILE;
    for (var tk = 0u; tk < tiles; tk = tk + 1u) {
        let ka = tk * TILE + local.x;
        var av = vec2<u32>(0u, 0u);
        if row < params.m && ka < params.k {
            av = load_value(0u, params.a_offset + row * params.a_row + ka * params.a_col);
        }
        a_tile[local.y * TILE + local.x] = av;
        let kb = tk * TILE + local.y;
        var bv = vec2<u32>(0u, 0u);
        if col < params.n && kb < params.k {
            bv = load_value(1u, params.b_offset + kb * params.b_row + col * params.b_col);
        }
        b_tile[local.y * TILE + local.x] = bv;
        workgroupBarrier();
        for (var i = 0u; i < TILE; i = i + 1u) {
            acc = u64_add(acc, u64_mul(a_tile[local.y * TILE + i], b_tile[i * TILE + local.x]));
        }
        workgroupBarrier();
    }
    if row >= params.m || col >= params.n {
        return;
    }
    let e = params.dst_offset + row * params.dst_row + col * params.dst_col;
    let b = dt_bytes(params.dst_t);
    var my_lane = 0u;
    if b == 1u {
        my_lane = e & 3u;
    } else if b == 2u {
        my_lane = e & 1u;
    }
    if params.lane != ALL_LANES && my_lane != params.lane {
        return;
    }
    store_dst(e, encode(params.dst_t, acc, false));
}
