// The GPU benchmark page (bench.html): Stridescope's layout-conversion kernels through WebGPU
// (the app's wasm, `web_bench` exports) and TensorFlow.js's transpose on its WebGPU backend,
// same shapes, timed the same way. The results are also kept in `window.gpuBench` (for
// tests/e2e/gpu_bench.mjs), and `document.body.dataset.state` says where the page is:
// loading, ready, running, done, no-adapter or error.
import init, { gpuBenchAdapter, gpuBenchCases, gpuBenchRun } from './stridescope.js';

const RUNS = 5;
const SAMPLES = 4096;

const $ = (id) => document.getElementById(id);
const state = {
  date: new Date().toISOString(),
  userAgent: navigator.userAgent,
  runs: RUNS,
  adapter: null,
  engine: null,
  tfjs: null,
  cases: [],
  results: [],
  done: false,
  error: null,
};
window.gpuBench = state;

// Same theme as the app (its saved choice, else the system's).
try {
  const saved = localStorage.getItem('stridescope.theme');
  const dark = saved ? saved === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
} catch {
  // No storage (privacy mode): the light theme.
}

const message = (e) => (e instanceof Error ? e.message : String(e));
const setPageState = (s) => { document.body.dataset.state = s; };

function setStatus(text, kind = '') {
  const el = $('status');
  el.textContent = text;
  el.className = `status ${kind}`.trim();
}

function fail(text) {
  state.error = text;
  setStatus(text, 'err');
  setPageState('error');
}

const fmtMs = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const fmtGbps = (g) => (g >= 10 ? g.toFixed(1) : g >= 1 ? g.toFixed(2) : g.toFixed(3));
const fmtShape = (s) => s.join('\u00d7');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cell(text, cls = '', col = '') {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  if (col) td.dataset.col = col;
  return td;
}

/** The cell of column `col` in case `c`'s row. */
const col = (c, name) => $(`case-${c.index}`).querySelector(`[data-col="${name}"]`);
const COLUMNS = 11;

/** The table's rows, one per case, filled in as results arrive. */
function renderRows() {
  const body = $('rows');
  body.replaceChildren();
  for (const c of state.cases) {
    const tr = document.createElement('tr');
    tr.dataset.testid = 'bench-row';
    tr.dataset.kernel = c.kernel;
    tr.dataset.dtype = c.dtype;
    tr.id = `case-${c.index}`;
    const op = c.tfjs_dtype
      ? `tf.transpose([${c.transpose_shape.join(', ')}], [${c.perm.join(', ')}])`
      : '\u2014';
    const opCell = cell('', c.tfjs_dtype ? '' : 'na', 'tfjs-op');
    if (c.tfjs_dtype) {
      const code = document.createElement('code');
      code.textContent = op;
      opCell.append(code);
    } else {
      opCell.textContent = '\u2014';
      opCell.title = c.tfjs_missing ?? '';
    }
    tr.append(
      cell(c.kernel),
      cell(`${fmtShape(c.shape)} ${c.dtype}`, 'nowrap'),
      cell((c.bytes / 1e6).toFixed(1), 'num'),
      cell('', 'num', 'floor-ms'),
      cell('', 'num ours', 'ours-ms'),
      cell('', 'num ours', 'ours-gbps'),
      cell('', 'ours', 'ours-result'),
      opCell,
      cell(c.tfjs_dtype ? '' : '\u2014', c.tfjs_dtype ? 'num' : 'na', 'tfjs-ms'),
      cell(c.tfjs_dtype ? '' : '\u2014', c.tfjs_dtype ? 'num' : 'na', 'tfjs-gbps'),
      cell(c.tfjs_dtype ? '' : '\u2014', c.tfjs_dtype ? 'num ratio' : 'na', 'ratio'),
    );
    body.append(tr);
  }
}

function addErrorRow(c, text) {
  const row = $(`case-${c.index}`);
  const tr = document.createElement('tr');
  tr.className = 'error-row';
  const td = cell(text);
  td.colSpan = COLUMNS;
  tr.append(td);
  row.after(tr);
}

function showFloor(c, floor) {
  const td = col(c, 'floor-ms');
  if (floor.error) {
    td.textContent = 'failed';
    addErrorRow(c, `Read-back alone: ${floor.error}`);
    return;
  }
  td.textContent = fmtMs(floor.median_ms);
  td.title = `runs: ${floor.runs_ms.map(fmtMs).join(', ')} ms`;
}

function showOurs(c, ours) {
  if (ours.error) {
    col(c, 'ours-ms').textContent = 'failed';
    addErrorRow(c, `Stridescope: ${ours.error}`);
    return;
  }
  col(c, 'ours-ms').textContent = fmtMs(ours.median_ms);
  col(c, 'ours-ms').title = `runs: ${ours.runs_ms.map(fmtMs).join(', ')} ms`;
  col(c, 'ours-gbps').textContent = fmtGbps(ours.gbps);
  const mark = document.createElement('span');
  mark.className = ours.verified && ours.engine === 'gpu' ? 'mark-ok' : 'mark-bad';
  mark.textContent = ours.verified ? 'verified' : 'MISMATCH';
  col(c, 'ours-result').replaceChildren(mark);
  if (ours.engine !== 'gpu') {
    col(c, 'ours-result').append(document.createTextNode(` (ran on the CPU engine: ${ours.engine})`));
  }
}

function showTfjs(c, ours, tfjs) {
  if (tfjs.error) {
    col(c, 'tfjs-ms').textContent = 'failed';
    addErrorRow(c, `TensorFlow.js: ${tfjs.error}`);
    return;
  }
  col(c, 'tfjs-ms').textContent = fmtMs(tfjs.median_ms);
  col(c, 'tfjs-ms').title = `runs: ${tfjs.runs_ms.map(fmtMs).join(', ')} ms`;
  col(c, 'tfjs-gbps').textContent = fmtGbps(tfjs.gbps);
  const check = document.createElement('div');
  check.className = tfjs.checked ? 'hint' : 'mark-bad';
  check.textContent = tfjs.checked ? `checked (${tfjs.samples} elements)` : 'WRONG RESULT';
  col(c, 'tfjs-op').append(check);
  if (ours && !ours.error) {
    const ratio = tfjs.median_ms / ours.median_ms;
    const td = col(c, 'ratio');
    td.textContent = `${ratio.toFixed(2)}\u00d7`;
    td.className = `num ratio ${ratio >= 1 ? 'win' : 'lose'}`;
    td.title = 'TF.js median time / Stridescope median time (> 1: Stridescope is faster)';
  }
}

/**
 * The floor under both sides' figures: reading back a buffer of case `c`'s result size with
 * plain WebGPU (copy to a fresh staging buffer, mapAsync, copy out to JavaScript), timed like
 * the runs (one warm-up, RUNS timed, median), on the page's own device.
 */
async function readbackFloor(c) {
  const size = Math.ceil(c.bytes / 2 / 4) * 4;
  const device = await floorDevice();
  const src = device.createBuffer({ size, usage: GPUBufferUsage.COPY_SRC });
  try {
    const runs = [];
    for (let i = 0; i <= RUNS; i++) {
      const t0 = performance.now();
      const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(src, 0, staging, 0, size);
      device.queue.submit([encoder.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const bytes = new Uint8Array(staging.getMappedRange()).slice();
      staging.unmap();
      staging.destroy();
      if (i > 0) runs.push(performance.now() - t0);
      if (bytes.length !== size) throw new Error(`read ${bytes.length} of ${size} bytes`);
    }
    return { runs_ms: runs, median_ms: median(runs) };
  } finally {
    src.destroy();
  }
}

let floorDeviceOnce = null;
function floorDevice() {
  floorDeviceOnce ??= (async () => {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('no WebGPU adapter');
    return adapter.requestDevice({ requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize } });
  })();
  return floorDeviceOnce;
}

/**
 * TensorFlow.js's transpose of case `c`: input 0, 1, 2, ... as `c.tfjs_dtype`, one warm-up
 * run, RUNS timed runs each ending with `await y.data()`; the last result is checked at
 * sampled positions.
 */
async function runTfjs(c) {
  const tf = window.tf;
  const n = c.shape.reduce((a, b) => a * b, 1);
  // tfjs-core alone has no chained ops (x.reshape): the functional forms throughout.
  const x = tf.tidy(() => tf.reshape(tf.range(0, n, 1, c.tfjs_dtype), c.transpose_shape));
  try {
    const warm = tf.transpose(x, c.perm);
    await warm.data();
    warm.dispose();
    const runs = [];
    let last = null;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const y = tf.transpose(x, c.perm);
      const values = await y.data();
      runs.push(performance.now() - t0);
      y.dispose();
      last = values;
    }
    const medianMs = median(runs);
    const { ok, samples } = checkTranspose(last, c.transpose_shape, c.perm);
    return {
      runs_ms: runs,
      median_ms: medianMs,
      gbps: c.bytes / (medianMs / 1000) / 1e9,
      checked: ok,
      samples,
    };
  } finally {
    x.dispose();
  }
}

/**
 * Checks `out` = transpose(0, 1, 2, ... of `shape`, `perm`) at the first, the last and
 * SAMPLES pseudo-random positions.
 */
function checkTranspose(out, shape, perm) {
  const n = shape.reduce((a, b) => a * b, 1);
  const rank = shape.length;
  const srcStrides = new Array(rank);
  for (let d = rank - 1, s = 1; d >= 0; d--) { srcStrides[d] = s; s *= shape[d]; }
  const outShape = perm.map((p) => shape[p]);
  const positions = [0, n - 1];
  let seed = 12345;
  for (let i = 0; i < SAMPLES; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    positions.push(seed % n);
  }
  for (const pos of positions) {
    let rest = pos;
    let src = 0;
    for (let j = rank - 1; j >= 0; j--) {
      const idx = rest % outShape[j];
      rest = Math.floor(rest / outShape[j]);
      src += idx * srcStrides[perm[j]];
    }
    if (out[pos] !== src) return { ok: false, samples: positions.length };
  }
  return { ok: true, samples: positions.length };
}

function showRaw() {
  $('raw').textContent = JSON.stringify(state, null, 2);
}

async function runAll() {
  $('run').disabled = true;
  setPageState('running');
  state.results = [];
  state.done = false;
  state.date = new Date().toISOString();
  renderRows();
  const tfOk = state.tfjs && !state.tfjs.error;
  for (const c of state.cases) {
    const row = $(`case-${c.index}`);
    row.classList.add('running');
    const label = `${c.kernel} ${fmtShape(c.shape)} ${c.dtype}`;
    const result = { index: c.index, kernel: c.kernel, shape: c.shape, dtype: c.dtype, bytes: c.bytes, perm: c.perm };
    setStatus(`Running ${label}: reading back ${(c.bytes / 2e6).toFixed(1)} MB alone\u2026`);
    try {
      result.readback = await readbackFloor(c);
    } catch (e) {
      result.readback = { error: message(e) };
    }
    showFloor(c, result.readback);
    setStatus(`Running ${label}: Stridescope (${RUNS} runs after a warm-up, then the CPU check)\u2026`);
    try {
      result.ours = JSON.parse(await gpuBenchRun(c.index, RUNS));
    } catch (e) {
      result.ours = { error: message(e) };
    }
    showOurs(c, result.ours);
    if (c.tfjs_dtype && tfOk) {
      setStatus(`Running ${label}: TensorFlow.js (${RUNS} runs after a warm-up)\u2026`);
      try {
        result.tfjs = await runTfjs(c);
      } catch (e) {
        result.tfjs = { error: message(e) };
      }
      showTfjs(c, result.ours, result.tfjs);
      if (!result.tfjs.error && !result.ours.error) {
        result.ratio = result.tfjs.median_ms / result.ours.median_ms;
      }
    } else {
      result.tfjs = null;
      result.tfjs_missing = c.tfjs_dtype ? 'TensorFlow.js did not start' : c.tfjs_missing;
    }
    row.classList.remove('running');
    state.results.push(result);
    showRaw();
  }
  state.done = true;
  summarize();
  $('run').disabled = false;
  setPageState('done');
}

function summarize() {
  const compared = state.results.filter((r) => r.ratio !== undefined);
  const wins = compared.filter((r) => r.ratio >= 1).length;
  const verified = state.results.filter((r) => r.ours && r.ours.verified && r.ours.engine === 'gpu').length;
  const failed = state.results.filter((r) => r.ours?.error || r.tfjs?.error);
  const parts = [
    `Stridescope at \u2265 1.0\u00d7 TensorFlow.js on ${wins} of ${compared.length} shapes TensorFlow.js runs`,
    `${verified} of ${state.results.length} results verified against the CPU engine`,
  ];
  if (compared.length) {
    const geo = Math.exp(compared.reduce((s, r) => s + Math.log(r.ratio), 0) / compared.length);
    parts.push(`geometric mean ours / TF.js ${geo.toFixed(2)}\u00d7`);
  }
  if (failed.length) parts.push(`${failed.length} case(s) failed (see the table)`);
  const text = `${parts.join('; ')}.`;
  $('summary').textContent = text;
  const allGood = wins === compared.length && verified === state.results.length && failed.length === 0;
  setStatus(`Done. ${text}`, allGood ? 'ok' : 'warn');
}

async function start() {
  $('env-browser').textContent = navigator.userAgent;
  $('env-runs').textContent = `${RUNS} timed runs after 1 warm-up run, per case and per side; median reported`;
  try {
    await init({ module_or_path: new URL('./stridescope_bg.wasm', import.meta.url) });
    state.cases = JSON.parse(gpuBenchCases());
  } catch (e) {
    fail(`Stridescope's WebAssembly did not load: ${message(e)}`);
    return;
  }
  renderRows();

  // The adapter, as the browser describes it.
  const noAdapter = (why) => {
    state.adapter = null;
    state.error = why;
    $('env-adapter').textContent = 'none';
    $('env-engine').textContent = '\u2014';
    $('env-tfjs').textContent = '\u2014';
    setStatus(`No WebGPU adapter: ${why} Nothing can be measured on this page without one.`, 'err');
    setPageState('no-adapter');
  };
  if (!navigator.gpu) {
    noAdapter('this browser has no WebGPU (navigator.gpu is missing; in Chromium, start it with --enable-unsafe-webgpu where WebGPU is not on by default).');
    return;
  }
  let adapter = null;
  try {
    adapter = await navigator.gpu.requestAdapter();
  } catch (e) {
    noAdapter(`navigator.gpu.requestAdapter() failed (${message(e)}).`);
    return;
  }
  if (!adapter) {
    noAdapter('navigator.gpu.requestAdapter() found none (in headless Chromium, start it with --enable-unsafe-webgpu).');
    return;
  }
  const info = adapter.info ?? {};
  state.adapter = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
  };
  const a = state.adapter;
  $('env-adapter').textContent = [
    [a.vendor, a.architecture].filter(Boolean).join(' '),
    a.description,
    a.isFallbackAdapter ? 'software fallback adapter (shaders run on the CPU)' : 'hardware adapter',
  ].filter(Boolean).join(' \u00b7 ');

  // Stridescope's GPU engine on its own device.
  try {
    state.engine = JSON.parse(await gpuBenchAdapter());
    const e = state.engine;
    $('env-engine').textContent = [
      e.name, `wgpu backend ${e.backend}, device type ${e.device_type}`, `transpose kernel: ${e.transpose_kernel}`,
    ].filter(Boolean).join(' \u00b7 ');
  } catch (e) {
    fail(`Stridescope's GPU engine did not start: ${message(e)}`);
    $('env-engine').textContent = 'did not start';
    return;
  }

  // TensorFlow.js on its WebGPU backend.
  if (!window.tf || typeof window.tf.setBackend !== 'function') {
    state.tfjs = { error: 'TensorFlow.js did not load (vendor/tf-core.min.js, vendor/tf-backend-webgpu.min.js)' };
  } else {
    try {
      const ok = await window.tf.setBackend('webgpu');
      await window.tf.ready();
      if (!ok || window.tf.getBackend() !== 'webgpu') throw new Error(`its backend is ${window.tf.getBackend()}, not webgpu`);
      state.tfjs = { version: window.tf.version_core ?? window.tf.version?.['tfjs-core'] ?? '', backend: window.tf.getBackend() };
    } catch (e) {
      state.tfjs = { error: `TensorFlow.js's WebGPU backend did not start: ${message(e)}` };
    }
  }
  $('env-tfjs').textContent = state.tfjs.error
    ? state.tfjs.error
    : `${state.tfjs.version} \u00b7 backend ${state.tfjs.backend} (its own device on the same adapter)`;

  $('run').disabled = false;
  $('run').addEventListener('click', () => {
    runAll().catch((e) => fail(`The benchmark stopped: ${message(e)}`));
  });
  setStatus(
    state.tfjs.error
      ? `Ready (TensorFlow.js is missing: only Stridescope will be timed). Run takes a minute or more on a software adapter.`
      : 'Ready. Run times every case on both sides; on a software adapter it takes a few minutes.',
    state.tfjs.error ? 'warn' : '',
  );
  showRaw();
  setPageState('ready');
}

start().catch((e) => fail(`The page failed to start: ${message(e)}`));
