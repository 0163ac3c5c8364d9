// The browser GPU benchmark (not a test of the suite: it prints figures).
//   trunk build --release && node tests/e2e/gpu_bench.mjs [DIST]
// (DIST: a copy of dist/ to serve instead, when other builds may rewrite dist/ meanwhile.)
// Serves dist/ under a subpath (/stridescope/, so the page's relative URLs are exercised),
// opens bench.html in headless Chromium with --enable-unsafe-webgpu on a fresh profile,
// clicks Run, waits for every case (Stridescope's kernels and TensorFlow.js's transpose,
// 5 timed runs + 1 warm-up each), prints the table, and writes target/e2e/gpu-bench.json
// and the screenshot target/e2e/gpu-bench.png. Exit status 0 when the page finished with
// every Stridescope result verified, 1 otherwise.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { launchFresh, serve, shots } from './harness.mjs';

const PREFIX = '/stridescope/';
const LIMIT_MS = 10 * 60 * 1000;

const server = await serve(process.argv[2] ? resolve(process.argv[2]) : undefined, PREFIX);
const url = `http://127.0.0.1:${server.address().port}${PREFIX}bench.html`;
const { context, close } = await launchFresh(true, { viewport: { width: 1400, height: 1000 } });
const page = context.pages()[0] ?? (await context.newPage());
page.on('console', (m) => {
  if (m.type() === 'error' || m.type() === 'warning') console.log(`[page ${m.type()}] ${m.text()}`);
});
page.on('pageerror', (e) => console.log(`[page exception] ${e.message}`));

let report = null;
let exitCode = 1;
try {
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => ['ready', 'no-adapter', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 });
  const ready = await page.evaluate(() => document.body.dataset.state);
  if (ready === 'ready') {
    await page.click('[data-testid=bench-run]');
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, {
      timeout: LIMIT_MS, polling: 1000,
    });
  }
  report = await page.evaluate(() => window.gpuBench);
  report.pageState = await page.evaluate(() => document.body.dataset.state);
  report.status = (await page.textContent('[data-testid=bench-status]')).trim();
  report.url = url;
  report.wallSeconds = (Date.now() - t0) / 1000;
  await mkdir(shots, { recursive: true });
  await page.screenshot({ path: join(shots, 'gpu-bench.png'), fullPage: true });
} finally {
  await close();
  server.close();
}

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const ms = (r) => (r && !r.error ? r.median_ms.toFixed(1) : r?.error ? 'failed' : '—');
const gbps = (r) => (r && !r.error ? r.gbps.toFixed(3) : r?.error ? 'failed' : '—');
const a = report.adapter;
console.log(`adapter: ${a ? `${a.vendor} ${a.architecture} ${a.description} (fallback ${a.isFallbackAdapter})` : 'none'}`);
if (report.engine) console.log(`engine: ${report.engine.name} ${report.engine.backend} ${report.engine.device_type}; ${report.engine.transpose_kernel}`);
if (report.tfjs) console.log(`tfjs: ${report.tfjs.error ?? `${report.tfjs.version} ${report.tfjs.backend}`}`);
console.log(`browser: ${report.userAgent}`);
console.log(`runs: ${report.runs} timed + 1 warm-up per side and case, each with the read-back; median`);
console.log('rb ms: reading back a buffer of the result\'s size alone (plain WebGPU), the floor under both sides');
console.log(
  `${pad('kernel', 14)} ${pad('shape', 14)} ${pad('dtype', 8)} ${lpad('MB', 6)} ${lpad('rb ms', 7)} ${lpad('ours ms', 9)} ${lpad('ours GB/s', 10)} ${pad('verified', 9)}`
  + ` ${pad('tf.transpose perm', 18)} ${lpad('tfjs ms', 9)} ${lpad('tfjs GB/s', 10)} ${lpad('ours/tfjs', 10)}`,
);
for (const r of report.results ?? []) {
  const verified = r.ours?.error ? 'failed' : r.ours.verified && r.ours.engine === 'gpu' ? 'yes' : `NO (${r.ours.engine})`;
  const perm = r.tfjs ? `[${r.perm.join(',')}]${r.tfjs.checked === false ? ' WRONG' : ''}` : '—';
  console.log(
    `${pad(r.kernel, 14)} ${pad(r.shape.join('x'), 14)} ${pad(r.dtype, 8)} ${lpad((r.bytes / 1e6).toFixed(1), 6)}`
    + ` ${lpad(ms(r.readback), 7)} ${lpad(ms(r.ours), 9)} ${lpad(gbps(r.ours), 10)} ${pad(verified, 9)} ${pad(perm, 18)}`
    + ` ${lpad(ms(r.tfjs), 9)} ${lpad(gbps(r.tfjs), 10)} ${lpad(r.ratio ? `${r.ratio.toFixed(2)}x` : '—', 10)}`,
  );
  for (const side of ['readback', 'ours', 'tfjs']) {
    if (r[side]?.error) console.log(`  ${side}: ${r[side].error}`);
  }
}
console.log(report.status);
console.log(`page state ${report.pageState}, ${report.wallSeconds.toFixed(0)} s`);
await writeFile(join(shots, 'gpu-bench.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${join(shots, 'gpu-bench.json')} and ${join(shots, 'gpu-bench.png')}`);
const results = report.results ?? [];
exitCode = report.pageState === 'done' && results.length > 0
  && results.every((r) => !r.ours?.error && r.ours.verified && r.ours.engine === 'gpu') ? 0 : 1;
process.exit(exitCode);
