// The min/max/mean pyramid of a heatmap's cells, and its range (the min/max reduction).
// Built once when the data change (`src/render/pyramid.rs` is the reference: the same
// combination, in the same order, so the same bits).
//
// Level L >= 1 is an array of [min, max, mean, 0] nodes (f32 bits in a vec4<u32>, so that
// no NaN is ever a float constant; row-major) starting at
// node `dst_base`; node (r, c) combines the nodes (2r, 2c), (2r, 2c+1), (2r+1, 2c),
// (2r+1, 2c+1) of level L-1 (level 0: the cells themselves), skipping those outside the
// grid and those without a finite value. `build_cells` makes level 1 from the cells,
// `build_level` the others, `finalize` writes the range [lo, hi, inv_span].

struct LevelParams {
    src_base: u32,
    src_rows: u32,
    src_cols: u32,
    dst_base: u32,
    dst_rows: u32,
    dst_cols: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(2) var<uniform> level: LevelParams;
@group(0) @binding(3) var<storage, read_write> pyramid: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> range_out: array<f32>;

fn acc_store(node: u32) {
    if acc_k == 0u {
        pyramid[node] = vec4<u32>(NAN_BITS, NAN_BITS, NAN_BITS, 0u);
        return;
    }
    let mean = acc_sum * reciprocal(acc_k);
    pyramid[node] = vec4<u32>(bitcast<u32>(acc_lo), bitcast<u32>(acc_hi), bitcast<u32>(mean), 0u);
}

fn cell_child(r: u32, c: u32) {
    if !has_cell(r, c) {
        return;
    }
    let v = bitcast<f32>(element_bits(cell_offset(r, c)));
    acc_add(v, v, v);
}

fn node_child(r: u32, c: u32) {
    if r >= level.src_rows || c >= level.src_cols {
        return;
    }
    let n = bitcast<vec4<f32>>(pyramid[level.src_base + r * level.src_cols + c]);
    acc_add(n.x, n.y, n.z);
}

@compute @workgroup_size(64)
fn build_cells(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = invocation_index(gid, groups);
    if t >= level.dst_rows * level.dst_cols {
        return;
    }
    let r = t / level.dst_cols;
    let c = t % level.dst_cols;
    acc_k = 0u;
    cell_child(2u * r, 2u * c);
    cell_child(2u * r, 2u * c + 1u);
    cell_child(2u * r + 1u, 2u * c);
    cell_child(2u * r + 1u, 2u * c + 1u);
    acc_store(level.dst_base + t);
}

@compute @workgroup_size(64)
fn build_level(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = invocation_index(gid, groups);
    if t >= level.dst_rows * level.dst_cols {
        return;
    }
    let r = t / level.dst_cols;
    let c = t % level.dst_cols;
    acc_k = 0u;
    node_child(2u * r, 2u * c);
    node_child(2u * r, 2u * c + 1u);
    node_child(2u * r + 1u, 2u * c);
    node_child(2u * r + 1u, 2u * c + 1u);
    acc_store(level.dst_base + t);
}

// The range from the top node: [lo, hi, 256 / (hi/2 - lo/2)] (inv 0 when the span is below
// 2^-100, lo = hi = 0 without finite values), as `ValueRange::inv_span`.
@compute @workgroup_size(1)
fn finalize() {
    let top = bitcast<vec4<f32>>(pyramid[level.src_base]);
    var lo = top.x;
    var hi = top.y;
    if classify(bitcast<u32>(lo)) != CLASS_FINITE {
        lo = 0.0;
        hi = 0.0;
    }
    let span = hi * 0.5 - lo * 0.5;
    var inv = 0.0;
    // MIN_SPAN = 2^-100.
    if span >= bitcast<f32>(0x0d800000u) {
        inv = 256.0 / span;
    }
    range_out[0] = lo;
    range_out[1] = hi;
    range_out[2] = inv;
    range_out[3] = 0.0;
}
