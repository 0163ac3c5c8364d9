// Figures for the web app in headless Chromium (not a test: it prints numbers).
//   node tests/e2e/bench.mjs            after `trunk build --release`
// Each figure is timed up to the end of the frame that paints the change (a requestAnimationFrame
// callback, then a task after it: the frame's style, layout and paint are done by then).
// - first render: navigation start to the first tensor cell in the DOM (default scenario);
// - step: click "next"/"prev" to the new step painted, with 4 views of 4096 elements (and
//   separately, steps where the 4th view appears or goes, which redraw the panels);
// - hover: pointer over a cell to every alias highlighted and painted, same script;
// - scroll: a big grid scrolled by its own height to the new cells painted, same script;
// - wasm size, raw and gzipped.
// Prints the median and the worst of each.
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { launch, root, serve } from './harness.mjs';

const STEPS = 20;
const STRUCTURE_STEPS = 10;
const HOVERS = 20;
const SCROLLS = 10;
const LOADS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const worst = (xs) => Math.max(...xs);
const figure = (xs, digits = 1) => `median ${median(xs).toFixed(digits)} ms, worst ${worst(xs).toFixed(digits)} ms`;
const server = await serve();
const url = `http://127.0.0.1:${server.address().port}/`;
const script4 = [
  'a = torch.arange(4096, dtype=torch.float32).reshape(64, 64)',
  'b = a.t()',
  'c = a.view(16, 256)',
  'd = a.flatten()',
  'a[0, 0] = 1',
  'a[1, 1] = 2',
].join('\n');

for (const webgpu of [false, true]) {
  const browser = await launch(webgpu);
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const renders = [];
  for (let i = 0; i < LOADS; i++) {
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForSelector('[data-testid=view-cell]');
    renders.push(Date.now() - t0);
    await page.close();
  }
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('[data-testid=view-cell]');
  await page.evaluate((t) => {
    const ta = document.querySelector('[data-testid=editor]');
    ta.value = t;
    ta.dispatchEvent(new Event('input', { bubbles: true }));
  }, script4);
  await page.waitForFunction(() => document.querySelector('[data-testid=step-label]')?.textContent.includes('of 6'));
  await page.click('[data-testid=step-first]');
  for (let i = 0; i < 3; i++) await page.click('[data-testid=step-next]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=view]').length === 4);
  const cells = await page.evaluate(() => document.querySelectorAll('[data-testid=view-cell]').length);
  // In the page: resolves once `ready()` holds and the frame after it has been rendered.
  const helpers = () => {
    window.__painted = (ready) => new Promise((r) => {
      const f = () => (ready() ? requestAnimationFrame(() => setTimeout(r, 0)) : setTimeout(f, 0));
      f();
    });
  };
  await page.evaluate(helpers);
  // Steps alternately next and prev, from the click to the new step painted.
  const stepping = (n) => page.evaluate(async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const button = document.querySelector(i % 2 ? '[data-testid=step-prev]' : '[data-testid=step-next]');
      const label = () => document.querySelector('[data-testid=step-label]').textContent;
      const before = label();
      const t0 = performance.now();
      button.click();
      await window.__painted(() => label() !== before);
      out.push(performance.now() - t0);
    }
    return out;
  }, n);
  // Step 4 (`d = a.flatten()`) <-> step 5 (`a[0, 0] = 1`, a write): the same 4 views.
  const steps = await stepping(STEPS);
  // Hover: dispatch mouseover on a cell of b (a transpose: its aliases are elsewhere in a, c, d
  // and the storage), to the highlight painted.
  const hovers = await page.evaluate(async (n) => {
    const out = [];
    const cells = [...document.querySelectorAll('[data-testid=view][data-name=b] [data-testid=view-cell]')];
    for (let i = 0; i < n; i++) {
      const cell = cells[(i * 997) % cells.length];
      const t0 = performance.now();
      cell.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      await window.__painted(() => cell.getAttribute('data-highlighted') === 'true');
      out.push(performance.now() - t0);
    }
    return out;
  }, HOVERS);
  // Scroll: b's grid box down by its own height (then back up), to the row in view painted.
  const scrolls = await page.evaluate(async (n) => {
    const box = document.querySelector('[data-testid=view][data-name=b] [data-testid=view-grid]');
    if (box.scrollHeight <= box.clientHeight) return null;
    const out = [];
    for (let i = 0; i < n; i++) {
      const down = i % 2 === 0;
      const t0 = performance.now();
      box.scrollTop = down ? box.clientHeight : 0;
      // The row now in the middle of the box (b has 64 rows of equal height).
      const row = Math.floor((box.scrollTop + box.clientHeight / 2) / (box.scrollHeight / 64));
      await window.__painted(() => box.querySelector(`[data-index^="${row},"]`) !== null);
      out.push(performance.now() - t0);
    }
    return out;
  }, SCROLLS);
  // Step 3 <-> step 4: the fourth view appears and goes (the panels are redrawn).
  await page.click('[data-testid=step-prev]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=view]').length === 3);
  const redraws = await stepping(STRUCTURE_STEPS);
  const badge = await page.textContent('[data-testid=engine-badge]');
  console.log(`${webgpu ? 'WebGPU flag' : 'no WebGPU'} (${badge.trim()}):`);
  console.log(`  first render: ${figure(renders, 0)} (${renders.length} loads: ${renders.join(', ')})`);
  console.log(`  step: ${figure(steps)} (${steps.length} steps; 4 views of 4096 elements, ${cells} view cells in the DOM)`);
  console.log(`  step that adds or removes the 4th view: ${figure(redraws)} (${redraws.length} steps)`);
  console.log(`  hover: ${figure(hovers)} (${hovers.length} hovers)`);
  console.log(`  scroll: ${scrolls ? `${figure(scrolls)} (${scrolls.length} scrolls of a 64×64 grid's box)` : 'not scrollable (every cell drawn)'}`);
  await browser.close();
}
const wasm = (await readdir(join(root, 'dist'))).find((f) => f.endsWith('.wasm'));
const bytes = await readFile(join(root, 'dist', wasm));
console.log(`wasm: ${(bytes.length / 1024).toFixed(0)} KiB, ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(0)} KiB gzipped`);
server.close();
