// Large tensors drawn on canvases (issue 11), in headless Chromium with WebGPU (SwiftShader,
// frames presented on the canvases: issue 20), without it (the canvas-2D fallback), and with
// WebGPU but a canvas that gives no WebGPU context (the fallback after a failed configure;
// LARGE_MODES=canvas2d,webgpu,no-context picks some): a 768 × 768 view `a`, its transpose `b` and a
// strided slice `c`. Picking at computed positions gives PyTorch's index and storage offset;
// hovering a cell highlights its storage element in every canvas; zoom, pan and the keyboard
// keep picking right; the DOM/canvas toggle; pins, stride jumps, the write flash; an
// image-shaped view in RGB (and its channels_last copy); screenshots in English and Chinese
// (target/e2e/large-*.png); axe-core. With WebGPU presenting, every frame shown while zooming,
// panning and hovering is the GPU's, presented on the canvas (sampled at every animation
// frame), and no frame is read back (GPUBuffer.mapAsync calls counted, with their sizes).
// Run after `trunk build --release`.
//
// The layouts expected here are PyTorch's, worked out by hand: torch.arange(n).reshape(768, 768)
// is contiguous, strides (768, 1), offset 0; .t() swaps them to (1, 768); a[::2, 100:400:3]
// has shape (384, 100), strides (2·768, 3·1) = (1536, 3) and offset 100·1 = 100.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { check, expect, expectEqual, launch, results, root, serve, shots, watchErrors } from './harness.mjs';

await mkdir(shots, { recursive: true });
const server = await serve();
const base = `http://127.0.0.1:${server.address().port}/`;
const axeSource = await readFile(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

const SCRIPT = 'a = torch.arange(768*768, dtype=torch.float32).reshape(768, 768)\nb = a.t()\nc = a[::2, 100:400:3]\na[1, 2] = -1\n';
const LAYOUT = {
  a: { shape: [768, 768], stride: [768, 1], offset: 0 },
  b: { shape: [768, 768], stride: [1, 768], offset: 0 },
  c: { shape: [384, 100], stride: [1536, 3], offset: 100 },
};
const offsetOf = (name, [i, j]) => LAYOUT[name].offset + i * LAYOUT[name].stride[0] + j * LAYOUT[name].stride[1];
/** a's value at storage element `o` after the script: arange, with a[1, 2] = -1. */
const valueAt = (o) => (o === 768 + 2 ? -1 : o);

const canvasOf = (name) => `[data-testid=gpu-view][data-name=${name}]`;

/** A canvas's geometry and contract attributes (scrolled into view first). */
async function info(page, selector) {
  await page.waitForFunction((s) => document.querySelector(s)?.dataset.cellPx, selector, { timeout: 5000 });
  return page.$eval(selector, async (c) => {
    // Scrolled into view, and measured once it stays put for two frames.
    const box = () => JSON.stringify(c.getBoundingClientRect());
    const frame = () => new Promise((res) => requestAnimationFrame(res));
    const r0 = c.getBoundingClientRect();
    if (r0.top < 0 || r0.bottom > innerHeight) c.scrollIntoView({ block: 'center' });
    for (let last = '', k = 0; k < 20; k++) {
      await frame();
      const now = box();
      if (now === last) break;
      last = now;
    }
    const r = c.getBoundingClientRect();
    return {
      x: r.left, y: r.top, w: r.width, h: r.height, cell: Number(c.dataset.cellPx),
      pan: c.dataset.pan.split(',').map(Number), renderer: c.dataset.renderer,
      rows: Number(c.dataset.rows), cols: Number(c.dataset.cols), dpr: devicePixelRatio,
      highlight: c.dataset.highlightOffset, mode: c.dataset.mode,
    };
  });
}

/**
 * The client point at the centre of cell (row, col), and the cell there by the contract's
 * geometry (cell (i, j) spans [pan + j·cell, pan + (j + 1)·cell)), from the point as the
 * browser reports it (a float).
 */
function pointOver(g, row, col) {
  const x = g.x + g.pan[0] + (col + 0.5) * g.cell;
  const y = g.y + g.pan[1] + (row + 0.5) * g.cell;
  const cellOf = (p, origin, pan) => Math.floor((Math.fround(p) - origin - pan) / g.cell);
  return { x, y, row: cellOf(y, g.y, g.pan[1]), col: cellOf(x, g.x, g.pan[0]) };
}

async function readout(page) {
  return page.$eval('[data-testid=cell-readout]', (r) => ({
    view: r.dataset.view, index: r.dataset.index, offset: r.dataset.offset, text: r.textContent,
  }));
}

/** Moves the pointer over cell (i, j) of view `name`; returns the cell the page should pick. */
async function hoverCell(page, name, i, j) {
  const g = await info(page, canvasOf(name));
  const p = pointOver(g, i, j);
  await page.mouse.move(p.x, p.y);
  return [p.row, p.col];
}

/** Hovers cell (i, j) of `name` and checks the readout against PyTorch's layout. */
async function expectPick(page, name, i, j) {
  const [row, col] = await hoverCell(page, name, i, j);
  const o = offsetOf(name, [row, col]);
  await page.waitForFunction(([v, idx]) => {
    const r = document.querySelector('[data-testid=cell-readout]');
    return r?.dataset.view === v && r?.dataset.index === idx;
  }, [name, `${row},${col}`], { timeout: 3000 }).catch(() => {});
  const r = await readout(page);
  expectEqual([r.view, r.index, r.offset], [name, `${row},${col}`, String(o)], `readout over ${name}[${i}, ${j}]`);
  const L = LAYOUT[name];
  expect(r.text.includes(`offset = ${L.offset} + ${row}·${L.stride[0]} + ${col}·${L.stride[1]} = ${o}`), `formula in the readout: ${r.text}`);
  const v = valueAt(o);
  expect(r.text.includes(` = ${v}.`), `value ${v} in the readout: ${r.text}`);
  return o;
}

/** Every canvas's highlighted offset, by view name or storage id. */
async function highlights(page) {
  return page.$$eval('[data-testid=gpu-view]', (cs) => Object.fromEntries(cs.map((c) => [c.dataset.name ?? c.dataset.storage, c.dataset.highlightOffset])));
}

/** The RGBA pixels of an element's screenshot, counted by colour class. */
async function colours(page, selector) {
  const png = await page.locator(selector).screenshot();
  return page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const c = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = c.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const out = { red: 0, green: 0, blue: 0, grey: 0, other: 0, total: d.length / 4 };
    for (let k = 0; k < d.length; k += 4) {
      const [r, g, bl] = [d[k], d[k + 1], d[k + 2]];
      if (r > 200 && g < 60 && bl < 60) out.red += 1;
      else if (g > 200 && r < 60 && bl < 60) out.green += 1;
      else if (bl > 200 && r < 60 && g < 60) out.blue += 1;
      else if (Math.abs(r - g) < 12 && Math.abs(g - bl) < 12) out.grey += 1;
      else out.other += 1;
    }
    return out;
  }, png.toString('base64'));
}

async function axe(page) {
  await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async () => {
    const r = await globalThis.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Types `script` and goes to its last step, once the views are `names`. */
async function runScript(page, script, names) {
  await page.fill('[data-testid=editor]', script);
  // Each poll goes to the last step (of whichever run is shown) and looks at its views.
  await page.waitForFunction((want) => {
    document.querySelector('[data-testid=step-last]')?.click();
    return [...document.querySelectorAll('[data-testid=view]')].map((v) => v.dataset.name).join(',') === want;
  }, names.join(','), { timeout: 30000, polling: 200 });
}

/** Counts GPUBuffer.mapAsync calls (with the buffers' sizes) and, with `noContext`, makes a
 * canvas's getContext("webgpu") fail (as where the context cannot be had). */
function initScript(noContext) {
  globalThis.__maps = [];
  if (globalThis.GPUBuffer) {
    const map = GPUBuffer.prototype.mapAsync;
    GPUBuffer.prototype.mapAsync = function (...args) {
      globalThis.__maps.push(Number(this.size));
      return map.apply(this, args);
    };
  }
  if (noContext) {
    const get = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
      return kind === 'webgpu' ? null : get.call(this, kind, ...rest);
    };
  }
}

/** Starts recording, at every animation frame, what each canvas shows (renderer/present/source). */
const startSampling = (page) => page.evaluate(() => {
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

/** Stops sampling; every frame of every canvas must have been `want`, and no mapAsync frame-sized. */
async function expectSamples(page, want, what) {
  const { samples, maps } = await page.evaluate(() => {
    globalThis.__sampling = false;
    return { samples: globalThis.__samples, maps: [...globalThis.__maps] };
  });
  const seen = {};
  for (const frame of samples) for (const s of frame) seen[s] = (seen[s] ?? 0) + 1;
  console.log(`     ${what}: ${samples.length} animation frames, canvases showed ${JSON.stringify(seen)}; mapAsync ${maps.length} calls (${maps.join(', ') || 'none'} bytes)`);
  expectEqual(Object.keys(seen), [want], `what the canvases showed at every frame (${what})`);
  const big = maps.filter((n) => n >= 65536);
  expectEqual(big, [], `frame-sized mapAsync reads (${what})`);
}

const modes = (process.env.LARGE_MODES ?? 'canvas2d,webgpu,no-context').split(',');
for (const mode of modes) {
  const webgpu = mode !== 'canvas2d';
  const presents = mode === 'webgpu';
  const renderer = presents ? 'webgpu' : 'canvas2d';
  const label = { canvas2d: '[no WebGPU]', webgpu: '[WebGPU]', 'no-context': '[WebGPU, no canvas context]' }[mode];
  const shot = { canvas2d: 'canvas2d', webgpu: 'webgpu', 'no-context': 'nocontext' }[mode];
  const browser = await launch(webgpu);
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.addInitScript(initScript, mode === 'no-context');
  const page = watchErrors(await context.newPage());
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  await page.goto(`${base}index.html`);
  await page.waitForSelector('[data-testid=view]', { timeout: 20000 });
  if (webgpu) {
    await page.waitForFunction(() => document.querySelector('[data-testid=engine-badge]')?.textContent.startsWith('WebGPU'), null, { timeout: 20000 });
  }
  const started = Date.now();
  await runScript(page, SCRIPT, ['a', 'b', 'c']);
  await page.waitForSelector(canvasOf('c'), { timeout: 30000 });
  console.log(`     ${label} script run and drawn in ${Date.now() - started} ms`);

  await check(`${label} large views and their storage are canvases with the contract's attributes; headers as PyTorch's`, async () => {
    for (const name of ['a', 'b', 'c']) {
      const header = await page.$eval(`[data-testid=view][data-name=${name}]`, (v) => [v.dataset.shape, v.dataset.stride, v.dataset.offset, v.dataset.storage]);
      const L = LAYOUT[name];
      expectEqual(header.slice(0, 3), [L.shape.join(','), L.stride.join(','), String(L.offset)], `${name}'s header`);
      const g = await info(page, canvasOf(name));
      expectEqual(g.renderer, renderer, `${name}'s renderer`);
      expect(g.cell > 0, `${name}'s data-cell-px ${g.cell}`);
      expectEqual(g.pan, [0, 0], `${name}'s default pan`);
      expectEqual([g.rows, g.cols], L.shape, `${name}'s grid`);
      console.log(`     ${label} ${name}: renderer ${g.renderer}, cell ${g.cell.toFixed(3)} px, canvas ${g.w}×${g.h}`);
    }
    const storages = await page.$$eval('[data-testid=view]', (vs) => [...new Set(vs.map((v) => v.dataset.storage))]);
    expectEqual(storages.length, 1, 'a, b and c share one storage');
    expectEqual(await page.$$eval(`[data-testid=gpu-view][data-storage=${storages[0]}]`, (cs) => cs.length), 1, 'the storage strip is a canvas');
    expectEqual(await page.$eval(`[data-testid=gpu-view][data-storage=${storages[0]}]`, (c) => c.dataset.renderer), renderer, 'the storage strip\'s renderer');
    if (presents) {
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')].every((c) => Number(c.dataset.gpuDone) > 0), null, { timeout: 20000 });
      const ms = await page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => c.dataset.gpuMs).join(', '));
      console.log(`     ${label} every canvas shows frames drawn by the GPU and presented on it (submit to done: ${ms} ms)`);
    }
    const shown = await page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => `${c.dataset.present}/${c.dataset.frameSource}`));
    expectEqual([...new Set(shown)], [presents ? 'canvas/gpu' : 'none/cpu'], 'data-present/data-frame-source of every canvas');
    if (mode === 'no-context') {
      const said = logs.filter((l) => l.includes('canvas-2D painter from now on'));
      expectEqual(said.length, 4, `each canvas says once in the console that it fell back: ${said.join(' | ')}`);
    }
  });

  await check(`${label} picking at computed positions gives the index, offset, formula and value`, async () => {
    for (const [name, cells] of [['a', [[0, 0], [5, 7], [1, 2], [767, 767], [400, 123]]], ['b', [[0, 0], [7, 5], [2, 1], [767, 767]]], ['c', [[0, 0], [10, 20], [383, 99]]]]) {
      for (const [i, j] of cells) await expectPick(page, name, i, j);
    }
  });

  await check(`${label} hovering a cell of a highlights its storage element in b's, c's and the storage's canvases`, async () => {
    if (presents) await startSampling(page);
    // c[10, 20] is a[20, 160] (offset 100 + 10·1536 + 20·3 = 15520) and b[160, 20].
    const o = await expectPick(page, 'a', 20, 160);
    expectEqual(o, 15520, 'a[20, 160] offset');
    const lit = await highlights(page);
    for (const [k, v] of Object.entries(lit)) expectEqual(v, String(o), `data-highlight-offset of ${k}`);
    await page.screenshot({ path: join(shots, `large-${shot}-hover.png`) });
    // Hovering a storage element highlights it in every view.
    const id = await page.getAttribute('[data-testid=view][data-name=a]', 'data-storage');
    const g = await info(page, `[data-testid=gpu-view][data-storage=${id}]`);
    const p = pointOver(g, 3, 5);
    await page.mouse.move(p.x, p.y);
    const at = p.row * g.cols + p.col;
    expectEqual(at, 3 * g.cols + 5, 'storage element under the pointer');
    await page.waitForFunction((want) => document.querySelector('[data-testid=gpu-view][data-name=b]')?.dataset.highlightOffset === want, String(at), { timeout: 3000 });
    const r = await readout(page);
    expectEqual([r.view, r.offset], ['', String(at)], `readout over storage element ${at}`);
    const all = await highlights(page);
    expectEqual(Object.keys(all).sort(), ['a', 'b', 'c', id].sort(), 'the canvases');
    for (const [k, v] of Object.entries(all)) expectEqual(v, String(at), `data-highlight-offset of ${k} over storage element ${at}`);
    if (presents) await expectSamples(page, 'webgpu/canvas/gpu', 'hovering');
  });

  await check(`${label} wheel zoom about the pointer, drag pan, keys and fit: picking stays right`, async () => {
    const before = await info(page, canvasOf('a'));
    if (presents) await startSampling(page);
    const [row, col] = await hoverCell(page, 'a', 100, 200);
    expectEqual([row, col], [100, 200], 'the cell at the centre of a[100, 200]');
    // Wheel events come at whole pixels: the point is rounded.
    const c = pointOver(before, 100, 200);
    const p = { x: Math.round(c.x), y: Math.round(c.y) };
    await page.mouse.move(p.x, p.y);
    for (let k = 0; k < 6; k++) await page.mouse.wheel(0, -240);
    await page.waitForFunction((c) => Number(document.querySelector('[data-testid=gpu-view][data-name=a]').dataset.cellPx) > c, before.cell);
    const zoomed = await info(page, canvasOf('a'));
    expect(zoomed.cell > before.cell * 2, `cell grew from ${before.cell} to ${zoomed.cell}`);
    // Zooming about the pointer: the grid point under it stays put, so the same cell is there.
    const u = (g) => [(p.x - g.x - g.pan[0]) / g.cell, (p.y - g.y - g.pan[1]) / g.cell];
    const [u0, u1] = [u(before), u(zoomed)];
    expect(Math.abs(u0[0] - u1[0]) < 1e-3 && Math.abs(u0[1] - u1[1]) < 1e-3, `grid point under the pointer: ${u0} then ${u1}`);
    await page.mouse.move(p.x, p.y + 0.25);
    await page.mouse.move(p.x, p.y);
    const under = (g) => `${Math.floor((p.y - g.y - g.pan[1]) / g.cell)},${Math.floor((p.x - g.x - g.pan[0]) / g.cell)}`;
    expectEqual(under(zoomed), under(before), 'the cell under the pointer stays');
    expectEqual((await readout(page)).index, under(zoomed), 'the cell under the pointer after zooming');
    await expectPick(page, 'a', row + 3, col - 2);
    // Drag: the grid moves with the pointer.
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    await page.mouse.move(p.x - 120, p.y - 70, { steps: 5 });
    await page.mouse.up();
    const panned = await info(page, canvasOf('a'));
    expectEqual([Math.round(panned.pan[0] - zoomed.pan[0]), Math.round(panned.pan[1] - zoomed.pan[1])], [-120, -70], 'pan moved with the drag');
    await expectPick(page, 'a', row + 10, col + 15);
    await page.screenshot({ path: join(shots, `large-${shot}-zoomed.png`) });
    // Keyboard: + zooms in, 0 fits; the fit button too.
    await page.focus(canvasOf('a'));
    const k0 = (await info(page, canvasOf('a'))).cell;
    await page.keyboard.press('+');
    const k1 = (await info(page, canvasOf('a'))).cell;
    expect(Math.abs(k1 / k0 - 1.25) < 1e-6 || k1 === 256, `+ zooms by 1.25: ${k0} -> ${k1}`);
    await page.keyboard.press('0');
    expectEqual((await info(page, canvasOf('a'))).cell, before.cell, '0 fits');
    expectEqual((await info(page, canvasOf('a'))).pan, [0, 0], '0 resets the pan');
    const [i0, j0] = (await readout(page)).index.split(',').map(Number);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expectEqual((await readout(page)).index, `${i0 + 2},${j0 + 1}`, 'arrow keys move the inspected cell');
    await page.click(`[data-testid=view][data-name=b] [data-testid=canvas-zoom-in]`);
    expect((await info(page, canvasOf('b'))).cell > before.cell, 'the zoom button zooms');
    await page.click(`[data-testid=view][data-name=b] [data-testid=canvas-fit]`);
    expectEqual((await info(page, canvasOf('b'))).cell, before.cell, 'the fit button fits');
    if (presents) await expectSamples(page, 'webgpu/canvas/gpu', 'zooming, panning, keys and fit');
  });

  await check(`${label} a click pins a cell in every canvas; Escape unpins`, async () => {
    const [row, col] = await hoverCell(page, 'c', 10, 20);
    const o = offsetOf('c', [row, col]);
    const g = await info(page, canvasOf('c'));
    const p = pointOver(g, 10, 20);
    await page.mouse.click(p.x, p.y);
    await page.waitForFunction((want) => document.querySelector('[data-testid=gpu-view][data-name=a]')?.dataset.pinnedOffset === want, String(o), { timeout: 3000 });
    expectEqual(await page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => c.dataset.pinnedOffset)), [String(o), String(o), String(o), String(o)], 'pinned in every canvas');
    expect(page.url().includes('#v1.'), 'the link holds the pin');
    await page.mouse.move(1, 1);
    await page.keyboard.press('Escape');
    expectEqual(await page.$eval(canvasOf('a'), (c) => c.dataset.pinnedOffset), '', 'unpinned');
  });

  await check(`${label} picking a dim of b draws its stride jumps on the storage canvas; the write of a[1, 2] flashes`, async () => {
    await page.click('[data-testid=view][data-name=b] [data-testid=dim-chip][data-dim="1"]');
    const jumps = await page.$eval('[data-testid=gpu-view][data-storage]', (c) => c.dataset.jumps);
    expectEqual(jumps, '768', 'one jump per element of b\'s dim 1');
    await page.click('[data-testid=view][data-name=b] [data-testid=dim-chip][data-dim="1"]');
    expectEqual(await page.$$eval('[data-testid=gpu-view]', (cs) => cs.map((c) => c.dataset.written)), ['1', '1', '1', '1'], 'one written element in every canvas of the storage');
  });

  await check(`${label} the SVG export says the large drawings are rasters; the PNG export has their pictures`, async () => {
    const download = async (testid) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
      return readFile(await file.path());
    };
    const svg = (await download('export-svg')).toString('utf8');
    expectEqual(svg.match(/the page draws this as a raster/g)?.length, 4, 'a, b, c and the storage said to be rasters');
    expect(!svg.includes('<image'), 'the SVG embeds no picture');
    const png = await download('export-png');
    await writeFile(join(shots, `large-${shot}-export.png`), png);
    const colourful = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + b64;
      await img.decode();
      const c = document.createElement('canvas');
      [c.width, c.height] = [img.width, img.height];
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.max(d[k], d[k + 1], d[k + 2]) - Math.min(d[k], d[k + 1], d[k + 2]) > 60) n += 1;
      return n;
    }, png.toString('base64'));
    expect(colourful > 100000, `the PNG shows the canvases' colours (${colourful} colourful pixels)`);
  });

  await check(`${label} the toggle swaps a canvas for the DOM grid and back`, async () => {
    await page.click('[data-testid=view][data-name=a] [data-testid=canvas-toggle]');
    await page.waitForSelector('[data-testid=view][data-name=a] [data-testid=view-grid]');
    expectEqual(await page.$$eval(canvasOf('a'), (c) => c.length), 0, 'a has no canvas');
    expectEqual(await page.$$eval(canvasOf('b'), (c) => c.length), 1, 'b keeps its canvas');
    const cell = await page.$eval('[data-testid=view][data-name=a] [data-testid=view-cell][data-index="1,2"]', (c) => [c.textContent, c.dataset.offset]);
    expectEqual(cell, ['-1.', '770'], 'a[1, 2] as a DOM cell');
    await page.click('[data-testid=view][data-name=a] [data-testid=canvas-toggle]');
    await page.waitForSelector(canvasOf('a'));
    await expectPick(page, 'a', 5, 7);
  });

  await check(`${label} screenshots in English and Chinese; axe-core finds no serious violations`, async () => {
    await page.mouse.move(1, 1);
    await hoverCell(page, 'b', 300, 200);
    await page.screenshot({ path: join(shots, `large-${shot}-en.png`), fullPage: true });
    const serious = await axe(page);
    expectEqual(serious, [], 'serious or critical violations (English)');
    const zh = watchErrors(await context.newPage());
    await zh.goto(`${page.url().split('#')[0].split('?')[0]}?lang=zh-CN${new URL(page.url()).hash}`);
    await zh.waitForSelector(canvasOf('c'), { timeout: 30000 });
    const words = await zh.$eval(canvasOf('a'), (c) => c.getAttribute('aria-label'));
    expect(/[\u4e00-\u9fff]/.test(words), `the canvas's label in Chinese: ${words}`);
    await hoverCell(zh, 'a', 20, 160);
    await zh.screenshot({ path: join(shots, `large-${shot}-zh-CN.png`), fullPage: true });
    expectEqual(await axe(zh), [], 'serious or critical violations (Chinese)');
    expectEqual(zh.errors, [], 'page errors (Chinese)');
    await zh.close();
  });

  await check(`${label} an image-shaped view is drawn in RGB, its channels_last copy too, with a heatmap toggle`, async () => {
    // A red picture: channel 0 is 1, channels 1 and 2 are 0. x is its channels_last copy
    // (PyTorch: shape (1, 3, 64, 96), strides (18432, 1, 288, 3)).
    await runScript(page, 'img = torch.zeros(3, 64, 96)\nimg[0] = 1\nx = img.unsqueeze(0).contiguous(memory_format=torch.channels_last)\n', ['img', 'x']);
    await page.waitForSelector(canvasOf('x'), { timeout: 30000 });
    expectEqual(await page.$eval('[data-testid=view][data-name=x]', (v) => [v.dataset.shape, v.dataset.stride]), ['1,3,64,96', '18432,1,288,3'], 'x is channels_last');
    if (presents) {
      // Each canvas's first frame of the new data is presented and done.
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=gpu-view]')].every((c) => Number(c.dataset.gpuDone) > 0 && c.dataset.frameSource === 'gpu'), null, { timeout: 20000 });
    }
    for (const name of ['img', 'x']) {
      expectEqual((await info(page, canvasOf(name))).mode, 'rgb', `${name} in RGB by default`);
      // The canvas's own background (grey) around the picture does not count.
      const c = await colours(page, canvasOf(name));
      expect(c.red > 1000 && c.red > (c.total - c.grey) * 0.9, `${name} is drawn red: ${JSON.stringify(c)}`);
    }
    await page.screenshot({ path: join(shots, `large-${shot}-image.png`), fullPage: true });
    await page.click('[data-testid=view][data-name=img] [data-testid=canvas-mode]');
    await page.waitForFunction(() => document.querySelector('[data-testid=gpu-view][data-name=img]')?.dataset.mode === 'heatmap');
    const heat = await colours(page, canvasOf('img'));
    expect(heat.red < (heat.total - heat.grey) * 0.2, `the heatmap is not a red picture: ${JSON.stringify(heat)}`);
    await page.click('[data-testid=view][data-name=img] [data-testid=canvas-mode]');
    await page.waitForFunction(() => document.querySelector('[data-testid=gpu-view][data-name=img]')?.dataset.mode === 'rgb');
    const strips = await page.$$eval('[data-testid=gpu-view][data-storage]', (cs) => cs.map((c) => c.dataset.mode));
    expectEqual(strips, ['tint', 'tint'], 'the image storages are drawn with channel tints');
  });

  expectEqual(page.errors, [], `${label} page errors`);
  await browser.close();
}

server.close();
console.log(`\n${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
