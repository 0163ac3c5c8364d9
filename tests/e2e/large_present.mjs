// WebGPU frames presented on the canvas (issue 20), in headless Chromium on SwiftShader with
// the presenting flags (harness.mjs): a 1024 × 1024 view `a` (1M cells) and its transpose.
// - Presenting: every canvas is `webgpu`, `data-present="canvas"`, `data-frame-source="gpu"`
//   at every animation frame while `a` is panned, zoomed and hovered, and no frame is read back
//   (GPUBuffer.mapAsync calls counted with their buffers' sizes).
// - The same cells as the canvas-2D painter: at the same plans (fit; zoomed in with grid lines,
//   values as text and a hovered cell's rings; panned), screenshots of `a`'s canvas on the
//   WebGPU page and on a page without WebGPU are compared pixel by pixel.
// - Falling back: after a lost device the canvases are canvas-2D, and the next data present on a
//   new device; a canvas whose WebGPU context refuses `configure` is drawn by the canvas-2D
//   painter (and says so once per canvas in the console); without the presenting flags the
//   canvas's first frame loses the device (TOOLCHAIN.md), and the page goes on on the CPU with
//   canvas-2D pictures.
// Screenshots go to target/e2e/present-*.png. Run after `trunk build --release`.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { check, expect, expectEqual, launch, results, serve, shots, watchErrors } from './harness.mjs';

await mkdir(shots, { recursive: true });
const server = await serve();
const base = `http://127.0.0.1:${server.address().port}/`;
const SCRIPT = 'a = torch.arange(1024*1024, dtype=torch.float32).reshape(1024, 1024)\nb = a.t()\n';
const canvasOf = (name) => `[data-testid=gpu-view][data-name=${name}]`;

/** Counts mapAsync calls with sizes, keeps the devices the page gets (to lose one); `refuse`:
 * every canvas context's configure throws. */
function initScript(refuse) {
  globalThis.__maps = [];
  globalThis.__devices = [];
  if (globalThis.GPUAdapter) {
    const request = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (...args) {
      const device = await request.apply(this, args);
      globalThis.__devices.push(device);
      return device;
    };
  }
  if (globalThis.GPUBuffer) {
    const map = GPUBuffer.prototype.mapAsync;
    GPUBuffer.prototype.mapAsync = function (...args) {
      globalThis.__maps.push(Number(this.size));
      return map.apply(this, args);
    };
  }
  if (refuse && globalThis.GPUCanvasContext) {
    GPUCanvasContext.prototype.configure = function () {
      throw new TypeError('configure refused (test)');
    };
  }
}

async function open(webgpu, { refuse = false, present = true } = {}) {
  const browser = await launch(webgpu, { present });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.addInitScript(initScript, refuse);
  const page = watchErrors(await context.newPage());
  page.logs = [];
  page.on('console', (m) => page.logs.push(m.text()));
  await page.goto(`${base}index.html`);
  await page.waitForSelector('[data-testid=view]', { timeout: 20000 });
  if (webgpu) {
    await page.waitForFunction(() => document.querySelector('[data-testid=engine-badge]')?.textContent.startsWith('WebGPU'), null, { timeout: 20000 });
  }
  await page.fill('[data-testid=editor]', SCRIPT);
  await page.waitForFunction(() => {
    document.querySelector('[data-testid=step-last]')?.click();
    return document.querySelectorAll('[data-testid=gpu-view][data-name]').length === 2;
  }, null, { timeout: 60000, polling: 200 });
  await page.$eval(canvasOf('a'), (c) => c.scrollIntoView({ block: 'start' }));
  return { browser, page };
}

/** Waits until every presented frame is done and two more animation frames ran. */
async function settle(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')].every((c) =>
    c.dataset.present !== 'canvas' || (c.dataset.frameSource === 'gpu' && c.dataset.gpuDone === c.dataset.gpuFrames)), null, { timeout: 30000 });
  await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
}

/** The client point at the centre of cell (i, j) of `name`'s canvas. */
async function pointOver(page, name, i, j) {
  return page.$eval(canvasOf(name), (c, [i, j]) => {
    const r = c.getBoundingClientRect();
    const cell = Number(c.dataset.cellPx);
    const [px, py] = c.dataset.pan.split(',').map(Number);
    return { x: r.left + px + (j + 0.5) * cell, y: r.top + py + (i + 0.5) * cell };
  }, [i, j]);
}

/** A screenshot of `name`'s canvas (in the viewport), clipped at its pixel-snapped box: the
 * pages' layouts differ by fractions of a pixel above the canvas (the engine's line is not the
 * same), and a clip at the raw fractional box rounds one page's picture a row away from the
 * other's. */
async function canvasShot(page, name) {
  const box = await page.$eval(canvasOf(name), (c) => {
    const r = c.getBoundingClientRect();
    return { x: Math.round(r.left), y: Math.max(0, Math.round(r.top)), width: Math.round(r.width), height: Math.round(r.height) };
  });
  return page.screenshot({ clip: box });
}

/** Compares two PNG screenshots in `page`: pixels, equal ones, and ones off by more than 2. */
function compare(page, one, two) {
  return page.evaluate(async ([p, q]) => {
    const pixels = async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const c = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = c.getContext('2d');
      ctx.drawImage(bitmap, 0, 0);
      return { w: c.width, h: c.height, d: ctx.getImageData(0, 0, c.width, c.height).data };
    };
    const [a, b] = [await pixels(p), await pixels(q)];
    if (a.w !== b.w || a.h !== b.h) return { size: [a.w, a.h, b.w, b.h] };
    let equal = 0;
    let off = 0;
    let worst = 0;
    for (let k = 0; k < a.d.length; k += 4) {
      const d = Math.max(Math.abs(a.d[k] - b.d[k]), Math.abs(a.d[k + 1] - b.d[k + 1]), Math.abs(a.d[k + 2] - b.d[k + 2]));
      if (d === 0) equal += 1;
      else if (d > 2) off += 1;
      worst = Math.max(worst, d);
    }
    return { total: a.d.length / 4, equal, off, worst, size: [a.w, a.h] };
  }, [one.toString('base64'), two.toString('base64')]);
}

const gpu = await open(true);
const cpu = await open(false);
await settle(gpu.page);

await check('[WebGPU] every canvas presents GPU frames on the canvas; without WebGPU they are canvas-2D', async () => {
  const attrs = (page) => page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => `${c.dataset.renderer}/${c.dataset.present}/${c.dataset.frameSource}`));
  expectEqual([...new Set(await attrs(gpu.page))], ['webgpu/canvas/gpu'], 'the WebGPU page\'s canvases');
  expectEqual([...new Set(await attrs(cpu.page))], ['canvas2d/none/cpu'], 'the canvases without WebGPU');
});

await check('[WebGPU] panning, zooming and hovering a 1M-cell view: every frame is the GPU\'s, presented; nothing read back', async () => {
  const page = gpu.page;
  await page.evaluate(() => {
    globalThis.__maps.length = 0;
    globalThis.__samples = [];
    globalThis.__sampling = true;
    const tick = () => {
      if (!globalThis.__sampling) return;
      globalThis.__samples.push([...document.querySelectorAll('[data-testid=gpu-view]')]
        .map((c) => `${c.dataset.renderer}/${c.dataset.present}/${c.dataset.frameSource}`));
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const p = await pointOver(page, 'a', 300, 400);
  for (let k = 0; k < 20; k++) await page.mouse.move(p.x + 3 * k, p.y + 2 * k);
  await page.mouse.move(p.x, p.y);
  for (let k = 0; k < 8; k++) await page.mouse.wheel(0, -240);
  await page.mouse.down();
  await page.mouse.move(p.x - 200, p.y - 100, { steps: 20 });
  await page.mouse.up();
  for (let k = 0; k < 8; k++) await page.mouse.wheel(0, 240);
  for (let k = 0; k < 20; k++) await page.mouse.move(p.x - 5 * k, p.y + 3 * k);
  await settle(page);
  const { samples, maps, frames } = await page.evaluate(() => {
    globalThis.__sampling = false;
    return {
      samples: globalThis.__samples, maps: [...globalThis.__maps],
      frames: [...document.querySelectorAll('[data-testid=gpu-view]')].map((c) => `${c.dataset.name ?? c.dataset.storage}: ${c.dataset.gpuFrames} frames`),
    };
  });
  const seen = {};
  for (const f of samples) for (const s of f) seen[s] = (seen[s] ?? 0) + 1;
  console.log(`     ${samples.length} animation frames sampled: ${JSON.stringify(seen)}; presented ${frames.join(', ')}; mapAsync: ${maps.length} calls (${maps.join(', ') || 'none'} bytes)`);
  expect(samples.length > 20, `frames sampled: ${samples.length}`);
  expectEqual(Object.keys(seen), ['webgpu/canvas/gpu'], 'what every canvas showed at every frame');
  expectEqual(maps.filter((n) => n >= 65536), [], 'frame-sized mapAsync reads');
  expectEqual(page.errors, [], 'page errors');
});

await check('[WebGPU] the presented frames show the same cells as the canvas-2D painter at the same plans', async () => {
  // The same plan on both pages: fit, then zoomed with the keyboard and hovered, then panned.
  const plans = [
    ['fit and hovered', async (page) => {
      await page.focus(canvasOf('a'));
      await page.keyboard.press('0');
      const p = await pointOver(page, 'a', 500, 600);
      await page.mouse.move(p.x, p.y);
    }],
    ['zoomed, values as text, pinned and hovered', async (page) => {
      await page.focus(canvasOf('a'));
      for (let k = 0; k < 20; k++) await page.keyboard.press('+');
      const [i, j] = await page.$eval(canvasOf('a'), (c) => {
        const cell = Number(c.dataset.cellPx);
        const [px, py] = c.dataset.pan.split(',').map(Number);
        const r = c.getBoundingClientRect();
        return [Math.floor((r.height / 2 - py) / cell), Math.floor((r.width / 2 - px) / cell)];
      });
      const p = await pointOver(page, 'a', i, j);
      await page.mouse.click(p.x, p.y);
      const q = await pointOver(page, 'a', i + 1, j + 2);
      await page.mouse.move(q.x, q.y);
    }],
    ['panned', async (page) => {
      const p = await pointOver(page, 'a', 8, 9);
      await page.mouse.move(p.x, p.y);
      await page.mouse.down();
      await page.mouse.move(p.x - 150, p.y - 60, { steps: 6 });
      await page.mouse.up();
      await page.mouse.move(1, 1);
    }],
  ];
  for (const [name, act] of plans) {
    for (const side of [gpu, cpu]) {
      // The canvas at the top of the viewport on both pages (the wheel of the check above
      // scrolled one of them), so that the plan and the screenshot need no scrolling.
      await side.page.$eval(canvasOf('a'), (c) => c.scrollIntoView({ block: 'start' }));
      await act(side.page);
      await settle(side.page);
    }
    const state = async (page) => page.$eval(canvasOf('a'), (c) => [c.dataset.cellPx, c.dataset.pan, c.dataset.highlightOffset]);
    expectEqual(await state(gpu.page), await state(cpu.page), `the plan (${name})`);
    const [one, two] = [await canvasShot(gpu.page, 'a'), await canvasShot(cpu.page, 'a')];
    const file = name.replace(/ /g, '-');
    await writeFile(join(shots, `present-webgpu-${file}.png`), one);
    await writeFile(join(shots, `present-canvas2d-${file}.png`), two);
    const d = await compare(cpu.page, one, two);
    console.log(`     ${name}: ${JSON.stringify(d)}`);
    expect(d.total > 0 && d.off <= d.total * 0.001, `pixels off by more than 2 levels (${name}): ${JSON.stringify(d)}`);
  }
});

await check('[WebGPU] a lost device: the canvases go to the canvas-2D painter; the next data present on a new device', async () => {
  const page = gpu.page;
  await page.evaluate(() => globalThis.__devices.at(-1).destroy());
  await page.waitForFunction(() => document.querySelector('[data-testid=engine-badge]')?.textContent.includes('device lost'), null, { timeout: 10000 });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')].every((c) => c.dataset.present === 'none'), null, { timeout: 10000 });
  const attrs = () => page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => `${c.dataset.renderer}/${c.dataset.present}/${c.dataset.frameSource}`));
  expectEqual([...new Set(await attrs())], ['canvas2d/none/cpu'], 'the canvases once the device is lost');
  await page.screenshot({ path: join(shots, 'present-lost.png') });
  // New data: the page asks for a new device, runs on it, and the canvases present again.
  await page.fill('[data-testid=editor]', SCRIPT.replace('b = a.t()', 'b = a.t()\nc = b[::2]'));
  await page.waitForFunction(() => {
    document.querySelector('[data-testid=step-last]')?.click();
    return document.querySelector('[data-testid=engine-badge]')?.textContent.startsWith('WebGPU')
      && document.querySelectorAll('[data-testid=gpu-view][data-name]').length === 3;
  }, null, { timeout: 30000, polling: 200 });
  await settle(page);
  expectEqual([...new Set(await attrs())], ['webgpu/canvas/gpu'], 'the canvases on the new device');
  expectEqual(await page.evaluate(() => globalThis.__devices.length), 2, 'devices the page asked for');
  expectEqual(page.errors, [], 'page errors');
});

await gpu.browser.close();
await cpu.browser.close();

await check('[WebGPU, configure refused] the canvases fall back to the canvas-2D painter and say so once', async () => {
  const { browser, page } = await open(true, { refuse: true });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')].every((c) => c.dataset.present === 'none'), null, { timeout: 20000 });
  const attrs = await page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => `${c.dataset.renderer}/${c.dataset.present}/${c.dataset.frameSource}`));
  expectEqual([...new Set(attrs)], ['canvas2d/none/cpu'], 'the canvases after a refused configure');
  const said = page.logs.filter((l) => l.includes('canvas-2D painter from now on'));
  expectEqual(said.length, 3, `one console line per canvas: ${said.join(' | ')}`);
  const p = await pointOver(page, 'a', 3, 4);
  await page.mouse.move(p.x, p.y);
  await page.waitForFunction(() => document.querySelector('[data-testid=cell-readout]')?.dataset.index === '3,4', null, { timeout: 3000 });
  await page.screenshot({ path: join(shots, 'present-refused.png') });
  expectEqual(page.errors, [], 'page errors');
  await browser.close();
});

await check('[WebGPU without the presenting flags] the device lost at the first frame: the page goes on with canvas-2D pictures', async () => {
  const { browser, page } = await open(true, { present: false });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')].every((c) => c.dataset.present === 'none'), null, { timeout: 30000 });
  const badge = await page.textContent('[data-testid=engine-badge]');
  const attrs = await page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => `${c.dataset.renderer}/${c.dataset.present}/${c.dataset.frameSource}`));
  console.log(`     badge: ${badge}; canvases: ${[...new Set(attrs)]}; console: ${page.logs.filter((l) => l.includes('Stridescope')).join(' | ')}`);
  expectEqual([...new Set(attrs)], ['canvas2d/none/cpu'], 'the canvases after the device was lost');
  await page.screenshot({ path: join(shots, 'present-noflags.png') });
  expectEqual(page.errors, [], 'page errors');
  await browser.close();
});

server.close();
console.log(`\n${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
