// The strided gather: dst[i] = convert(src[i]) for every element of two views of equal
// shape, any strides and offsets, any pair of dtypes. The layout-conversion workhorse:
// contiguous(), clone(), to(memory_format), to(dtype), copy_.
//
// The host reorders dims by destination stride and collapses dims that stay contiguous
// together, so `shape` is usually short. Two modes:
//   * mode 0, dense destination: the destination view is one contiguous run; invocation `t`
//     owns whole destination units (u32 words for 1- and 2-byte dtypes, elements otherwise)
//     and writes every word once. Only the words at the ends of the run, shared with bytes
//     outside the view, are read-modify-written, each by the one invocation that owns it.
//   * mode 1, any destination: invocation `t` walks `per_invocation` consecutive elements.
//     For 1- and 2-byte dtypes the host runs one dispatch per byte lane (`lane`), and an
//     invocation only stores the elements in that lane, so no two invocations of a dispatch
//     touch the same word. `lane == ALL_LANES` (a single serial invocation) stores all.
// Every invocation walks its elements with an incrementally updated multi-index: one
// div/mod per dimension when it starts, none per element.

struct GatherParams {
    n: u32,
    rank: u32,
    per_invocation: u32,
    mode: u32,
    lane: u32,
    dst_offset: u32,
    src_offset: u32,
    pad: u32,
    shape: array<vec4<u32>, 2>,
    dst_stride: array<vec4<u32>, 2>,
    src_stride: array<vec4<u32>, 2>,
}

override SRC_T: u32 = 8u;
override DST_T: u32 = 8u;

@group(0) @binding(0) var<uniform> params: GatherParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;

var<private> idx: array<u32, 8>;
var<private> shp: array<u32, 8>;
var<private> dstr: array<u32, 8>;
var<private> sstr: array<u32, 8>;

fn load_src(e: u32) -> vec2<u32> {
    let b = dt_bytes(SRC_T);
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

fn dst_lane(e: u32) -> u32 {
    let b = dt_bytes(DST_T);
    if b == 1u {
        return e & 3u;
    }
    if b == 2u {
        return e & 1u;
    }
    return 0u;
}

fn element(spos: u32) -> vec2<u32> {
    return convert_raw(SRC_T, DST_T, load_src(spos));
}

// Loads the layout and positions the multi-index at linear element `lin`.
fn seek(lin: u32) -> vec2<u32> {
    let rank = params.rank;
    for (var d = 0u; d < rank; d = d + 1u) {
        shp[d] = params.shape[d / 4u][d % 4u];
        dstr[d] = params.dst_stride[d / 4u][d % 4u];
        sstr[d] = params.src_stride[d / 4u][d % 4u];
    }
    var rest = lin;
    var pos = vec2<u32>(params.dst_offset, params.src_offset);
    for (var k = 0u; k < rank; k = k + 1u) {
        let d = rank - 1u - k;
        let i = rest % shp[d];
        rest = rest / shp[d];
        idx[d] = i;
        pos = pos + vec2<u32>(i * dstr[d], i * sstr[d]);
    }
    return pos;
}

// Moves the multi-index past the end of its innermost row (whose index was reset to 0 and
// whose positions were rewound by the caller).
fn carry(pos_in: vec2<u32>) -> vec2<u32> {
    var pos = pos_in;
    for (var k = 2u; k <= params.rank; k = k + 1u) {
        let d = params.rank - k;
        idx[d] = idx[d] + 1u;
        pos = pos + vec2<u32>(dstr[d], sstr[d]);
        if idx[d] < shp[d] {
            return pos;
        }
        idx[d] = 0u;
        pos = pos - vec2<u32>(dstr[d] * shp[d], sstr[d] * shp[d]);
    }
    return pos;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = invocation_index(gid, groups);
    let n = params.n;
    let per = params.per_invocation;
    let last = params.rank - 1u;
    if params.mode == 0u {
        let b = dt_bytes(DST_T);
        let per_unit = select(1u, 4u / b, b < 4u);
        let off = params.dst_offset;
        let first_unit = off / per_unit;
        let end_unit = (off + n + per_unit - 1u) / per_unit;
        let u_begin = first_unit + t * per;
        if u_begin >= end_unit {
            return;
        }
        let u_end = min(u_begin + per, end_unit);
        let lin0 = max(u_begin * per_unit, off) - off;
        var pos = seek(lin0);
        var i0 = idx[last];
        let n0 = shp[last];
        let step = sstr[last];
        if b >= 4u {
            for (var u = u_begin; u < u_end; u = u + 1u) {
                let v = element(pos.y);
                if b == 4u {
                    dst[u] = v.x;
                } else {
                    dst[2u * u] = v.x;
                    dst[2u * u + 1u] = v.y;
                }
                i0 = i0 + 1u;
                pos.y = pos.y + step;
                if i0 == n0 {
                    i0 = 0u;
                    pos.y = pos.y - step * n0;
                    pos = carry(pos);
                }
            }
        } else {
            let bits = b * 8u;
            let m = elem_mask(b);
            let end_elem = off + n;
            for (var u = u_begin; u < u_end; u = u + 1u) {
                var word = 0u;
                var covered = 0u;
                for (var k = 0u; k < per_unit; k = k + 1u) {
                    let e = u * per_unit + k;
                    if e >= off && e < end_elem {
                        let v = element(pos.y);
                        word = word | ((v.x & m) << (k * bits));
                        covered = covered | (m << (k * bits));
                        i0 = i0 + 1u;
                        pos.y = pos.y + step;
                        if i0 == n0 {
                            i0 = 0u;
                            pos.y = pos.y - step * n0;
                            pos = carry(pos);
                        }
                    }
                }
                if covered != 0xffffffffu {
                    word = word | (dst[u] & ~covered);
                }
                dst[u] = word;
            }
        }
        return;
    }
    let start = t * per;
    if start >= n {
        return;
    }
    let end = min(start + per, n);
    var pos = seek(start);
    var i0 = idx[last];
    let n0 = shp[last];
    let dstep = dstr[last];
    let sstep = sstr[last];
    let lane = params.lane;
    for (var l = start; l < end; l = l + 1u) {
        if lane == ALL_LANES || dst_lane(pos.x) == lane {
            store_dst(pos.x, element(pos.y));
        }
        i0 = i0 + 1u;
        pos = pos + vec2<u32>(dstep, sstep);
        if i0 == n0 {
            i0 = 0u;
            pos = pos - vec2<u32>(dstep * n0, sstep * n0);
            pos = carry(pos);
        }
    }
}

