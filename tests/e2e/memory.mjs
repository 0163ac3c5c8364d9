// Where a model's memory goes (issue 19), in headless Chromium: the memory timeline (its
// marks, the highest peak, clicking a mark and the peak, the keyboard, hovering a band), the
// step's changes as a memory tracker prints them, saved-by badges on the storages autograd
// keeps, the model summary, the units and "as on a CUDA device" switches (remembered), both
// languages, screenshots at 1400 and 360 px (target/e2e/memory-*.png), axe-core, and the frame
// time of hovering the timeline over a run of more than 2,000 steps.
// Run after `trunk build --release`.
//
// Expected figures are PyTorch 2.15's (tests/fixtures/memory/memory.torch.jsonl, relu_mlp.py:
// live 168,200 bytes after `out = model(x)`, peak 216,840 with nn.ReLU() and 168,200 with
// nn.ReLU(inplace=True), saved ReluBackward0/result and AddmmBackward0/mat1) or arithmetic on
// shapes (a Linear(100, 200) holds 100·200·4 + 200·4 = 80,800 bytes of parameters).
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { check, expect, expectEqual, launch, results, root, serve, shots, watchErrors } from './harness.mjs';

await mkdir(shots, { recursive: true });
const server = await serve();
const base = `http://127.0.0.1:${server.address().port}/`;
const axeSource = await readFile(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

const script = (inplace) => [
  'import torch',
  'import torch.nn as nn',
  '',
  '_ = torch.manual_seed(0)',
  `model = nn.Sequential(nn.Linear(100, 200), nn.ReLU(${inplace ? 'inplace=True' : ''}), nn.Linear(200, 10))`,
  'opt = torch.optim.Adam(model.parameters(), lr=1e-3)',
  'x = torch.randn(64, 100)',
  'out = model(x)',
  'loss = out.sum()',
  'loss.backward()',
  'opt.step()',
  'opt.zero_grad()',
  // A last line of its own, so that a run of the other script is told apart.
  ...(inplace ? ['done = True'] : []),
  '',
].join('\n');
const FORWARD_LINE = 8;
const BACKWARD_LINE = 10;

async function axe(page) {
  await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async () => {
    const r = await globalThis.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Puts `text` in the editor and waits for its run's timeline (a new peak step attribute). */
async function runScript(page, text, lastLine) {
  await page.fill('[data-testid=editor]', text);
  await page.waitForFunction((line) => {
    const label = document.querySelector('[data-testid=step-label]')?.textContent ?? '';
    const marks = document.querySelectorAll('[data-testid=memory-mark]');
    const last = marks[marks.length - 1];
    return last && last.dataset.line === String(line) && /\d/.test(label);
  }, lastLine, { timeout: 60000, polling: 200 });
}

/** The marks' figures, by step. */
function marks(page) {
  return page.$$eval('[data-testid=memory-mark]', (ms) => ms.map((m) => ({
    step: Number(m.dataset.step), line: Number(m.dataset.line), live: m.dataset.liveBytes, peak: m.dataset.peakBytes,
  })));
}

/** The line in the step label (`Step 5 of 9 · line 8`). */
async function labelLine(page) {
  const label = await page.textContent('[data-testid=step-label]');
  const m = /(\d+)\D*$/.exec(label);
  return m ? Number(m[1]) : NaN;
}

async function goToStepOfLine(page, line) {
  const step = (await marks(page)).find((m) => m.line === line)?.step;
  expect(step !== undefined, `a step at line ${line}`);
  await page.click(`[data-testid=memory-mark][data-step="${step}"]`);
  await page.waitForFunction((s) => document.querySelector('[data-testid=timeline]')?.value === String(s), step);
  return step;
}

const browser = await launch(false);
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
const page = watchErrors(await context.newPage());
await page.goto(`${base}index.html`);
await page.waitForSelector('[data-testid=editor]', { timeout: 30000 });
await runScript(page, script(false), 12);

await check('the timeline has one mark per executed step, with PyTorch\'s live and peak bytes', async () => {
  const ms = await marks(page);
  const steps = Number(await page.getAttribute('[data-testid=timeline]', 'max')) + 1;
  expectEqual(ms.length, steps, 'marks');
  expectEqual(ms.map((m) => m.step), [...Array(steps).keys()], 'data-step is the step\'s index');
  const fwd = ms.find((m) => m.line === FORWARD_LINE);
  expectEqual([fwd.live, fwd.peak], ['168200', '216840'], 'live and peak bytes of out = model(x)');
  expect(ms.every((m) => /^\d+$/.test(m.live) && /^\d+$/.test(m.peak)), 'plain integers');
  const tl = await page.$eval('[data-testid=memory-timeline]', (t) => ({ bytes: t.dataset.peakBytes, step: t.dataset.peakStep }));
  const highest = Math.max(...ms.map((m) => Number(m.peak)));
  expectEqual(tl.bytes, String(highest), 'data-peak-bytes is the highest mark\'s peak');
  expectEqual(ms[Number(tl.step)].peak, String(highest), 'data-peak-step is a step with that peak');
});

await check('clicking the peak mark goes to its step and line; the peak button too', async () => {
  await page.click('[data-testid=step-first]');
  const step = await page.getAttribute('[data-testid=memory-timeline]', 'data-peak-step');
  await page.click(`[data-testid=memory-mark][data-step="${step}"]`);
  await page.waitForFunction((s) => document.querySelector('[data-testid=timeline]')?.value === s, step);
  const line = (await marks(page))[Number(step)].line;
  expectEqual(await labelLine(page), line, 'the step label\'s line');
  const current = await page.$eval('.gutter .ln.current', (l) => l.textContent.trim());
  expectEqual(current, String(line), 'the editor marks the peak\'s line');
  const button = await page.textContent('[data-testid=memory-peak]');
  expect(button.includes(`line ${line}`) || button.includes('line'), `the peak button names its line: ${button}`);
  await page.click('[data-testid=step-first]');
  await page.click('[data-testid=memory-peak]');
  await page.waitForFunction((s) => document.querySelector('[data-testid=timeline]')?.value === s, step);
});

await check('the timeline is a slider: arrows, Home and End move one step at a time', async () => {
  await page.focus('[data-testid=memory-timeline] [role=slider]');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  expectEqual(await page.inputValue('[data-testid=timeline]'), '2', 'two steps on, not four');
  expectEqual(await page.getAttribute('[data-testid=memory-timeline] [role=slider]', 'aria-valuenow'), '3', 'aria-valuenow');
  await page.keyboard.press('End');
  const max = await page.getAttribute('[data-testid=timeline]', 'max');
  expectEqual(await page.inputValue('[data-testid=timeline]'), max, 'End');
});

await check('the changes of out = model(x): what autograd saved, exact', async () => {
  await goToStepOfLine(page, FORWARD_LINE);
  const rows = await page.$$eval('[data-testid=memory-change]', (rs) => rs.map((r) => ({
    sign: r.dataset.sign, bytes: r.dataset.bytes, category: r.dataset.category, text: r.textContent,
  })));
  expect(rows.length > 0, 'rows');
  expect(rows.every((r) => (r.sign === '+' || r.sign === '-') && /^\d+$/.test(r.bytes)), `signs and bytes: ${JSON.stringify(rows)}`);
  const relu = rows.find((r) => r.text.includes('ReluBackward0'));
  expect(relu && relu.sign === '+' && relu.bytes === '51200' && relu.category === 'saved', `ReluBackward0's result: ${JSON.stringify(rows)}`);
  expect(relu.text.includes('(64, 200)') && relu.text.includes('51.2 kB'), `the tracker's line: ${relu.text}`);
});

await check('backward() frees what the graph saved, with the reason', async () => {
  await goToStepOfLine(page, BACKWARD_LINE);
  const rows = await page.$$eval('[data-testid=memory-change]', (rs) => rs.map((r) => ({ sign: r.dataset.sign, category: r.dataset.category, text: r.textContent })));
  const freed = rows.filter((r) => r.sign === '-');
  expect(freed.some((r) => r.text.includes('backward()')), `freed by backward(): ${JSON.stringify(rows)}`);
  expect(rows.some((r) => r.sign === '+' && r.category === 'gradient'), `gradients appear: ${JSON.stringify(rows)}`);
});

await check('saved-by badges name node and slot; hovering one lights its storage', async () => {
  await goToStepOfLine(page, FORWARD_LINE);
  const badges = await page.$$eval('[data-testid=saved-by]', (bs) => bs.map((b) => `${b.dataset.node}/${b.dataset.slot}`));
  for (const want of ['ReluBackward0/result', 'AddmmBackward0/mat1']) {
    expect(badges.includes(want), `${want} in ${badges}`);
  }
  const badge = page.locator('[data-testid=saved-by][data-node=ReluBackward0]').first();
  await badge.scrollIntoViewIfNeeded();
  await badge.hover();
  await page.waitForFunction(() => document.querySelectorAll('[data-saved-lit=true]').length > 0, null, { timeout: 3000 });
  const storage = await badge.getAttribute('data-storage');
  const lit = await page.$$eval('[data-saved-lit=true]', (ls) => ls.map((l) => l.dataset.storage));
  expect(lit.length > 0 && lit.every((s) => s === storage), `lit: ${lit} for ${storage}`);
  const roles = await page.$$eval('[data-testid=storage-role]', (rs) => rs.map((r) => r.dataset.category));
  expect(roles.includes('parameter'), `parameters labelled: ${roles}`);
  await page.mouse.move(1, 1);
});

await check('the model summary: one row per layer, exact bytes', async () => {
  const rows = await page.$$eval('[data-testid=model-summary]', (rs) => rs.map((r) => ({
    layer: r.dataset.layer, params: r.dataset.paramBytes, output: r.dataset.outputBytes, saved: r.dataset.savedBytes,
  })));
  const byLayer = Object.fromEntries(rows.map((r) => [r.layer, r]));
  expect(byLayer['model.0'] && byLayer['model.1'] && byLayer['model.2'], `layers model.0, model.1, model.2: ${JSON.stringify(rows)}`);
  // Linear(100, 200) saves its input x (mat1, 64·100·4 bytes), ReLU its result (64·200·4),
  // Linear(200, 10) the ReLU's result again (mat1; its weight is a parameter).
  expectEqual(Object.values(byLayer['model.0']).slice(1), ['80800', '51200', '25600'], 'Linear(100, 200)');
  expectEqual(Object.values(byLayer['model.1']).slice(1), ['0', '51200', '51200'], 'ReLU');
  expectEqual(Object.values(byLayer['model.2']).slice(1), ['8040', '2560', '51200'], 'Linear(200, 10)');
  expectEqual(byLayer.model?.params, '88840', 'the model holds every parameter');
});

await check('units switch between MB and MiB and are remembered; the CUDA switch says what it is', async () => {
  await goToStepOfLine(page, FORWARD_LINE);
  await page.click('[data-testid=memory-units-binary]');
  const relu = page.locator('[data-testid=memory-change][data-category=saved]').first();
  expect((await relu.textContent()).includes('50 KiB'), `MiB units: ${await relu.textContent()}`);
  await page.reload();
  await page.waitForSelector('[data-testid=memory-mark]', { timeout: 30000 });
  expectEqual(await page.getAttribute('[data-testid=memory-units-binary]', 'aria-pressed'), 'true', 'remembered');
  await page.click('[data-testid=memory-units-decimal]');
  await page.check('[data-testid=memory-cuda]');
  const note = await page.textContent('[data-testid=memory-cuda-note]');
  expect(note.includes('512') && note.includes('not a measurement'), note);
  expectEqual(await page.getAttribute('[data-testid=memory-timeline]', 'data-cuda'), 'true', 'CUDA figures drawn');
  await page.uncheck('[data-testid=memory-cuda]');
});

await check('hovering a band names the tensors in it', async () => {
  const step = await goToStepOfLine(page, FORWARD_LINE);
  const box = await page.locator('[data-testid=memory-timeline] [role=slider]').boundingBox();
  const n = (await marks(page)).length;
  // The lowest band (parameters) of that step.
  await page.mouse.move(box.x + (step + 0.5) / n * box.width, box.y + box.height - 3);
  await page.waitForSelector('[data-testid=memory-tip]', { timeout: 3000 });
  const tip = await page.textContent('[data-testid=memory-tip]');
  expect(tip.includes('Parameters') && tip.includes('0.weight'), `the band's tensors: ${tip}`);
  await page.screenshot({ path: join(shots, 'memory-1400-en.png'), fullPage: true });
  await page.locator('.memory-panel').screenshot({ path: join(shots, 'memory-panel-1400-en.png') });
  await page.mouse.move(1, 1);
  await page.click('[data-testid=theme-toggle]');
  await page.locator('.memory-panel').screenshot({ path: join(shots, 'memory-panel-1400-en-dark.png') });
  await page.click('[data-testid=theme-toggle]');
});

await check('nn.ReLU(inplace=True): the same live bytes after forward, a lower peak', async () => {
  await runScript(page, script(true), 13);
  const fwd = (await marks(page)).find((m) => m.line === FORWARD_LINE);
  expectEqual([fwd.live, fwd.peak], ['168200', '168200'], 'live and peak bytes of out = model(x)');
  await runScript(page, script(false), 12);
});

await check('axe-core finds no serious or critical violations (English)', async () => {
  await goToStepOfLine(page, FORWARD_LINE);
  expectEqual(await axe(page), [], 'serious or critical violations');
});

await check('in Chinese: the same figures, the panel in Chinese, axe-core', async () => {
  const zh = watchErrors(await context.newPage());
  try {
    await zh.goto(`${page.url().split('#')[0].split('?')[0]}?lang=zh-CN${new URL(page.url()).hash}`);
    await zh.waitForSelector('[data-testid=memory-mark]', { timeout: 30000 });
    const title = await zh.textContent('[data-testid=memory-timeline] h3');
    expect(/[\u4e00-\u9fff]/.test(title), `the timeline's title in Chinese: ${title}`);
    await goToStepOfLine(zh, FORWARD_LINE);
    await zh.mouse.move(1, 1);
    await zh.screenshot({ path: join(shots, 'memory-1400-zh-CN.png'), fullPage: true });
    expectEqual(await axe(zh), [], 'serious or critical violations (Chinese)');
    await goToStepOfLine(zh, BACKWARD_LINE);
    const freed = await zh.$$eval('[data-testid=memory-change][data-sign="-"]', (rs) => rs.map((r) => r.textContent));
    expect(freed.some((t) => t.includes('由 backward() 释放')), `freed in Chinese: ${freed}`);
    const head = await zh.textContent('.model-summary thead');
    expect(/[\u4e00-\u9fff]/.test(head), `the summary in Chinese: ${head}`);
    expectEqual(zh.errors, [], 'page errors (Chinese)');
  } finally {
    await zh.close();
  }
});

await check('at 360 px: nothing wider than the screen; screenshots', async () => {
  for (const lang of ['en', 'zh-CN']) {
    const narrow = await browser.newContext({ viewport: { width: 360, height: 780 } });
    const p = watchErrors(await narrow.newPage());
    await p.goto(`${page.url().split('#')[0].split('?')[0]}?lang=${lang}${new URL(page.url()).hash}`);
    await p.waitForSelector('[data-testid=memory-mark]', { timeout: 30000 });
    await goToStepOfLine(p, FORWARD_LINE);
    const overflow = await p.evaluate(() => {
      const wide = [];
      for (const el of document.querySelectorAll('.memory-panel *')) {
        if (el.closest('.table-scroll')) continue;
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > document.documentElement.clientWidth + 1) wide.push(`${el.tagName}.${el.className}`);
      }
      return { page: document.documentElement.scrollWidth, wide: wide.slice(0, 5) };
    });
    expect(overflow.page <= 361 && overflow.wide.length === 0, `overflow at 360 px (${lang}): ${JSON.stringify(overflow)}`);
    await p.locator('[data-testid=memory-timeline]').scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(shots, `memory-360-${lang}.png`), fullPage: true });
    expectEqual(p.errors, [], `page errors (${lang})`);
    await narrow.close();
  }
});

await check('a run of about 2,000 steps (the page\'s most): marks stay light, hovering keeps frames short', async () => {
  // Few tensors alive at once (each step's record lists the live ones): the drawing's cost
  // is in the steps. The script is set directly (page.fill takes ~45 s on a 2,000-line
  // textarea in headless Chromium).
  const lines = ['import torch', 'a = torch.zeros(4)'];
  for (let i = 0; i < 1995; i++) lines.push(`b${i % 4} = torch.ones(${(i % 50) + 1})`);
  const t0 = Date.now();
  await page.evaluate((text) => {
    const e = document.querySelector('[data-testid=editor]');
    e.value = text;
    e.dispatchEvent(new Event('input', { bubbles: true }));
  }, lines.join('\n') + '\n');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=memory-mark]').length > 1990, null, { timeout: 60000, polling: 100 });
  const ran = Date.now() - t0;
  const n = await page.$$eval('[data-testid=memory-mark]', (ms) => ms.length);
  expectEqual(n, 1996, 'steps');
  // Animation frames run at full rate only in the tab in front.
  await page.bringToFront();
  const stats = await page.$eval('[data-testid=memory-timeline] [role=slider]', async (plot) => {
    const r = plot.getBoundingClientRect();
    const frame = () => new Promise((res) => requestAnimationFrame(res));
    const handler = [];
    const frames = [];
    let last = await frame();
    for (let k = 0; k < 180; k++) {
      const x = r.left + ((k * 37) % 1000) / 1000 * r.width;
      const y = r.top + (0.3 + ((k * 13) % 70) / 100) * r.height;
      const t0 = performance.now();
      plot.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, bubbles: true }));
      // The page's effects run as microtasks: a message (no timer clamping) comes after them;
      // reading the tooltip's box then lays it out.
      await new Promise((res) => { const c = new MessageChannel(); c.port1.onmessage = res; c.port2.postMessage(0); });
      document.querySelector('[data-testid=memory-tip]')?.getBoundingClientRect();
      handler.push(performance.now() - t0);
      const now = await frame();
      frames.push(now - last);
      last = now;
    }
    const sorted = (a) => [...a].sort((p, q) => p - q);
    const q = (a, f) => sorted(a)[Math.floor(f * (a.length - 1))];
    return { handlerMedian: q(handler, 0.5), handlerP95: q(handler, 0.95), frameMedian: q(frames, 0.5), frameP95: q(frames, 0.95), frameMax: Math.max(...frames) };
  });
  console.log(`     ${n} steps, run and drawn in ${ran} ms: hover handling median ${stats.handlerMedian.toFixed(2)} ms, p95 ${stats.handlerP95.toFixed(2)} ms; frames median ${stats.frameMedian.toFixed(1)} ms, p95 ${stats.frameP95.toFixed(1)} ms, max ${stats.frameMax.toFixed(1)} ms`);
  // The goal is 16 ms a hover; p95 is left room for a loaded machine (2 cores shared).
  expect(stats.handlerMedian < 16 && stats.handlerP95 < 50, `hover under 16 ms: ${JSON.stringify(stats)}`);
  await page.screenshot({ path: join(shots, 'memory-long-1400-en.png'), fullPage: false });
});

expectEqual(page.errors, [], 'page errors');
await browser.close();
server.close();
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
