// Fill: dst[i] = value for every element of a strided destination view. The host converts
// the value to the destination dtype's bits (`DType::write`), so the kernel only stores.
// Modes as in gather.wgsl: 0 = dense destination (each invocation owns whole words),
// 1 = any destination, one dispatch per byte lane for 1- and 2-byte dtypes.

struct FillParams {
    n: u32,
    rank: u32,
    per_invocation: u32,
    mode: u32,
    lane: u32,
    dst_offset: u32,
    value_lo: u32,
    value_hi: u32,
    shape: array<vec4<u32>, 2>,
    dst_stride: array<vec4<u32>, 2>,
}

override DST_BYTES: u32 = 4u;

@group(0) @binding(0) var<uniform> params: FillParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

var<private> idx: array<u32, 8>;
var<private> shp: array<u32, 8>;
var<private> dstr: array<u32, 8>;

fn seek(lin: u32) -> u32 {
    let rank = params.rank;
    for (var d = 0u; d < rank; d = d + 1u) {
        shp[d] = params.shape[d / 4u][d % 4u];
        dstr[d] = params.dst_stride[d / 4u][d % 4u];
    }
    var rest = lin;
    var pos = params.dst_offset;
    for (var k = 0u; k < rank; k = k + 1u) {
        let d = rank - 1u - k;
        let i = rest % shp[d];
        rest = rest / shp[d];
        idx[d] = i;
        pos = pos + i * dstr[d];
    }
    return pos;
}

fn carry(pos_in: u32) -> u32 {
    var pos = pos_in;
    for (var k = 2u; k <= params.rank; k = k + 1u) {
        let d = params.rank - k;
        idx[d] = idx[d] + 1u;
        pos = pos + dstr[d];
        if idx[d] < shp[d] {
            return pos;
        }
        idx[d] = 0u;
        pos = pos - dstr[d] * shp[d];
    }
    return pos;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = invocation_index(gid, groups);
    let n = params.n;
    let per = params.per_invocation;
    let b = DST_BYTES;
    let m = elem_mask(b);
    if params.mode == 0u {
        let per_unit = select(1u, 4u / b, b < 4u);
        let off = params.dst_offset;
        let first_unit = off / per_unit;
        let end_unit = (off + n + per_unit - 1u) / per_unit;
        let u_begin = first_unit + t * per;
        if u_begin >= end_unit {
            return;
        }
        let u_end = min(u_begin + per, end_unit);
        if b == 8u {
            for (var u = u_begin; u < u_end; u = u + 1u) {
                dst[2u * u] = params.value_lo;
                dst[2u * u + 1u] = params.value_hi;
            }
            return;
        }
        var pattern = params.value_lo & m;
        if b == 1u {
            pattern = pattern * 0x01010101u;
        } else if b == 2u {
            pattern = pattern | (pattern << 16u);
        }
        let end_elem = off + n;
        for (var u = u_begin; u < u_end; u = u + 1u) {
            var covered = 0xffffffffu;
            if b < 4u && (u * per_unit < off || (u + 1u) * per_unit > end_elem) {
                covered = 0u;
                for (var k = 0u; k < per_unit; k = k + 1u) {
                    let e = u * per_unit + k;
                    if e >= off && e < end_elem {
                        covered = covered | (m << (k * b * 8u));
                    }
                }
            }
            if covered == 0xffffffffu {
                dst[u] = pattern;
            } else {
                dst[u] = (dst[u] & ~covered) | (pattern & covered);
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
    let last = params.rank - 1u;
    var i0 = idx[last];
    let n0 = shp[last];
    let step = dstr[last];
    let lane = params.lane;
    for (var l = start; l < end; l = l + 1u) {
        let e = pos;
        if b == 1u {
            if lane == ALL_LANES || (e & 3u) == lane {
                let sh = (e & 3u) * 8u;
                dst[e >> 2u] = (dst[e >> 2u] & ~(0xffu << sh)) | ((params.value_lo & 0xffu) << sh);
            }
        } else if b == 2u {
            if lane == ALL_LANES || (e & 1u) == lane {
                let sh = (e & 1u) * 16u;
                dst[e >> 1u] = (dst[e >> 1u] & ~(0xffffu << sh)) | ((params.value_lo & 0xffffu) << sh);
            }
        } else if b == 4u {
            dst[e] = params.value_lo;
        } else {
            dst[2u * e] = params.value_lo;
            dst[2u * e + 1u] = params.value_hi;
        }
        i0 = i0 + 1u;
        pos = pos + step;
        if i0 == n0 {
            i0 = 0u;
            pos = pos - step * n0;
            pos = carry(pos);
        }
    }
}
