// "As on a CUDA device" (issue 19, item 5) in headless Chromium: the memory panel's switch
// runs the script again as if on a CUDA device, so that `torch.cuda.memory_allocated()`
// printed by the script answers with the caching allocator's rule (each block rounded up to a
// multiple of 512 bytes) and the editor keeps what was typed; the sentence next to the switch
// says that this is the allocator's rule, not a measurement, in English and in Chinese; a
// link with `cuda=1` opens with the switch on; screenshots (target/e2e/cuda-*.png).
// Run after `trunk build --release`.
//
// Expected figures are arithmetic on shapes: a float32 tensor of 1000 elements is 4,000 bytes,
// one block of 4,096; a Linear(4, 3) holds 48 + 12 bytes, a block each.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { check, expect, expectEqual, launch, results, serve, shots, watchErrors } from './harness.mjs';

await mkdir(shots, { recursive: true });
const server = await serve();
const base = `http://127.0.0.1:${server.address().port}/`;

const script = [
  'import torch',
  'import torch.nn as nn',
  "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
  'x = torch.ones(1000, device=device)',
  'model = nn.Linear(4, 3).to(device)',
  'print(device, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())',
  '',
].join('\n');
const PRINT_LINE = 6;

/** The output printed by the script's print line (the panel shows the current step's). */
async function printed(page) {
  const marks = await page.$$eval('[data-testid=memory-mark]', (ms) => ms.map((m) => ({ step: m.dataset.step, line: Number(m.dataset.line) })));
  const mark = marks.find((m) => m.line === PRINT_LINE);
  expect(mark, 'a step at the print line');
  await page.click(`[data-testid=memory-mark][data-step="${mark.step}"]`);
  await page.waitForFunction((s) => document.querySelector('[data-testid=timeline]')?.value === s, mark.step);
  return (await page.textContent('[data-testid=output]')).trim();
}

/** Waits until the print line's output is `want`. */
async function waitPrinted(page, want) {
  const deadline = Date.now() + 30000;
  let got = '';
  while (Date.now() < deadline) {
    got = await printed(page).catch(() => '');
    if (got === want) return got;
    await page.waitForTimeout(200);
  }
  return got;
}

const browser = await launch(false);
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
const page = watchErrors(await context.newPage());
await page.goto(`${base}index.html`);
await page.waitForSelector('[data-testid=editor]', { timeout: 30000 });
await page.fill('[data-testid=editor]', script);
await page.waitForFunction((line) => {
  const marks = document.querySelectorAll('[data-testid=memory-mark]');
  return marks.length && marks[marks.length - 1].dataset.line === String(line);
}, PRINT_LINE, { timeout: 60000, polling: 200 });

await check('without the switch the script runs as on a machine without a GPU', async () => {
  if (await page.isChecked('[data-testid=memory-cuda]')) await page.uncheck('[data-testid=memory-cuda]');
  expectEqual(await waitPrinted(page, 'cpu 0 0'), 'cpu 0 0', 'no CUDA memory');
  expectEqual(await page.$('[data-testid=memory-cuda-run]'), null, 'no sentence');
});

await check('the switch runs the script again as on a CUDA device; the editor keeps the script', async () => {
  await page.check('[data-testid=memory-cuda]');
  // x: 4,000 bytes -> 4,096; weight 48 -> 512; bias 12 -> 512.
  const want = 'cuda 5120 5120';
  expectEqual(await waitPrinted(page, want), want, 'memory_allocated() printed with the allocator\'s rule');
  expectEqual(await page.inputValue('[data-testid=editor]'), script, 'what was typed is kept');
  const run = await page.textContent('[data-testid=memory-cuda-run]');
  expect(run.includes('CUDA device') && run.includes('not a measurement'), `the sentence: ${run}`);
  const note = await page.textContent('[data-testid=memory-cuda-note]');
  expect(note.includes('512'), `the rule: ${note}`);
  await page.mouse.move(1, 1);
  await page.screenshot({ path: join(shots, 'cuda-1400-en.png'), fullPage: true });
  await page.locator('.memory-panel').screenshot({ path: join(shots, 'cuda-panel-1400-en.png') });
});

await check('in Chinese: the switch remembered, the sentence in Chinese, the same figures', async () => {
  const zh = watchErrors(await context.newPage());
  try {
    await zh.goto(`${base}index.html?lang=zh-CN`);
    await zh.waitForSelector('[data-testid=memory-mark]', { timeout: 30000 });
    expect(await zh.isChecked('[data-testid=memory-cuda]'), 'remembered');
    expectEqual(await waitPrinted(zh, 'cuda 5120 5120'), 'cuda 5120 5120', 'the same figures');
    const run = await zh.textContent('[data-testid=memory-cuda-run]');
    expect(/[\u4e00-\u9fff]/.test(run) && run.includes('CUDA'), `the sentence in Chinese: ${run}`);
    await zh.mouse.move(1, 1);
    await zh.locator('.memory-panel').screenshot({ path: join(shots, 'cuda-panel-1400-zh-CN.png') });
    expectEqual(zh.errors, [], 'page errors (Chinese)');
  } finally {
    await zh.close();
  }
});

await check('switched off again, the script runs without a GPU', async () => {
  await page.uncheck('[data-testid=memory-cuda]');
  expectEqual(await waitPrinted(page, 'cpu 0 0'), 'cpu 0 0', 'back on the CPU');
});

await check('a link with cuda=1 opens as on a CUDA device', async () => {
  const hash = new URL(page.url()).hash;
  const fresh = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const p = watchErrors(await fresh.newPage());
  try {
    const url = `${base}index.html?cuda=1${hash}`;
    await p.goto(url);
    await p.waitForSelector('[data-testid=memory-mark]', { timeout: 30000 });
    if (hash.length > 1) {
      expectEqual(await waitPrinted(p, 'cuda 5120 5120'), 'cuda 5120 5120', 'the link\'s run');
    }
    expect(await p.isChecked('[data-testid=memory-cuda]'), 'the switch is on');
    expectEqual(p.errors, [], 'page errors (link)');
  } finally {
    await fresh.close();
  }
});

expectEqual(page.errors, [], 'page errors');
await browser.close();
server.close();
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
