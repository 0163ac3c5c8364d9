// NOT A KERNEL OF THE ENGINE: the practical ceiling of a WGSL copy on a CPU adapter, for
// docs/BENCHMARKS.md. Loaded in place of src/engines/gpu/transpose.wgsl with
//   STRIDESCOPE_SHADER_DIR=benches/ceiling stridescope bench --only float32
// it keeps that file's bindings, uniform block and dispatch (one invocation per block of
// 16 x 16 elements) but copies the same bytes contiguously, 64 vec4 per invocation in one
// run, so it times what any shader moving these bytes could reach on this adapter (its
// results are not transposes: `verified` is false). Compare with the same command without
// the variable. Only `main` is here: CPU adapters never ask for `shared_main`.

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

const RUN: u32 = 64u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let g = invocation_index(gid, groups);
    let total = params.batch * params.rows * params.cols / (16u / ELEM_BYTES);
    let base = g * RUN;
    if base >= total {
        return;
    }
    let end = min(base + RUN, total);
    for (var i = base; i < end; i = i + 1u) {
        dst[i] = src[i];
    }
}
