// Browser benchmark of the large-tensor canvases (issue 11): frame times while panning and
// zooming a 1024 × 1024 view (1M cells), and pointer-to-highlight latency (hovering a cell of
// `a` until the transpose `b`'s canvas has highlighted its alias and painted), in headless
// Chromium with WebGPU (SwiftShader) and without it. Figures, not a test: it prints a table
// (docs/WEB_PERFORMANCE.md keeps them). Run after `trunk build --release`.
//
// Frame figures, per renderer: "paint" is the painter's own time for one frame (the canvas's
// data-frame-ms: the fallback's pixel loop and putImageData; WebGPU's encoding and submit),
// "interval" the time between animation frames while one input event arrives per frame.
// Every frame shows the current pan, zoom and highlight: with WebGPU, the GPU's frame once it
// is back, and the canvas-2D painter's (the same picture) until then; "GPU frames" counts the
// frames that showed the GPU's pixels.
import { join } from 'node:path';
import { launch, serve, watchErrors, root } from './harness.mjs';

const SCRIPT = 'a = torch.arange(1024*1024, dtype=torch.float32).reshape(1024, 1024)\nb = a.t()\n';
const FRAMES = Number(process.env.FRAMES ?? 60);
const server = await serve(join(root, 'dist'));
const base = `http://127.0.0.1:${server.address().port}/`;

const stats = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  const at = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median: at(0.5), p95: at(0.95), max: s[s.length - 1], n: s.length };
};
const fmt = (st) => `${st.median.toFixed(1)} / ${st.p95.toFixed(1)} / ${st.max.toFixed(1)} ms`;

const rows = [];
for (const webgpu of [false, true]) {
  const browser = await launch(webgpu);
  const page = watchErrors(await browser.newPage({ viewport: { width: 1400, height: 1000 } }));
  await page.goto(`${base}index.html`);
  await page.waitForSelector('[data-testid=view]', { timeout: 20000 });
  if (webgpu) {
    await page.waitForFunction(() => document.querySelector('[data-testid=engine-badge]')?.textContent.startsWith('WebGPU'), null, { timeout: 20000 }).catch(() => {});
  }
  await page.fill('[data-testid=editor]', SCRIPT);
  const t0 = Date.now();
  await page.waitForFunction(() => {
    document.querySelector('[data-testid=step-last]')?.click();
    return document.querySelectorAll('[data-testid=gpu-view][data-name]').length === 2;
  }, null, { timeout: 60000, polling: 100 });
  const drawn = Date.now() - t0;
  const renderer = await page.getAttribute('[data-testid=gpu-view][data-name=a]', 'data-renderer');
  await page.$eval('[data-testid=gpu-view][data-name=a]', (c) => c.scrollIntoView({ block: 'center' }));
  // Measured at rest: with WebGPU, once every canvas shows the GPU's frame of the data (the
  // first GPU frames of new data take SwiftShader's cores for a while).
  if (renderer === 'webgpu') {
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')]
      .every((c) => c.dataset.frameSource === 'gpu'), null, { timeout: 30000, polling: 100 }).catch(() => {});
  }
  await page.waitForTimeout(500);

  // Drives `kind` (pan or zoom) for `frames` frames, one input event per animation frame.
  const drive = (kind, frames) => page.evaluate(async ([kind, frames]) => {
    const c = document.querySelector('[data-testid=gpu-view][data-name=a]');
    const r = c.getBoundingClientRect();
    const [cx, cy] = [r.left + r.width / 2, r.top + r.height / 2];
    const ev = (type, x, y) => c.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, pointerId: 7, pointerType: 'mouse', buttons: 1, bubbles: true }));
    const frame = () => new Promise((res) => requestAnimationFrame(res));
    const paints = [];
    const stamps = [];
    const sources = [];
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
      sources.push(c.dataset.frameSource ?? 'cpu');
    }
    if (kind === 'pan') ev('pointerup', x, cy);
    const intervals = stamps.slice(1).map((t, i) => t - stamps[i]);
    const gpu = sources.slice(2).filter((x) => x === 'gpu').length;
    return { paints: paints.slice(2), intervals: intervals.slice(1), cell: Number(c.dataset.cellPx), gpu, frames: sources.length - 2 };
  }, [kind, frames]);

  // Pointer-to-highlight: a pointermove over a's cell (i, j) until b's canvas says it
  // highlights the element and the frame that paints it has run.
  const latency = () => page.evaluate(async () => {
    const a = document.querySelector('[data-testid=gpu-view][data-name=a]');
    const b = document.querySelector('[data-testid=gpu-view][data-name=b]');
    const r = a.getBoundingClientRect();
    const cell = Number(a.dataset.cellPx);
    const [px, py] = a.dataset.pan.split(',').map(Number);
    const out = [];
    for (let k = 0; k < 20; k++) {
      const [i, j] = [50 + 13 * k, 70 + 17 * k];
      const want = String(1024 * i + j);
      const x = r.left + px + (j + 0.5) * cell;
      const y = r.top + py + (i + 0.5) * cell;
      if (x > r.right || y > r.bottom) continue;
      const t0 = performance.now();
      a.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, pointerId: 9, bubbles: true }));
      await new Promise((res) => {
        const done = () => requestAnimationFrame(() => setTimeout(res, 0));
        if (b.dataset.highlightOffset === want) return done();
        const mo = new MutationObserver(() => {
          if (b.dataset.highlightOffset === want) { mo.disconnect(); done(); }
        });
        mo.observe(b, { attributes: true, attributeFilter: ['data-highlight-offset'] });
      });
      out.push(performance.now() - t0);
      await new Promise((res) => setTimeout(res, 30));
    }
    return out;
  });

  await page.keyboard.press('Escape');
  const fitPan = await drive('pan', FRAMES);
  const zoom = await drive('zoom', FRAMES);
  // Zoomed in to about 8 px per cell (grid lines drawn), then panned.
  await page.focus('[data-testid=gpu-view][data-name=a]');
  for (let k = 0; k < 12; k++) await page.keyboard.press('+');
  const zoomedPan = await drive('pan', FRAMES);
  await page.keyboard.press('0');
  await page.waitForTimeout(200);
  const lat = await latency();
  rows.push({ mode: webgpu ? 'WebGPU (SwiftShader)' : 'no WebGPU', renderer, drawn, fitPan, zoom, zoomedPan, lat });
  if (page.errors.length) console.log(`page errors: ${page.errors.join('\n')}`);
  await browser.close();
}
server.close();

console.log('\n| page | renderer | figure | paint: median / p95 / max | frame interval: median / p95 / max | GPU frames |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  for (const [name, d] of [['pan at fit (sub-pixel cells)', r.fitPan], ['wheel zoom', r.zoom], [`pan at ${r.zoomedPan.cell.toFixed(1)} px cells`, r.zoomedPan]]) {
    console.log(`| ${r.mode} | ${r.renderer} | ${name} | ${fmt(stats(d.paints))} | ${fmt(stats(d.intervals))} | ${d.gpu} of ${d.frames} |`);
  }
}
console.log('\n| page | renderer | script run and first drawn | pointer-to-highlight: median / p95 / max |');
console.log('| --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.mode} | ${r.renderer} | ${r.drawn} ms | ${fmt(stats(r.lat))} (${r.lat.length} hovers) |`);
