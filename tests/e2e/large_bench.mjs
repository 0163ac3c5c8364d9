// Browser benchmark of the large-tensor canvases (issues 11 and 20), in one run: frame figures
// and input-to-frame latency while panning and zooming a 1024 × 1024 view (1M cells) and a
// 4096 × 4096 view (16.7M cells), with WebGPU presenting its frames on the canvas (SwiftShader,
// the presenting flags of harness.mjs) and with the canvas-2D painter (no WebGPU); then the
// first hovers after a 768 × 768 view appears (pointer to readout). Figures, not a test: it
// prints tables (docs/WEB_PERFORMANCE.md keeps them). Run after `trunk build --release`.
//
// - "paint": the painter's main-thread time for one frame (the canvas's data-frame-ms: the
//   fallback's pixel loop and putImageData; WebGPU's plan, encoding and submit).
// - "rAF interval": the time between animation frames while one input event arrives per frame.
// - "shown interval": the time between frames that reach the screen with a new picture: for
//   the canvas-2D painter every animation frame that painted; for WebGPU the frames whose GPU
//   work is done (the canvas's data-gpu-done; a new frame is submitted only once the previous
//   one is done, so this is the presented frame rate).
// - "input to frame": from dispatching one input (a pan step or a wheel notch) to the animation
//   frame after the picture that shows it is drawn (canvas-2D: painted; WebGPU: presented and
//   its GPU work done), one input at a time.
// The browser records at most 1M values per tensor: the 16.7M-cell view has no values in the
// trace, so the canvas-2D painter shows its placeholder while WebGPU draws the engine's buffer.
import { join } from 'node:path';
import { launch, serve, watchErrors, root } from './harness.mjs';

const FRAMES = Number(process.env.FRAMES ?? 60);
const INPUTS = Number(process.env.INPUTS ?? 20);
const SIDES = (process.env.SIDES ?? '1024,4096').split(',').map(Number).filter((n) => n > 0);
const server = await serve(join(root, 'dist'));
const base = `http://127.0.0.1:${server.address().port}/`;

const stats = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  const at = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median: at(0.5), p95: at(0.95), max: s[s.length - 1], n: s.length };
};
const fmt = (xs) => {
  if (!xs.length) return '–';
  const st = stats(xs);
  return `${st.median.toFixed(1)} / ${st.p95.toFixed(1)} / ${st.max.toFixed(1)} ms`;
};

async function openPage(webgpu) {
  const browser = await launch(webgpu);
  const page = watchErrors(await browser.newPage({ viewport: { width: 1400, height: 1000 } }));
  await page.goto(`${base}index.html`);
  await page.waitForSelector('[data-testid=view]', { timeout: 20000 });
  if (webgpu) {
    await page.waitForFunction(() => document.querySelector('[data-testid=engine-badge]')?.textContent.startsWith('WebGPU'), null, { timeout: 20000 }).catch(() => {});
  }
  return { browser, page };
}

/** Runs `script` and waits for `names`' canvases of `rows` rows, at rest (every presented frame done). */
async function show(page, script, names, rows) {
  await page.fill('[data-testid=editor]', script);
  const t0 = Date.now();
  await page.waitForFunction(([want, rows]) => {
    document.querySelector('[data-testid=step-last]')?.click();
    return want.every((n) => document.querySelector(`[data-testid=gpu-view][data-name=${n}]`)?.dataset.rows === String(rows));
  }, [names, rows], { timeout: 120000, polling: 100 });
  const drawn = Date.now() - t0;
  await page.$eval(`[data-testid=gpu-view][data-name=${names[0]}]`, (c) => c.scrollIntoView({ block: 'center' }));
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')]
    .every((c) => c.dataset.present !== 'canvas' || (Number(c.dataset.gpuDone) > 0 && c.dataset.gpuDone === c.dataset.gpuFrames)), null, { timeout: 120000, polling: 100 }).catch(() => {});
  await page.waitForTimeout(300);
  return drawn;
}

// Drives `kind` (pan or zoom) for `frames` frames, one input event per animation frame.
const drive = (page, kind, frames) => page.evaluate(async ([kind, frames]) => {
  const c = document.querySelector('[data-testid=gpu-view][data-name=a]');
  const r = c.getBoundingClientRect();
  const [cx, cy] = [r.left + r.width / 2, r.top + r.height / 2];
  const ev = (type, x, y) => c.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, pointerId: 7, pointerType: 'mouse', buttons: 1, bubbles: true }));
  const frame = () => new Promise((res) => requestAnimationFrame(res));
  const paints = [];
  const stamps = [];
  const shown = [];
  const presenting = c.dataset.present === 'canvas';
  const mo = new MutationObserver((records) => {
    for (const m of records) if (m.attributeName === (presenting ? 'data-gpu-done' : 'data-frame-ms')) shown.push(performance.now());
  });
  mo.observe(c, { attributes: true, attributeFilter: ['data-gpu-done', 'data-frame-ms'] });
  if (kind === 'pan') ev('pointerdown', cx, cy);
  let x = cx;
  let dir = 1;
  for (let k = 0; k < frames; k++) {
    if (kind === 'pan') {
      x += dir * 7;
      if (Math.abs(x - cx) > 150) dir = -dir;
      ev('pointermove', x, cy + (k % 2));
    } else {
      c.dispatchEvent(new WheelEvent('wheel', { clientX: cx, clientY: cy, deltaY: k % 40 < 20 ? -60 : 60, bubbles: true, cancelable: true }));
    }
    stamps.push(await frame());
    paints.push(Number(c.dataset.frameMs));
  }
  if (kind === 'pan') ev('pointerup', x, cy);
  mo.disconnect();
  const intervals = stamps.slice(1).map((t, i) => t - stamps[i]);
  const shownIntervals = shown.slice(1).map((t, i) => t - shown[i]);
  return { paints: paints.slice(2), intervals: intervals.slice(1), shown: shownIntervals.slice(1), cell: Number(c.dataset.cellPx) };
}, [kind, frames]);

// Input to frame: one input at a time, timed until the frame that shows it is drawn (and, with
// WebGPU, its work done), plus the animation frame after it.
const inputToFrame = (page, kind, inputs) => page.evaluate(async ([kind, inputs]) => {
  const c = document.querySelector('[data-testid=gpu-view][data-name=a]');
  const r = c.getBoundingClientRect();
  const [cx, cy] = [r.left + r.width / 2, r.top + r.height / 2];
  const frame = () => new Promise((res) => requestAnimationFrame(res));
  const until = (test) => new Promise((res) => {
    if (test()) return res();
    const mo = new MutationObserver(() => { if (test()) { mo.disconnect(); res(); } });
    mo.observe(c, { attributes: true });
  });
  const out = [];
  const ev = (type, x, y) => c.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, pointerId: 8, pointerType: 'mouse', buttons: 1, bubbles: true }));
  if (kind === 'pan') ev('pointerdown', cx, cy);
  let x = cx;
  for (let k = 0; k < inputs; k++) {
    await frame();
    const presenting = c.dataset.present === 'canvas';
    const frames0 = Number(c.dataset.gpuFrames ?? 0);
    const paint0 = c.dataset.frameMs;
    let painted = false;
    const mo = new MutationObserver((rs) => { if (rs.some((m) => m.attributeName === 'data-frame-ms')) painted = true; });
    mo.observe(c, { attributes: true });
    const t0 = performance.now();
    if (kind === 'pan') {
      x += k % 2 ? -9 : 9;
      ev('pointermove', x, cy);
    } else {
      c.dispatchEvent(new WheelEvent('wheel', { clientX: cx, clientY: cy, deltaY: k % 2 ? 60 : -60, bubbles: true, cancelable: true }));
    }
    if (presenting) {
      await until(() => Number(c.dataset.gpuFrames) > frames0 && Number(c.dataset.gpuDone) >= frames0 + 1);
    } else {
      await until(() => painted || c.dataset.frameMs !== paint0);
    }
    mo.disconnect();
    await frame();
    out.push(performance.now() - t0);
  }
  if (kind === 'pan') ev('pointerup', x, cy);
  return out;
}, [kind, inputs]);

// The first hovers after a view appears: a pointermove over a's cell until the readout names it
// (the DOM), and until the animation frame after it (the screen); the first one right after the
// canvases appear.
const hovers = (page, side) => page.evaluate(async (side) => {
  const a = document.querySelector('[data-testid=gpu-view][data-name=a]');
  const out = [];
  for (let k = 0; k < 20; k++) {
    const r = a.getBoundingClientRect();
    const cell = Number(a.dataset.cellPx);
    const [px, py] = a.dataset.pan.split(',').map(Number);
    const [i, j] = [50 + 13 * k, 70 + 17 * k];
    const x = r.left + px + (j + 0.5) * cell;
    const y = r.top + py + (i + 0.5) * cell;
    if (x > r.right || y > r.bottom || i >= side || j >= side) continue;
    const want = `${i},${j}`;
    const t0 = performance.now();
    let dom = 0;
    a.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, pointerId: 9, bubbles: true }));
    await new Promise((res) => {
      const readout = () => document.querySelector('[data-testid=cell-readout]');
      const done = () => {
        dom = performance.now() - t0;
        requestAnimationFrame(() => res());
      };
      if (readout()?.dataset.index === want) return done();
      const mo = new MutationObserver(() => {
        if (readout()?.dataset.index === want) { mo.disconnect(); done(); }
      });
      mo.observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-index'] });
    });
    out.push([dom, performance.now() - t0]);
    await new Promise((res) => setTimeout(res, 30));
  }
  return out;
}, side);

const rows = [];
const first = [];
for (const webgpu of [true, false]) {
  const { browser, page } = await openPage(webgpu);
  const mode = webgpu ? 'WebGPU (SwiftShader)' : 'no WebGPU';
  for (const side of SIDES) {
    const drawn = await show(page, `a = torch.arange(${side}*${side}, dtype=torch.float32).reshape(${side}, ${side})\nb = a.t()\n`, ['a', 'b'], side);
    const info = await page.$eval('[data-testid=gpu-view][data-name=a]', (c) => ({ renderer: c.dataset.renderer, present: c.dataset.present, recorded: c.dataset.recorded }));
    await page.keyboard.press('Escape');
    const fitPan = await drive(page, 'pan', FRAMES);
    const zoom = await drive(page, 'zoom', FRAMES);
    const panLatency = await inputToFrame(page, 'pan', INPUTS);
    const zoomLatency = await inputToFrame(page, 'zoom', INPUTS);
    await page.focus('[data-testid=gpu-view][data-name=a]');
    for (let k = 0; k < 12; k++) await page.keyboard.press('+');
    const zoomedPan = await drive(page, 'pan', FRAMES);
    await page.keyboard.press('0');
    rows.push({ mode, side, drawn, ...info, fitPan, zoom, zoomedPan, panLatency, zoomLatency });
    console.error(`${mode} ${side}²: done`);
  }
  // First hovers after a 768 × 768 view (a, its transpose, a slice and the storage) appears.
  await page.fill('[data-testid=editor]', '');
  await page.waitForTimeout(500);
  await page.fill('[data-testid=editor]', 'a = torch.arange(768*768, dtype=torch.float32).reshape(768, 768)\nb = a.t()\nc = a[::2, 100:400:3]\n');
  await page.waitForFunction(() => {
    document.querySelector('[data-testid=step-last]')?.click();
    return document.querySelectorAll('[data-testid=gpu-view][data-name]').length === 3;
  }, null, { timeout: 60000, polling: 50 });
  await page.$eval('[data-testid=gpu-view][data-name=a]', (c) => c.scrollIntoView({ block: 'center' }));
  first.push({ mode, lat: await hovers(page, 768) });
  if (page.errors.length) console.log(`page errors: ${page.errors.join('\n')}`);
  await browser.close();
}
server.close();

console.log('\n| page | cells | renderer / present | figure | paint: median / p95 / max | rAF interval | shown interval |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  const cells = `${r.side}² ${r.recorded === 'true' ? '' : '(values not recorded)'}`.trim();
  for (const [name, d] of [['pan at fit', r.fitPan], ['wheel zoom', r.zoom], [`pan at ${r.zoomedPan.cell.toFixed(1)} px cells`, r.zoomedPan]]) {
    console.log(`| ${r.mode} | ${cells} | ${r.renderer} / ${r.present} | ${name} | ${fmt(d.paints)} | ${fmt(d.intervals)} | ${fmt(d.shown)} |`);
  }
}
console.log('\n| page | cells | script run and drawn | input to frame, pan: median / p95 / max | input to frame, wheel zoom |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.mode} | ${r.side}² | ${r.drawn} ms | ${fmt(r.panLatency)} | ${fmt(r.zoomLatency)} |`);
console.log('\n| page | first hover after the 768² views appear: readout / next frame | hovers, readout: median / p95 / max | hovers, next frame |');
console.log('| --- | --- | --- | --- |');
for (const f of first) {
  const [dom, shown] = [f.lat.map((l) => l[0]), f.lat.map((l) => l[1])];
  console.log(`| ${f.mode} | ${dom[0]?.toFixed(1)} / ${shown[0]?.toFixed(1)} ms | ${fmt(dom)} | ${fmt(shown)} (${f.lat.length} hovers) |`);
}
