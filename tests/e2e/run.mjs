// End-to-end tests of the web app in headless Chromium, with and without WebGPU.
// Expectations come from PyTorch recordings (tests/fixtures/*.torch.jsonl), never from the app.
// Screenshots of key states go to target/e2e/. Run after `trunk build --release`.
import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { check, watchErrors, expect, expectEqual, launch, results, root, serve, sharing, shots } from './harness.mjs';

const recorded = JSON.parse((await readFile(join(root, 'tests/fixtures/default_scenario.torch.jsonl'), 'utf8')).trim().split('\n')[0]);
await mkdir(shots, { recursive: true });
const server = await serve();
const url = `http://127.0.0.1:${server.address().port}/`;

/** What the page shows for the current step. */
async function shown(page) {
  return page.evaluate(() => {
    const views = [...document.querySelectorAll('[data-testid=view]')].map((v) => ({
      name: v.dataset.name, shape: v.dataset.shape, stride: v.dataset.stride, offset: v.dataset.offset,
      storage: v.dataset.storage, contiguous: v.dataset.contiguous,
      values: [...v.querySelectorAll('[data-testid=view-cell]')].map((c) => c.textContent),
    }));
    const storages = [...document.querySelectorAll('[data-testid=storage]')].map((s) => ({
      id: s.dataset.storage, nbytes: s.dataset.nbytes, dtype: s.dataset.dtype,
    }));
    const output = document.querySelector('[data-testid=output]')?.textContent ?? null;
    const error = document.querySelector('[data-testid=error]')?.textContent ?? null;
    return { views, storages, output, error, label: document.querySelector('[data-testid=step-label]')?.textContent };
  });
}

/** A PyTorch element as a cell shows it. */
function cellText(dtype, v) {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (dtype.startsWith('float') || dtype === 'bfloat16') return Number.isInteger(v) ? `${v}.` : String(v);
  return String(v);
}

async function freshPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  return watchErrors(page);
}

for (const webgpu of [false, true]) {
  const mode = webgpu ? 'webgpu' : 'cpu';
  const label = webgpu ? '[WebGPU]' : '[no WebGPU]';
  const browser = await launch(webgpu);
  const page = await freshPage(browser);
  // Keep a handle on the WebGPU device the app gets, to simulate losing it.
  await page.addInitScript(() => {
    if (!globalThis.GPUAdapter) return;
    const request = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (...args) {
      const device = await request.apply(this, args);
      globalThis.__stridescopeDevice = device;
      return device;
    };
  });
  const started = Date.now();
  await page.goto(url);
  await page.waitForSelector('[data-testid=view]', { timeout: 20000 });
  console.log(`     ${label} first render: ${Date.now() - started} ms`);

  await check(`${label} the engine badge names the engine that ran`, async () => {
    await page.waitForFunction((want) => document.querySelector('[data-testid=engine-badge]')?.textContent.startsWith(want),
      webgpu ? 'WebGPU' : 'CPU', { timeout: 20000 });
    if (webgpu) {
      // The GPU's storages are read back and compared with the reference the page shows.
      await page.waitForFunction(() => document.querySelector('[data-testid=engine-badge]')?.textContent.includes('verified'),
        null, { timeout: 20000 });
    }
    console.log(`     ${label} badge: ${await page.textContent('[data-testid=engine-badge]')}`);
  });

  await check(`${label} the default scenario steps end to end, every step as PyTorch ran it`, async () => {
    await page.click('[data-testid=step-first]');
    for (let i = 0; i < recorded.steps.length; i++) {
      const want = recorded.steps[i];
      const got = await shown(page);
      const at = `step ${i + 1} (line ${want.line}: ${want.source})`;
      expect(got.label.startsWith(`Step ${i + 1} of ${recorded.steps.length}`), `${at}: label ${got.label}`);
      expectEqual(got.views.map((v) => v.name), want.tensors.map((t) => t.name), `${at} names`);
      expectEqual(got.views.map((v) => [v.shape, v.stride, v.offset, v.contiguous]),
        want.tensors.map((t) => [t.shape.join(','), t.stride.join(','), String(t.storage_offset), String(t.contiguous)]), `${at} layouts`);
      expectEqual(sharing(got.views.map((v) => v.storage)), sharing(want.tensors.map((t) => t.storage)), `${at} sharing`);
      for (const t of want.tensors) {
        const v = got.views.find((x) => x.name === t.name);
        expectEqual(v.values, t.values.map((x) => cellText(t.dtype, x)), `${at} values of ${t.name}`);
        const s = got.storages.find((x) => x.id === v.storage);
        expectEqual(s?.nbytes, String(t.storage_nbytes), `${at} storage bytes of ${t.name}`);
      }
      if (want.error) expectEqual(got.error?.split(' (col')[0], want.error, `${at} error`);
      else expectEqual(got.error, null, `${at} no error`);
      if (want.output !== null) expectEqual(got.output, want.output, `${at} output`);
      if (i === 3) await page.screenshot({ path: join(shots, `${mode}-transpose.png`) });
      if (i + 1 < recorded.steps.length) await page.click('[data-testid=step-next]');
    }
  });

  await check(`${label} hovering a view cell highlights its storage cell and every alias`, async () => {
    const stepOf = recorded.steps.findIndex((s) => s.source.startsWith('c = a[1:3, 1:3]'));
    await page.click('[data-testid=step-first]');
    for (let i = 0; i < stepOf; i++) await page.click('[data-testid=step-next]');
    const want = recorded.steps[stepOf].tensors;
    const c = want.find((t) => t.name === 'c');
    const a = want.find((t) => t.name === 'a');
    const b = want.find((t) => t.name === 'b');
    // c[0, 1] lives at offset + 0*stride0 + 1*stride1, by PyTorch's numbers.
    const offset = c.storage_offset + c.stride[1];
    await page.hover('[data-testid=view][data-name=c] [data-testid=view-cell][data-index="0,1"]');
    const lit = await page.$$eval('[data-highlighted=true]', (els) => els.map((e) => [e.dataset.testid, e.dataset.view ?? null, e.dataset.index ?? null, e.dataset.offset]));
    const aIndex = [Math.floor(offset / a.stride[0]), offset % a.stride[0]];
    const bIndex = [aIndex[1], aIndex[0]];
    expect(b.stride[0] === 1, 'b is a transpose');
    expectEqual(lit.filter((x) => x[0] === 'storage-cell').map((x) => x[3]), [String(offset)], 'highlighted storage cell');
    expectEqual(lit.filter((x) => x[0] === 'view-cell').map((x) => `${x[1]}[${x[2]}]`).sort(),
      [`a[${aIndex}]`, `b[${bIndex}]`, 'c[0,1]'].sort(), 'highlighted view cells');
    const formula = await page.textContent('[data-testid=formula]');
    expect(formula.includes(`offset = ${c.storage_offset} + 0·${c.stride[0]} + 1·${c.stride[1]} = ${offset}`), `formula: ${formula}`);
    await page.screenshot({ path: join(shots, `${mode}-hover-alias.png`) });
  });

  await check(`${label} the keyboard inspects cells like the pointer does`, async () => {
    await page.focus('[data-testid=view][data-name=b] [data-testid=view-grid]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const step = recorded.steps.findIndex((s) => s.source.startsWith('c = a[1:3, 1:3]'));
    const b = recorded.steps[step].tensors.find((t) => t.name === 'b');
    const offset = b.storage_offset + b.stride[0] + b.stride[1];
    const formula = await page.textContent('[data-testid=formula]');
    expect(formula.startsWith('b[1, 1]:') && formula.endsWith(`= ${offset}`), `formula: ${formula}`);
    const lit = await page.$$eval('[data-testid=storage-cell][data-highlighted=true]', (els) => els.map((e) => e.dataset.offset));
    expectEqual(lit, [String(offset)], 'highlighted storage cell');
  });

  await check(`${label} a write through a view shows in its aliases and flashes`, async () => {
    const stepOf = recorded.steps.findIndex((s) => s.source === 'a[0, 0] = 10');
    await page.click('[data-testid=step-first]');
    for (let i = 0; i < stepOf; i++) await page.click('[data-testid=step-next]');
    const b = recorded.steps[stepOf].tensors.find((t) => t.name === 'b');
    const bCell = await page.textContent('[data-testid=view][data-name=b] [data-testid=view-cell][data-index="0,0"]');
    expectEqual(bCell, String(b.values[0]), 'b[0, 0] after writing a[0, 0]');
    const flashing = await page.$$eval('[data-testid=storage-cell].written', (els) => els.map((e) => e.dataset.offset));
    expectEqual(flashing, ['0'], 'written storage cells');
    const views = await page.$$eval('[data-testid=view-cell].written', (els) => els.map((e) => `${e.dataset.view}[${e.dataset.index}]`).sort());
    expectEqual(views, ['a[0,0]', 'b[0,0]'], 'written view cells in every alias');
  });

  await check(`${label} picking a dimension draws its stride jumps on the storage`, async () => {
    await page.click('[data-testid=view][data-name=b] [data-testid=dim-chip][data-dim="1"]');
    const jumps = await page.$$eval('[data-testid=storage-cell].jump', (els) => els.map((e) => Number(e.dataset.offset)));
    const b = recorded.steps.find((s) => s.source === 'a[0, 0] = 10').tensors.find((t) => t.name === 'b');
    expectEqual(jumps, Array.from({ length: b.shape[1] }, (_, k) => b.storage_offset + k * b.stride[1]), 'jump cells');
    await page.screenshot({ path: join(shots, `${mode}-stride-jumps.png`) });
    await page.click('[data-testid=view][data-name=b] [data-testid=dim-chip][data-dim="1"]');
  });

  await check(`${label} a failed view is drawn: the dims that span two subspaces`, async () => {
    const stepOf = recorded.steps.findIndex((s) => s.source === 'b.view(15)');
    await page.click('[data-testid=step-first]');
    for (let i = 0; i < stepOf; i++) await page.click('[data-testid=step-next]');
    expect(await page.isVisible('[data-testid=view-explain]'), 'explanation shown');
    expect((await page.$$('[data-testid=view-explain] .dimbox.spans')).length >= 1, 'a spanning dim is marked');
    await page.screenshot({ path: join(shots, `${mode}-view-error.png`) });
  });

  await check(`${label} a 4096-element view is virtualized: scrolling draws the right cells at once, writes, hover and keys as for small views`, async () => {
    // PyTorch: torch.arange(4096).reshape(64, 64) holds 64·i + j at [i, j] with strides (64, 1);
    // a.t() has strides (1, 64) over the same storage, so b[i, j] holds 64·j + i at offset 64·j + i;
    // a[0, 1] = -5 writes element 1, which b shows at [1, 0]. (Five statements: no later check's
    // wait for "of 3" or "of 4" can mistake this run for its own.)
    await page.fill('[data-testid=editor]', 'a = torch.arange(4096).reshape(64, 64)\nb = a.t()\nb.stride()\nb.is_contiguous()\na[0, 1] = -5\n');
    await page.waitForFunction(() => document.querySelector('[data-testid=step-label]')?.textContent.includes('of 5'), null, { timeout: 5000 });
    await page.click('[data-testid=step-last]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=view]').length === 2);
    const view = (name) => `[data-testid=view][data-name=${name}]`;
    expectEqual(await page.getAttribute(view('b'), 'data-stride'), '1,64', 'b strides');
    const drawn = await page.$$eval(`${view('b')} [data-testid=view-cell]`, (els) => els.length);
    expect(drawn > 0 && drawn < 4096, `b draws ${drawn} of its 4096 cells`);
    const cellAt = (name, index) => page.$eval(`${view(name)} [data-testid=view-cell][data-index="${index}"]`, (c) => [c.textContent, c.classList.contains('written')]);
    expectEqual(await cellAt('b', '1,0'), ['-5', true], 'b[1, 0] after a[0, 1] = -5');
    expectEqual(await cellAt('a', '0,1'), ['-5', true], 'a[0, 1] after a[0, 1] = -5');
    await page.click('[data-testid=step-prev]');
    expectEqual(await cellAt('b', '1,0'), ['1', false], 'b[1, 0] a step before');
    // A view appearing redraws the panel: every cell is still drawn once, with its value.
    await page.click('[data-testid=step-first]');
    await page.click('[data-testid=step-next]');
    expectEqual(await page.$$eval(`${view('a')} [data-testid=view-cell][data-index="0,1"]`, (els) => els.map((e) => e.textContent)), ['1'], 'a[0, 1] drawn once');
    expectEqual(await page.$$eval(`${view('b')} [data-testid=view-cell][data-index="1,0"]`, (els) => els.map((e) => e.textContent)), ['1'], 'b[1, 0] drawn once');
    await page.click('[data-testid=step-last]');
    // Scroll a box programmatically; report, in the first frame after, whether the cell is drawn
    // inside the box's visible part (the scroll event draws before that frame is painted).
    const scrollTo = (box, cell, where) => page.$eval(box, async (el, [cell, where]) => {
      if (where === 'end') { el.scrollTop = el.scrollHeight; el.scrollLeft = el.scrollWidth; } else { el.scrollTop = 0; el.scrollLeft = 0; }
      await new Promise((r) => requestAnimationFrame(() => r()));
      const c = el.querySelector(cell);
      if (!c) return null;
      const [o, i] = [el.getBoundingClientRect(), c.getBoundingClientRect()];
      return { text: c.textContent, offset: c.dataset.offset, lit: c.dataset.highlighted ?? null,
        visible: i.top >= o.top - 1 && i.bottom <= o.bottom + 1 && i.left >= o.left - 1 && i.right <= o.right + 1 };
    }, [cell, where]);
    const grid = `${view('b')} [data-testid=view-grid]`;
    expectEqual(await scrollTo(grid, '[data-index="63,63"]', 'end'), { text: '4095', offset: '4095', lit: null, visible: true }, 'b[63, 63] after scrolling to the end');
    const wrong = await page.$$eval(`${view('b')} [data-testid=view-cell]`, (els) => els.filter((e) => {
      const [i, j] = e.dataset.index.split(',').map(Number);
      const value = i === 1 && j === 0 ? -5 : 64 * j + i;
      return e.textContent !== String(value) || e.dataset.offset !== String(64 * j + i);
    }).map((e) => e.dataset.index));
    expectEqual(wrong, [], 'b cells whose value or offset is not 64·j + i');
    // Hovering b[63, 63] highlights its aliases, also those drawn only when scrolled to.
    await page.hover(`${grid} [data-index="63,63"]`);
    expectEqual(await page.getAttribute(`${grid} [data-index="63,63"]`, 'data-highlighted'), 'true', 'hovered cell');
    expectEqual(await scrollTo(`${view('a')} [data-testid=view-grid]`, '[data-index="63,63"]', 'end'), { text: '4095', offset: '4095', lit: 'true', visible: true }, 'a[63, 63], its alias');
    const strip = '[data-testid=storage] .strip';
    expectEqual(await scrollTo(strip, '[data-testid=storage-cell][data-offset="4095"]', 'end'), { text: '40954095', offset: '4095', lit: 'true', visible: true }, 'storage element 4095');
    expectEqual(await scrollTo(strip, '[data-testid=storage-cell][data-offset="0"]', 'top'), { text: '00', offset: '0', lit: null, visible: true }, 'storage element 0');
    // The strip's tile of element 4095 was dropped when it scrolled away; the views' stay lit.
    expectEqual(await page.$$eval('[data-highlighted=true]', (els) => els.map((e) => `${e.dataset.view}[${e.dataset.index}] ${e.dataset.key}`).sort()),
      ['a[63,63] s0:4095', 'b[63,63] s0:4095'], 'the highlighted cells drawn now');
    // The keyboard walks past the drawn rows: the box scrolls along and the cell is lit.
    await page.mouse.move(1, 1);
    await page.focus(`${view('a')} [data-testid=view-grid]`);
    for (let k = 0; k < 40; k++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const formula = await page.textContent('[data-testid=formula]');
    expect(formula.startsWith('a[40, 1]:') && formula.endsWith('= 2561'), `formula: ${formula}`);
    const cell = await page.$eval(`${view('a')} [data-testid=view-grid]`, (el) => {
      const c = el.querySelector('[data-index="40,1"]');
      const [o, i] = [el.getBoundingClientRect(), c.getBoundingClientRect()];
      return [c.textContent, c.dataset.highlighted, i.top >= o.top - 1 && i.bottom <= o.bottom + 1];
    });
    expectEqual(cell, ['2561', 'true', true], 'a[40, 1] drawn, lit and in view');
    await page.screenshot({ path: join(shots, `${mode}-virtualized.png`) });
    expectEqual(page.errors, [], 'page errors');
  });

  await check(`${label} autograd: the views say which tensors require grad and which node made them; backward() fills .grad`, async () => {
    await page.fill('[data-testid=editor]', 'w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)\nx = torch.tensor([1.0, 2.0, 3.0])\ny = w @ x\nloss = (y ** 2).mean()\nloss.backward()\ng = w.grad\n');
    await page.waitForFunction(() => document.querySelector('[data-testid=step-label]')?.textContent.includes('of 6'), null, { timeout: 5000 });
    await page.click('[data-testid=step-last]');
    await page.waitForSelector('[data-testid=view][data-name=g]', { timeout: 5000 });
    expect(await page.$('[data-testid=view][data-name=w] [data-testid=requires-grad]'), 'w is a leaf that requires grad');
    expectEqual(await page.getAttribute('[data-testid=view][data-name=y] [data-testid=grad-fn]', 'data-node'), 'MvBackward0', "y's node");
    expectEqual(await page.getAttribute('[data-testid=view][data-name=loss] [data-testid=grad-fn]', 'data-node'), 'MeanBackward0', "loss's node");
    expectEqual(await page.$('[data-testid=view][data-name=x] [data-testid=grad-fn], [data-testid=view][data-name=x] [data-testid=requires-grad]'), null, 'x requires no grad');
    // d(mean(y^2))/dw = y x^T: y = (4.5, 0.5).
    const g = await page.$$eval('[data-testid=view][data-name=g] [data-testid=view-cell]', (cells) => cells.map((c) => c.textContent.trim()));
    expectEqual(g.join(' '), '4.5 9. 13.5 0.5 1. 1.5', 'w.grad');
    expectEqual(page.errors, [], 'page errors');
  });

  await check(`${label} editing the script re-runs it and the script survives a reload`, async () => {
    const script = 'x = torch.arange(6).reshape(2, 3)\ny = x.t()\ny.stride()\n';
    await page.fill('[data-testid=editor]', script);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=view]').length >= 1 &&
      document.querySelector('[data-testid=step-label]')?.textContent.includes('of 3'), null, { timeout: 5000 });
    await page.click('[data-testid=step-last]');
    expectEqual(await page.textContent('[data-testid=output]'), '(1, 3)', 'y.stride() (PyTorch: a transpose of a (2, 3) row-major tensor)');
    await page.reload();
    await page.waitForSelector('[data-testid=view]');
    expectEqual(await page.inputValue('[data-testid=editor]'), script, 'script after reload');
  });

  await check(`${label} hostile input: no HTML from the script, huge shapes and huge scripts get clear messages`, async () => {
    await page.fill('[data-testid=editor]', 'a = torch.arange(3)\n<script>window.__pwned = 1</script>\nb = "<img src=x onerror=window.__pwned=2>"\nz = torch.zeros(1000000000)\n');
    await page.waitForFunction(() => document.querySelector('[data-testid=step-label]')?.textContent.includes('of 4'), null, { timeout: 5000 });
    expectEqual(await page.evaluate(() => window.__pwned ?? null), null, 'no script ran');
    expectEqual(await page.$$eval('body img, body script:not([src])', (e) => e.length), 0, 'no injected elements');
    await page.click('[data-testid=step-last]');
    const error = await page.textContent('[data-testid=error]');
    expect(error.includes('memory limit'), `huge shape: ${error}`);
    // A paste: one input event with the whole text (Playwright's fill types it through the
    // browser's editing code, which takes minutes for a megabyte).
    const paste = (text) => page.evaluate((t) => {
      const ta = document.querySelector('[data-testid=editor]');
      ta.value = t;
      ta.dispatchEvent(new Event('input', { bubbles: true }));
    }, text);
    const big = 'a = torch.arange(12).reshape(3, 4)\n'.repeat(30000);
    await paste(big);
    await page.waitForSelector('[data-testid=notice]', { timeout: 5000 });
    expect((await page.textContent('[data-testid=notice]')).includes('Shorten it'), 'notice for a 1 MB script');
    expectEqual((await page.inputValue('[data-testid=editor]')).length, big.length, 'nothing typed is lost');
    await page.click('[data-testid=step-first]');
    const lines = Array.from({ length: 10000 }, (_, i) => `t${i} = torch.arange(4)`).join('\n');
    await paste(lines);
    await page.waitForFunction(() => document.querySelector('[data-testid=notice]')?.textContent.includes('10000 lines'), null, { timeout: 5000 });
    // Still responsive: the step buttons answer at once.
    const t0 = Date.now();
    await page.click('[data-testid=step-last]', { timeout: 2000 });
    expect(Date.now() - t0 < 2000, 'page responsive after a huge script');
    await page.screenshot({ path: join(shots, `${mode}-hostile.png`) });
    expectEqual(page.errors, [], 'page errors');
  });

  if (webgpu) {
    await check(`${label} a lost WebGPU device falls back to the CPU without losing the script`, async () => {
      const script = 'a = torch.arange(6).reshape(2, 3)\nb = a.t()\nb.stride()\n';
      await page.fill('[data-testid=editor]', script);
      await page.waitForFunction(() => document.querySelector('[data-testid=step-label]')?.textContent.includes('of 3'), null, { timeout: 5000 });
      await page.evaluate(() => globalThis.__stridescopeDevice?.destroy());
      await page.waitForFunction(() => document.querySelector('[data-testid=engine-badge]')?.textContent.includes('device lost'), null, { timeout: 10000 });
      expect((await page.textContent('[data-testid=engine-badge]')).startsWith('CPU'), 'badge says CPU');
      expectEqual(await page.inputValue('[data-testid=editor]'), script, 'script kept');
      await page.click('[data-testid=step-last]');
      expectEqual(await page.textContent('[data-testid=output]'), '(1, 3)', 'still runs (PyTorch: b.stride() of a (2, 3) transpose)');
    });
  }
  await browser.close();
}

// Dark mode and a phone-sized screen.
{
  const browser = await launch(false);
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, colorScheme: 'dark' });
  await page.goto(url);
  await page.waitForSelector('[data-testid=view]');
  await check('[360 px, dark] the page follows prefers-color-scheme and fits a phone', async () => {
    expectEqual(await page.evaluate(() => document.documentElement.dataset.theme), 'dark', 'theme');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow <= 0, `horizontal overflow of ${overflow}px`);
    await page.click('[data-testid=theme-toggle]');
    expectEqual(await page.evaluate(() => document.documentElement.dataset.theme), 'light', 'toggled theme');
    await page.click('[data-testid=theme-toggle]');
    await page.screenshot({ path: join(shots, 'phone-dark.png'), fullPage: false });
  });
  await browser.close();
}

server.close();
console.log(`e2e: ${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed === 0 ? 0 : 1);
