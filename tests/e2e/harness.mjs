// Shared pieces of the browser tests: a static server for dist/, Chromium launch flags
// (TOOLCHAIN.md), and a tiny check runner whose last line is "N passed, M failed".
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const shots = join(root, 'target', 'e2e');
const types = {
  '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.py': 'text/plain', '.json': 'application/json',
};

/**
 * Serves `dir` on 127.0.0.1 (a random port), at `/` or, with `prefix` (`/sub/`), only under
 * that path (as when the app is deployed under a subpath).
 */
export function serve(dir = join(root, 'dist'), prefix = '/') {
  const server = createServer(async (req, res) => {
    let url = new URL(req.url, 'http://x').pathname;
    if (prefix !== '/') {
      if (!url.startsWith(prefix)) {
        res.writeHead(404);
        res.end('not found');
        return;
      }
      url = url.slice(prefix.length - 1);
    }
    const path = normalize(decodeURIComponent(url)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path.endsWith('/') ? path + 'index.html' : path);
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

/**
 * What lets a WebGPU canvas present on SwiftShader in headless Chromium (TOOLCHAIN.md): the
 * compositor on SwiftShader's Vulkan, as WebGPU is. Without them the canvas's first frame loses
 * the device (the frame cannot be shared with the compositor). STRIDESCOPE_E2E_PRESENT=0 leaves
 * them out.
 */
export const PRESENT_FLAGS = process.env.STRIDESCOPE_E2E_PRESENT === '0' ? []
  : ['--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

/**
 * Chromium's flags (TOOLCHAIN.md), with `--enable-unsafe-webgpu` and the presenting flags when
 * `webgpu` (`present: false`: without the presenting flags).
 */
export function chromiumArgs(webgpu, { present = true } = {}) {
  const args = [
    '--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-quic',
  ];
  if (webgpu) args.push('--enable-unsafe-webgpu', ...(present ? PRESENT_FLAGS : []));
  return args;
}

/** Debian's Chromium, headless, with or without a WebGPU adapter (`options` as chromiumArgs'). */
export function launch(webgpu, options = {}) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs(webgpu, options) });
}

/**
 * Debian's Chromium, headless, on a fresh profile in a new temporary folder (its
 * `--user-data-dir`): returns `{ context, close }`; `close()` ends the browser and removes
 * the folder. `options` go to `launchPersistentContext` (viewport, ...).
 */
export async function launchFresh(webgpu, options = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'stridescope-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs(webgpu), ...options,
  });
  const close = async () => {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { context, close };
}

/**
 * Collects what would go unnoticed in a headless page into `page.errors`: uncaught
 * exceptions, console errors, and dialogs (alert/confirm, dismissed). Returns `page`.
 */
export function watchErrors(page) {
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('dialog', (d) => { page.errors.push(`dialog: ${d.message()}`); d.dismiss(); });
  return page;
}

export const results = { passed: 0, failed: 0 };

/** Runs one named check and records the result. */
export async function check(name, fn) {
  try {
    await fn();
    results.passed += 1;
    console.log(`ok   ${name}`);
  } catch (e) {
    results.failed += 1;
    console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split('\n').slice(0, 4).join('\n     ')}`);
  }
}

/** Throws unless `got` deep-equals `want`. */
export function expectEqual(got, want, what) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) {
    const cut = (s) => (s.length > 500 ? s.slice(0, 500) + '…' : s);
    throw new Error(`${what}: expected ${cut(w)}, got ${cut(g)}`);
  }
}

/** Throws unless `cond`. */
export function expect(cond, what) {
  if (!cond) throw new Error(what);
}

/** Canonical storage numbering (s0, s1, ... by first appearance), as the oracle compares. */
export function sharing(ids) {
  const seen = [];
  return ids.map((id) => {
    if (!seen.includes(id)) seen.push(id);
    return seen.indexOf(id);
  });
}
