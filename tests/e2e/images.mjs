// Images as tensors in the browser (headless Chromium, run after `trunk build --release`):
// `read_image("astronaut.png")` fetches the sample and gives torchvision's shape and strides
// (recorded from torchvision 0.29.2: [3, 512, 512], strides (1, 1536, 3)); a PNG added with
// the file picker and a JPEG dropped on the editor are read by their names; a name that is
// neither a sample nor added says so; with and without WebGPU. Screenshots:
// target/e2e/images-cpu.png and images-webgpu.png.
import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { check, watchErrors, expect, expectEqual, launch, results, root, serve, shots } from './harness.mjs';

await mkdir(shots, { recursive: true });
const server = await serve();
const url = `http://127.0.0.1:${server.address().port}/`;
// torchvision's reading of an interlaced 9x7 RGB PNG (tools/images/record_png.py).
const records = (await readFile(join(root, 'tests/fixtures/png.torchvision.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
const interlaced = records.find((r) => r.file === 'rgb8_i.png' && r.mode === 'UNCHANGED');
const interlacedBytes = await readFile(join(root, 'tests/fixtures/png/rgb8_i.png'));

for (const webgpu of [false, true]) {
  const mode = webgpu ? 'webgpu' : 'cpu';
  const label = webgpu ? '[WebGPU]' : '[no WebGPU]';
  const browser = await launch(webgpu);
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = watchErrors(await context.newPage());
  await page.goto(url);
  await page.waitForSelector('[data-testid=view]', { timeout: 20000 });

  const view = (name) => `[data-testid=view][data-name="${name}"]`;
  /** The header attributes of view `name` once it is drawn. */
  async function header(name) {
    await page.waitForSelector(view(name), { timeout: 30000 });
    return page.$eval(view(name), (v) => ({ shape: v.dataset.shape, stride: v.dataset.stride, offset: v.dataset.offset }));
  }
  /** Types `script` and goes to its last step. */
  async function run(script) {
    await page.fill('[data-testid=editor]', script);
    // The page's steps leave out an import that worked.
    const n = script.trim().split('\n').filter((l) => !/^(from|import) /.test(l)).length;
    await page.waitForFunction((n) => document.querySelector('[data-testid=step-label]')?.textContent.includes(`of ${n}`), n, { timeout: 10000 });
    await page.click('[data-testid=step-last]');
  }

  await check(`${label} ` + 'read_image("astronaut.png") fetches the sample: torchvision\'s shape and strides, and its channels_last copy', async () => {
    await run('from torchvision.io import read_image\nimg = read_image("astronaut.png")\nx = img.float() / 255\ny = img.unsqueeze(0).contiguous(memory_format=torch.channels_last)\nc = img.contiguous()\n');
    expectEqual(await header('img'), { shape: '3,512,512', stride: '1,1536,3', offset: '0' }, 'img');
    expectEqual(await header('x'), { shape: '3,512,512', stride: '1,1536,3', offset: '0' }, 'x = img.float() / 255');
    expectEqual(await header('y'), { shape: '1,3,512,512', stride: '3,1,1536,3', offset: '0' }, 'y (already channels_last)');
    expectEqual(await header('c'), { shape: '3,512,512', stride: '262144,512,1', offset: '0' }, 'c = img.contiguous()');
    const item = await page.$eval('[data-testid=image-list] [data-testid=image-item][data-name="astronaut.png"]', (li) => li.dataset.shape);
    expectEqual(item, '3,512,512', 'the image list shows the sample');
    expectEqual(await page.$$eval('[data-testid=error-line]', (els) => els.length), 0, 'no errors');
    await page.screenshot({ path: join(shots, `images-${mode}.png`) });
  });

  await check(`${label} ` + 'a PNG added with the image picker is read by its file name, as torchvision reads it', async () => {
    await page.setInputFiles('[data-testid=image-picker]', { name: 'mine.png', mimeType: 'image/png', buffer: interlacedBytes });
    await page.waitForSelector('[data-testid=image-item][data-name="mine.png"]', { timeout: 10000 });
    expectEqual(await page.getAttribute('[data-testid=image-item][data-name="mine.png"]', 'data-shape'), '3,7,9', 'listed shape');
    await run('from torchvision.io import read_image\nmine = read_image("mine.png")\nflat = mine.contiguous().flatten()\n');
    expectEqual(await header('mine'), { shape: '3,7,9', stride: '1,27,3', offset: '0' }, 'mine');
    await page.waitForSelector(view('flat'));
    const values = await page.$$eval(`${view('flat')} [data-testid=view-cell]`, (els) => els.map((e) => Number(e.textContent)));
    expectEqual(values, interlaced.values, 'values (torchvision\'s, CHW order)');
  });

  await check(`${label} ` + 'a JPEG dropped on the editor is decoded by the browser and read by its name', async () => {
    await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 4;
      canvas.height = 3;
      const g = canvas.getContext('2d');
      g.fillStyle = 'rgb(200, 30, 40)';
      g.fillRect(0, 0, 4, 3);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.95));
      const transfer = new DataTransfer();
      transfer.items.add(new File([blob], 'drop.jpg', { type: 'image/jpeg' }));
      const target = document.querySelector('.editor');
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    });
    await page.waitForSelector('[data-testid=image-item][data-name="drop.jpg"]', { timeout: 10000 });
    await run('from torchvision.io import read_image\nd = read_image("drop.jpg")\np = d[:, 1, 2]\n');
    expectEqual(await header('d'), { shape: '3,3,4', stride: '1,12,3', offset: '0' }, 'drop.jpg');
    await page.waitForSelector(view('p'));
    const rgb = await page.$$eval(`${view('p')} [data-testid=view-cell]`, (els) => els.map((e) => Number(e.textContent)));
    expect(Math.abs(rgb[0] - 200) <= 8 && Math.abs(rgb[1] - 30) <= 8 && Math.abs(rgb[2] - 40) <= 8, `a red pixel, got ${rgb}`);
  });

  await check(`${label} ` + 'a name that is neither a sample nor added says so, and read_image raises torchvision\'s error', async () => {
    await run('from torchvision.io import read_image\nn = read_image("nothere.png")\n');
    await page.waitForSelector('[data-testid=image-problem]', { timeout: 10000 });
    const problem = await page.textContent('[data-testid=image-problem]');
    expect(problem.includes('nothere.png'), `problem names the file: ${problem}`);
    await page.waitForSelector('[data-testid=error-line]');
    const error = await page.textContent('[data-testid=error-line]');
    expect(error.includes("No such file or directory: 'nothere.png'"), `torchvision's error: ${error}`);
  });

  await check(`${label} ` + 'a hostile file name is shown as text, never as markup', async () => {
    const name = '<img src=x onerror="window.__pwned=1">.png';
    await page.setInputFiles('[data-testid=image-picker]', { name, mimeType: 'image/png', buffer: interlacedBytes });
    await page.waitForFunction((name) => [...document.querySelectorAll('[data-testid=image-item]')].some((li) => li.dataset.name === name), name, { timeout: 10000 });
    expectEqual(await page.evaluate(() => window.__pwned ?? null), null, 'no script ran');
    expectEqual(await page.$$eval('[data-testid=image-list] img', (els) => els.length), 0, 'no element made from the name');
  });

  await check(`${label} ` + 'the page raised no errors (but the 404 of the missing sample)', async () => {
    expectEqual(page.errors.filter((e) => !e.includes('404')), [], 'page errors');
    expectEqual(page.errors.length <= 1, true, 'one 404 at most');
  });
  await browser.close();
}
server.close();
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
