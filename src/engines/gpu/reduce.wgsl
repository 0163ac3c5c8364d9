// Reductions along dims into the keepdim-shaped output, as cpu.rs's `reduce`: one invocation
// per output element walks its reduced elements in row-major order (the CPU's order).
//   * sum and mean of integers and bools: wrapping 64-bit sums on (lo, hi) pairs;
//   * amax / amin of every dtype: the first element that no later one beats, NaNs winning
//     (the first NaN), compared exactly (f64 order on the bits, -0 == +0).
// Float sums accumulate in f64 on the CPU engine (WGSL has no f64), so they do not come here.
// Outputs of 1- and 2-byte dtypes are written in one dispatch per byte lane, so two
// invocations never write the same word.

struct ReduceParams {
    n_out: u32,
    out_rank: u32,
    red_rank: u32,
    op: u32,
    lane: u32,
    src_t: u32,
    dst_t: u32,
    src_offset: u32,
    dst_offset: u32,
    n_red: u32,
    pad0: u32,
    pad1: u32,
    out_shape: array<vec4<u32>, 2>,
    out_src_stride: array<vec4<u32>, 2>,
    out_dst_stride: array<vec4<u32>, 2>,
    red_shape: array<vec4<u32>, 2>,
    red_src_stride: array<vec4<u32>, 2>,
}

const OP_SUM: u32 = 0u;
const OP_AMAX: u32 = 2u;

@group(0) @binding(0) var<uniform> params: ReduceParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;

fn load_src(t: u32, e: u32) -> vec2<u32> {
    let b = dt_bytes(t);
    if b == 1u {
        return vec2<u32>((src[e >> 2u] >> ((e & 3u) * 8u)) & 0xffu, 0u);
    }
    if b == 2u {
        return vec2<u32>((src[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu, 0u);
    }
    if b == 4u {
        return vec2<u32>(src[e], 0u);
    }
    return vec2<u32>(src[2u * e], src[2u * e + 1u]);
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

// -1 / 0 / 1 comparing two canonical values (f64 bits when `is_float`, else i64).
fn compare(x: vec2<u32>, y: vec2<u32>, is_float: bool) -> i32 {
    if is_float {
        if ((x.y | y.y) & 0x7fffffffu) == 0u && (x.x | y.x) == 0u {
            return 0;
        }
        let kx = select(vec2<u32>(x.x, x.y | 0x80000000u), ~x, (x.y >> 31u) != 0u);
        let ky = select(vec2<u32>(y.x, y.y | 0x80000000u), ~y, (y.y >> 31u) != 0u);
        if kx.y != ky.y {
            return select(1, -1, kx.y < ky.y);
        }
        if kx.x != ky.x {
            return select(1, -1, kx.x < ky.x);
        }
        return 0;
    }
    if i64_lt(x, y) {
        return -1;
    }
    if i64_lt(y, x) {
        return 1;
    }
    return 0;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = invocation_index(gid, groups);
    if t >= params.n_out {
        return;
    }
    // Output element t: its source base and destination position.
    var rest = t;
    var sbase = params.src_offset;
    var dpos = params.dst_offset;
    for (var k = 0u; k < params.out_rank; k = k + 1u) {
        let d = params.out_rank - 1u - k;
        let n = params.out_shape[d / 4u][d % 4u];
        let i = rest % n;
        rest = rest / n;
        sbase = sbase + i * params.out_src_stride[d / 4u][d % 4u];
        dpos = dpos + i * params.out_dst_stride[d / 4u][d % 4u];
    }
    let b = dt_bytes(params.dst_t);
    var my_lane = 0u;
    if b == 1u {
        my_lane = dpos & 3u;
    } else if b == 2u {
        my_lane = dpos & 1u;
    }
    if params.lane != ALL_LANES && my_lane != params.lane {
        return;
    }
    var shp: array<u32, 8>;
    var str: array<u32, 8>;
    var idx: array<u32, 8>;
    let rr = params.red_rank;
    for (var d = 0u; d < rr; d = d + 1u) {
        shp[d] = params.red_shape[d / 4u][d % 4u];
        str[d] = params.red_src_stride[d / 4u][d % 4u];
        idx[d] = 0u;
    }
    let st = params.src_t;
    let is_float = dt_is_float(st);
    var acc = vec2<u32>(0u, 0u);
    var best_raw = vec2<u32>(0u, 0u);
    var best = vec2<u32>(0u, 0u);
    var have = false;
    var best_nan = false;
    var pos = sbase;
    for (var l = 0u; l < params.n_red; l = l + 1u) {
        let raw = load_src(st, pos);
        let v = decode(st, raw);
        if params.op <= 1u {
            acc = u64_add(acc, v);
        } else if !best_nan {
            let nan = is_float && f64_is_nan(v);
            var take = false;
            if !have || nan {
                take = true;
            } else {
                let c = compare(best, v, is_float);
                take = select(c > 0, c < 0, params.op == OP_AMAX);
            }
            if take {
                best = v;
                best_raw = raw;
                have = true;
                best_nan = nan;
            }
        }
        // Next reduced element, row-major.
        var k = rr;
        loop {
            if k == 0u {
                break;
            }
            k = k - 1u;
            idx[k] = idx[k] + 1u;
            pos = pos + str[k];
            if idx[k] < shp[k] {
                break;
            }
            pos = pos - str[k] * shp[k];
            idx[k] = 0u;
        }
    }
    var out: vec2<u32>;
    if params.op <= 1u {
        out = encode(params.dst_t, acc, false);
    } else {
        out = convert_raw(st, params.dst_t, best_raw);
    }
    store_dst(dpos, out);
}
