// Draws one large view or storage: a full-canvas triangle whose fragment shader maps its
// device pixel to a cell under the pan and zoom (fixed point, as `render::PixelMap`), and
// colours it from the value at offset + Σ index·stride read straight from the engine's
// storage buffer. `src/render/scene.rs` (`Scene::pixel`) is the CPU reference, pixel for
// pixel. Prepended: common.wgsl and cells.wgsl.

struct FrameParams {
    // Cells per device pixel and the centre of pixel 0, times 2^FRAC (i64 as lo, hi).
    step: vec2<u32>,
    origin_x: vec2<u32>,
    origin_y: vec2<u32>,
    // The pyramid level pixels read (0: cells are at least a pixel).
    level: u32,
    // FLAG_GRID_LINES | FLAG_SEPARATORS | FLAG_HIGHLIGHT.
    flags: u32,
    highlight: i32,
    slice_rows: u32,
    n_marks: u32,
    // The pyramid level pixels read (frame.level clamped to the levels stored; 0: none),
    // and where its nodes are.
    lv_shift: u32,
    // Inner boxes of the highlight rings (x0, y0, x1, y1), device pixels.
    marks: array<vec4<i32>, 16>,
    lv_base: u32,
    lv_rows: u32,
    lv_cols: u32,
    pad: u32,
}

const FRAC: u32 = 24u;

// Specializations (see cells.wgsl): the colouring mode, whether cells are below a pixel
// (frame.level > 0: coarse coordinates, heatmaps read the pyramid), and whether grid lines or separators, rings and a highlight are
// drawn at all.
override MODE: u32 = 0u;
override COARSE: bool = false;
override LINES: bool = false;
override MARKS: bool = false;
override HIGHLIGHT: bool = false;
const FLAG_GRID_LINES: u32 = 1u;
const FLAG_SEPARATORS: u32 = 2u;
const FLAG_HIGHLIGHT: u32 = 4u;
const RING: i32 = 2;

const BACKGROUND: vec4<u32> = vec4<u32>(0u, 0u, 0u, 0u);
const NAN_COLOUR: vec4<u32> = vec4<u32>(255u, 0u, 255u, 255u);
const POS_INF_COLOUR: vec4<u32> = vec4<u32>(255u, 255u, 255u, 255u);
const NEG_INF_COLOUR: vec4<u32> = vec4<u32>(0u, 0u, 0u, 255u);
const GRID_LINE_COLOUR: vec4<u32> = vec4<u32>(128u, 128u, 128u, 255u);
const SEPARATOR_COLOUR: vec4<u32> = vec4<u32>(255u, 255u, 255u, 255u);
const HIGHLIGHT_COLOUR: vec4<u32> = vec4<u32>(255u, 64u, 0u, 255u);

@group(0) @binding(2) var<uniform> frame: FrameParams;
@group(0) @binding(3) var<storage, read> pyramid: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> range_in: array<f32>;
// The colormap, 256 packed colours r | g << 8 | b << 16 | a << 24 (`render::colormap_words`).
@group(0) @binding(5) var<uniform> colormap: array<vec4<u32>, 64>;

// ---- fixed-point coordinates (i64 on (lo, hi) pairs) ----

fn fx_pos(p: u32, origin: vec2<u32>) -> vec2<u32> {
    return u64_add(origin, u64_mul(vec2<u32>(p, 0u), frame.step));
}

// Arithmetic shift right by FRAC: the floor of a fixed-point coordinate.
fn fx_floor(a: vec2<u32>) -> vec2<u32> {
    if i64_is_neg(a) {
        return ~u64_shr(~a, FRAC);
    }
    return u64_shr(a, FRAC);
}

fn below_n(c: vec2<u32>, n: u32) -> bool {
    return c.y == 0u && c.x < n;
}

// `PixelMap::coord`: the cell coordinate a pixel whose centre is at `pos` shows, -1 for
// none.
fn coord(pos: vec2<u32>, n: u32) -> i32 {
    if !COARSE {
        if i64_is_neg(pos) {
            return -1;
        }
        let c = u64_shr(pos, FRAC);
        return select(-1, i32(c.x), below_n(c, n));
    }
    let half = u64_shr(frame.step, 1u);
    let upper = u64_add(pos, half);
    if i64_is_neg(upper) || (upper.x == 0u && upper.y == 0u) {
        return -1;
    }
    if !i64_lt(u64_sub(pos, half), u64_shl(vec2<u32>(n, 0u), FRAC)) {
        return -1;
    }
    if i64_is_neg(pos) {
        return 0;
    }
    let c = u64_shr(pos, FRAC);
    return select(i32(n) - 1, i32(c.x), below_n(c, n));
}

// `PixelMap::starts_cell`: the pixel whose centre is at `pos` is the first of its cell.
fn starts_cell(pos: vec2<u32>) -> bool {
    return any(fx_floor(pos) != fx_floor(u64_sub(pos, frame.step)));
}

// `PixelMap::footprint`: the first and last cells the footprint of the pixel whose centre
// is at `pos` overlaps (x = -1: none).
fn footprint(pos: vec2<u32>, n: u32) -> vec2<i32> {
    let lo = u64_sub(pos, u64_shr(frame.step, 1u));
    let hi = u64_add(lo, u64_sub(frame.step, vec2<u32>(1u, 0u)));
    if i64_is_neg(hi) {
        return vec2<i32>(-1, -1);
    }
    let a = fx_floor(lo);
    if !i64_is_neg(a) && !below_n(a, n) {
        return vec2<i32>(-1, -1);
    }
    let first = select(i32(a.x), 0, i64_is_neg(a));
    let b = fx_floor(hi);
    let last = select(i32(n) - 1, i32(b.x), below_n(b, n));
    return vec2<i32>(first, last);
}

// ---- colours ----

fn heat_colour(bits: u32) -> vec4<u32> {
    switch classify(bits) {
        case 1u: { return NAN_COLOUR; }
        case 2u: { return POS_INF_COLOUR; }
        case 3u: { return NEG_INF_COLOUR; }
        default: {}
    }
    let lo = range_in[0];
    let inv = range_in[2];
    var index = 128u;
    if inv != 0.0 {
        let d = bitcast<f32>(bits) * 0.5 - lo * 0.5;
        let t = floor(d * inv);
        index = u32(clamp(t, 0.0, 255.0));
    }
    let c = colormap[index / 4u][index % 4u];
    return vec4<u32>(c & 0xffu, (c >> 8u) & 0xffu, (c >> 16u) & 0xffu, c >> 24u);
}

fn channel_byte(bits: u32) -> u32 {
    switch classify(bits) {
        case 1u: { return 0u; }
        case 2u: { return 255u; }
        case 3u: { return 0u; }
        default: {}
    }
    let v = bitcast<f32>(bits);
    if grid.scale == 0u {
        return u32(clamp(v, 0.0, 255.0));
    }
    return u32(round(clamp(v, 0.0, 1.0) * 255.0));
}

// `TintSpec::channel`: 0, 1, 2, or 3 outside the image.
fn tint_channel(e: i32) -> u32 {
    if e < grid.tint_lo || e >= grid.tint_hi {
        return 3u;
    }
    let n = e - grid.tint_base;
    var q = n / grid.tint_stride;
    if n % grid.tint_stride != 0 && n < 0 {
        q = q - 1;
    }
    var m = q % 3;
    if m < 0 {
        m = m + 3;
    }
    return u32(m);
}

fn tint_colour(channel: u32, byte: u32) -> vec4<u32> {
    let tv = 48u + byte * 207u / 255u;
    switch channel {
        case 0u: { return vec4<u32>(tv, tv / 6u, tv / 6u, 255u); }
        case 1u: { return vec4<u32>(tv / 6u, tv, tv / 6u, 255u); }
        case 2u: { return vec4<u32>(tv / 5u, tv / 3u, tv, 255u); }
        default: { return vec4<u32>(tv, tv, tv, 255u); }
    }
}

// Adds node `n` ([min, max, mean] bits) to the combination `acc` ([min, max, sum]) of `k`
// nodes, as `pyramid::combine` (in order, skipping nodes without a finite value).
fn combine_node(acc: ptr<function, vec3<f32>>, k: ptr<function, u32>, n: vec4<u32>) {
    if classify(n.x) != CLASS_FINITE {
        return;
    }
    let v = bitcast<vec4<f32>>(n);
    if *k == 0u {
        *acc = v.xyz;
    } else {
        var a = *acc;
        if v.x < a.x {
            a.x = v.x;
        }
        if v.y > a.y {
            a.y = v.y;
        }
        a.z = a.z + v.z;
        *acc = a;
    }
    *k = *k + 1u;
}

// `Pyramid::footprint_value`: the value a pixel covering cells rows × cols shows.
fn footprint_bits(rows: vec2<i32>, cols: vec2<i32>) -> u32 {
    let l = frame.lv_shift;
    if l == 0u {
        return NAN_BITS;
    }
    let base = frame.lv_base;
    let lcols = frame.lv_cols;
    // The footprint is narrower than a block: it overlaps at most 2 × 2 of them, combined
    // in row-major order.
    let r0 = u32(rows.x) >> l;
    let c0 = u32(cols.x) >> l;
    let r1 = min(u32(rows.y) >> l, frame.lv_rows - 1u);
    let c1 = min(u32(cols.y) >> l, lcols - 1u);
    var acc = vec3<f32>(0.0, 0.0, 0.0);
    var k = 0u;
    combine_node(&acc, &k, pyramid[base + r0 * lcols + c0]);
    if c1 > c0 {
        combine_node(&acc, &k, pyramid[base + r0 * lcols + c1]);
    }
    if r1 > r0 {
        combine_node(&acc, &k, pyramid[base + r1 * lcols + c0]);
        if c1 > c0 {
            combine_node(&acc, &k, pyramid[base + r1 * lcols + c1]);
        }
    }
    if k == 0u {
        return NAN_BITS;
    }
    let mean = acc.z * reciprocal(k);
    if acc.y * 0.5 + acc.x * 0.5 >= mean {
        return bitcast<u32>(acc.y);
    }
    return bitcast<u32>(acc.x);
}

fn on_ring(x: i32, y: i32) -> bool {
    for (var k = 0u; k < frame.n_marks; k = k + 1u) {
        let m = frame.marks[k];
        let outer = x >= m.x - RING && x < m.z + RING && y >= m.y - RING && y < m.w + RING;
        let inner = x >= m.x && x < m.z && y >= m.y && y < m.w;
        if outer && !inner {
            return true;
        }
    }
    return false;
}

// `Scene::pixel`.
fn pixel_colour(x: u32, y: u32) -> vec4<u32> {
    if MARKS && on_ring(i32(x), i32(y)) {
        return HIGHLIGHT_COLOUR;
    }
    let pos_y = fx_pos(y, frame.origin_y);
    let pos_x = fx_pos(x, frame.origin_x);
    let row = coord(pos_y, grid.rows);
    let col = coord(pos_x, grid.cols);
    if row < 0 || col < 0 || !has_cell(u32(row), u32(col)) {
        return BACKGROUND;
    }
    if LINES {
        let starts_row = starts_cell(pos_y);
        if (frame.flags & FLAG_SEPARATORS) != 0u && frame.slice_rows > 0u && row > 0
            && u32(row) % frame.slice_rows == 0u && starts_row {
            return SEPARATOR_COLOUR;
        }
        if (frame.flags & FLAG_GRID_LINES) != 0u && (starts_row || starts_cell(pos_x)) {
            return GRID_LINE_COLOUR;
        }
    }
    // A coarse heatmap reads the pyramid: the cell's element only matters to the highlight.
    let heat_pyramid = COARSE && MODE == MODE_HEAT;
    var e = 0;
    if HIGHLIGHT || !heat_pyramid {
        e = cell_offset(u32(row), u32(col));
    }
    if HIGHLIGHT {
        let h = frame.highlight;
        let cs = grid.channel_stride;
        if e == h || (MODE == MODE_RGB && (e + cs == h || e + 2 * cs == h)) {
            return HIGHLIGHT_COLOUR;
        }
    }
    if MODE == MODE_RGB {
        let cs = grid.channel_stride;
        return vec4<u32>(
            channel_byte(element_bits(e)),
            channel_byte(element_bits(e + cs)),
            channel_byte(element_bits(e + 2 * cs)),
            255u,
        );
    }
    if MODE == MODE_TINT {
        return tint_colour(tint_channel(e), channel_byte(element_bits(e)));
    }
    if heat_pyramid {
        let rows = footprint(pos_y, grid.rows);
        let cols = footprint(pos_x, grid.cols);
        if rows.x < 0 || cols.x < 0 {
            return NAN_COLOUR;
        }
        return heat_colour(footprint_bits(rows, cols));
    }
    return heat_colour(element_bits(e));
}

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let c = pixel_colour(u32(position.x), u32(position.y));
    return vec4<f32>(c) / 255.0;
}
