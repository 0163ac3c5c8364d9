// Cells of a large view or storage, for the render family (render.wgsl draws them,
// minmax.wgsl reduces them). Prepended after common.wgsl. The arithmetic is the render
// plan's (`src/render/grid.rs`): a cell's storage element is offset + Σ index·stride, read
// straight from the engine's storage buffer (bound as a window starting at element
// `window_first`), decoded with common.wgsl's codecs and rounded once to f32.

struct GridParams {
    rows: u32,
    cols: u32,
    // NO_WRAP, or the number of elements of a wrapped grid.
    wrap_len: u32,
    row_dims: u32,
    offset: i32,
    col_stride: i32,
    channel_stride: i32,
    dtype: u32,
    window_first: i32,
    window_len: u32,
    // MODE_HEAT, MODE_RGB or MODE_TINT.
    mode: u32,
    // 0: bytes (uint8), 1: 0..1 floats.
    scale: u32,
    tint_base: i32,
    tint_stride: i32,
    tint_lo: i32,
    tint_hi: i32,
    row_shape: array<vec4<u32>, 2>,
    row_stride: array<vec4<i32>, 2>,
}

const NO_WRAP: u32 = 0xffffffffu;

// Specializations (the pipeline is made per value, so that a CPU rasterizer, which runs
// every branch under a mask, only runs the ones that matter): the storage's dtype code,
// the number of row dims, and whether the grid wraps a 1-D sequence.
override DTYPE: u32 = 8u;
override ROW_DIMS: u32 = 1u;
override WRAPPED: bool = false;
const MODE_HEAT: u32 = 0u;
const MODE_RGB: u32 = 1u;
const MODE_TINT: u32 = 2u;
const NAN_BITS: u32 = 0x7fc00000u;
const CLASS_FINITE: u32 = 0u;
const CLASS_NAN: u32 = 1u;
const CLASS_POS_INF: u32 = 2u;
const CLASS_NEG_INF: u32 = 3u;

@group(0) @binding(0) var<uniform> grid: GridParams;
@group(0) @binding(1) var<storage, read> data: array<u32>;

fn has_cell(row: u32, col: u32) -> bool {
    if row >= grid.rows || col >= grid.cols {
        return false;
    }
    return !WRAPPED || row * grid.cols + col < grid.wrap_len;
}

// The storage element of cell (row, col) (of an image pixel: its first channel's).
fn cell_offset(row: u32, col: u32) -> i32 {
    if WRAPPED {
        return grid.offset + i32(row * grid.cols + col) * grid.col_stride;
    }
    var at = grid.offset + i32(col) * grid.col_stride;
    var rest = row;
    for (var k = i32(ROW_DIMS) - 1; k >= 0; k = k - 1) {
        let n = max(grid.row_shape[k / 4][k % 4], 1u);
        at = at + i32(rest % n) * grid.row_stride[k / 4][k % 4];
        rest = rest / n;
    }
    return at;
}

// Storage element e as f32 bits (`Scalar::to_f32` of `DType::read`, subnormals flushed);
// NaN outside the bound window.
fn element_bits(e: i32) -> u32 {
    let rel = e - grid.window_first;
    if rel < 0 || u32(rel) >= grid.window_len {
        return NAN_BITS;
    }
    let i = u32(rel);
    let t = DTYPE;
    let b = dt_bytes(t);
    var raw: vec2<u32>;
    if b == 1u {
        raw = vec2<u32>((data[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu, 0u);
    } else if b == 2u {
        raw = vec2<u32>((data[i >> 1u] >> ((i & 1u) * 16u)) & 0xffffu, 0u);
    } else if b == 4u {
        raw = vec2<u32>(data[i], 0u);
    } else {
        raw = vec2<u32>(data[2u * i], data[2u * i + 1u]);
    }
    var bits: u32;
    switch t {
        case 6u: { bits = f16_to_f32(raw.x); }
        case 7u: { bits = raw.x << 16u; }
        case 8u: { bits = raw.x; }
        case 9u: { bits = f64_to_f32(raw); }
        default: { bits = i64_to_f32(decode(t, raw)); }
    }
    // Subnormals flushed to a zero of their sign (`render::scene::flush_subnormal`).
    return select(bits, bits & 0x80000000u, (bits & 0x7f800000u) == 0u);
}

// What kind of number f32 bits are (WGSL may assume floats finite: classify by bits).
fn classify(bits: u32) -> u32 {
    let mag = bits & 0x7fffffffu;
    if mag < 0x7f800000u {
        return CLASS_FINITE;
    }
    if mag > 0x7f800000u {
        return CLASS_NAN;
    }
    return select(CLASS_NEG_INF, CLASS_POS_INF, (bits >> 31u) == 0u);
}

// ---- combining pyramid nodes (`pyramid::combine`): [min, max, mean] in order, skipping
// nodes without a finite value ----

// 1/k for k children (RECIPROCALS in pyramid.rs; 1/3 as its f32 bits).
fn reciprocal(k: u32) -> f32 {
    switch k {
        case 1u: { return 1.0; }
        case 2u: { return 0.5; }
        case 3u: { return bitcast<f32>(0x3eaaaaabu); }
        default: { return 0.25; }
    }
}

var<private> acc_k: u32;
var<private> acc_lo: f32;
var<private> acc_hi: f32;
var<private> acc_sum: f32;

fn acc_add(lo: f32, hi: f32, mean: f32) {
    if classify(bitcast<u32>(lo)) != CLASS_FINITE {
        return;
    }
    if acc_k == 0u {
        acc_lo = lo;
        acc_hi = hi;
        acc_sum = mean;
    } else {
        if lo < acc_lo {
            acc_lo = lo;
        }
        if hi > acc_hi {
            acc_hi = hi;
        }
        acc_sum = acc_sum + mean;
    }
    acc_k = acc_k + 1u;
}

