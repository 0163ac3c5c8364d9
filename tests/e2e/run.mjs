// End-to-end: serve the built app (dist/) on localhost, drive it in headless Chromium
// (Debian's, through playwright-core), check what it shows against PyTorch-recorded values,
// and save screenshots under target/e2e/. Run after `trunk build --release`.
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'dist');
const shots = join(root, 'target', 'e2e');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.py': 'text/plain' };

function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dist, path.endsWith('/') ? path + 'index.html' : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const browserArgs = (webgpu) => [
  '--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-quic', ...(webgpu ? ['--enable-unsafe-webgpu'] : []),
];

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}\n     ${String(e?.message ?? e).split('\n').join('\n     ')}`);
  }
}
function expectEqual(got, want, what) {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    const cut = (v) => { const s = JSON.stringify(v); return s.length > 400 ? s.slice(0, 400) + '…' : s; };
    throw new Error(`${what}: expected ${cut(want)}, got ${cut(got)}`);
  }
}

const recorded = JSON.parse((await readFile(join(root, 'tests/fixtures/default_scenario.torch.jsonl'), 'utf8')).trim().split('\n')[0]);
await mkdir(shots, { recursive: true });
const server = await serve();
const url = `http://127.0.0.1:${server.address().port}/`;

for (const webgpu of [false, true]) {
  const label = webgpu ? 'with WebGPU flag' : 'without WebGPU';
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: browserArgs(webgpu) });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  const started = Date.now();
  await page.goto(url);
  await check(`${label}: the default scenario renders one row per statement`, async () => {
    await page.waitForSelector('table.steps tr td', { timeout: 15000 });
    const sources = await page.$$eval('table.steps tr', (rows) => rows.slice(1).map((r) => r.children[1].textContent));
    expectEqual(sources, recorded.steps.map((s) => s.source), 'statements');
  });
  console.log(`     first render: ${Date.now() - started} ms`);
  await check(`${label}: outputs and errors are PyTorch's`, async () => {
    const shown = await page.$$eval('table.steps tr', (rows) => rows.slice(1).map((r) => r.children[2].textContent));
    expectEqual(shown, recorded.steps.map((s) => s.error ?? s.output ?? ''), 'outputs');
  });
  await check(`${label}: strides and offsets of every view are PyTorch's`, async () => {
    const views = await page.$$eval('table.steps tr', (rows) => rows.slice(1).map((r) =>
      [...r.children[3].querySelectorAll('.view')].map((v) => [v.dataset.name, v.dataset.shape, v.dataset.stride, v.dataset.offset])));
    const want = recorded.steps.map((s) => s.tensors.map((t) => [t.name, t.shape.join(','), t.stride.join(','), String(t.storage_offset)]));
    expectEqual(views, want, 'views');
  });
  await check(`${label}: no user text becomes HTML and nothing logged an error`, async () => {
    expectEqual(await page.$$eval('table.steps script, table.steps img', (e) => e.length), 0, 'injected elements');
    expectEqual(consoleErrors, [], 'page errors');
  });
  await page.screenshot({ path: join(shots, `placeholder-${webgpu ? 'webgpu' : 'cpu'}.png`), fullPage: false });
  await browser.close();
}
server.close();
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
