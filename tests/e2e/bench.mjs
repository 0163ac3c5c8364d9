// Figures for the web app in headless Chromium (not a test: it prints numbers).
//   node tests/e2e/bench.mjs            after `trunk build --release`
// - first render: navigation start to the first tensor drawn (default scenario);
// - step: click "next" to the new step painted, with 4 views of 4096 elements;
// - hover: pointer over a cell to every alias highlighted, same script;
// - wasm size, raw and gzipped.
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { launch, root, serve } from './harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
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
  for (let i = 0; i < 5; i++) {
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
  // Step: time from the click to the next painted frame with the new label.
  const steps = await page.evaluate(async () => {
    const out = [];
    for (let i = 0; i < 6; i++) {
      const button = document.querySelector(i % 2 ? '[data-testid=step-prev]' : '[data-testid=step-next]');
      const before = document.querySelector('[data-testid=step-label]').textContent;
      const t0 = performance.now();
      button.click();
      await new Promise((r) => { const f = () => (document.querySelector('[data-testid=step-label]').textContent !== before ? requestAnimationFrame(() => r()) : setTimeout(f, 0)); f(); });
      out.push(performance.now() - t0);
    }
    return out;
  });
  // Hover: dispatch mouseover on a cell, wait for the highlight, next frame.
  const hovers = await page.evaluate(async () => {
    const out = [];
    const cells = [...document.querySelectorAll('[data-testid=view][data-name=b] [data-testid=view-cell]')];
    for (let i = 0; i < 10; i++) {
      const cell = cells[(i * 997) % cells.length];
      const t0 = performance.now();
      cell.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      await new Promise((r) => { const f = () => (cell.getAttribute('data-highlighted') === 'true' ? requestAnimationFrame(() => r()) : setTimeout(f, 0)); f(); });
      out.push(performance.now() - t0);
    }
    return out;
  });
  const badge = await page.textContent('[data-testid=engine-badge]');
  console.log(`${webgpu ? 'WebGPU flag' : 'no WebGPU'} (${badge.trim()}):`);
  console.log(`  first render ${median(renders)} ms (median of ${renders.length}: ${renders.join(', ')})`);
  console.log(`  step ${median(steps).toFixed(1)} ms, hover ${median(hovers).toFixed(1)} ms (median; 4 views, ${cells} view cells)`);
  await browser.close();
}
const wasm = (await readdir(join(root, 'dist'))).find((f) => f.endsWith('.wasm'));
const bytes = await readFile(join(root, 'dist', wasm));
console.log(`wasm: ${(bytes.length / 1024).toFixed(0)} KiB, ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(0)} KiB gzipped`);
server.close();
