// End-to-end tests of sharing and embedding (issue 5) in headless Chromium: Copy link round
// trips, hostile links, the Embed dialog, the course page's three widgets and their heights,
// SVG and PNG export, a build served under a subpath, and embed.html opened from file://.
// Run after `trunk build --release`; the subpath build is tested when STRIDESCOPE_SUBPATH_DIST
// names the output of `trunk build --release --public-url /some/sub/path/`.
// Screenshots and exports go to target/e2e/.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { check, watchErrors, expect, expectEqual, launch, results, root, serve, shots } from './harness.mjs';

const dist = process.env.STRIDESCOPE_DIST ?? join(root, 'dist');
await mkdir(shots, { recursive: true });
const server = await serve(dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch(false);

async function freshPage(viewport = { width: 1400, height: 1000 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.slice(0, -1) });
  const page = await context.newPage();
  return watchErrors(page);
}

async function ready(page) {
  await page.waitForSelector('[data-testid=step-label]');
  await page.waitForFunction(() => /^Step \d+ of \d+/.test(document.querySelector('[data-testid=step-label]')?.textContent ?? ''));
}

/** What a page shows: step label, views, highlighted and pinned cells. */
function snapshot(page) {
  return page.evaluate(() => ({
    label: document.querySelector('[data-testid=step-label]')?.textContent,
    views: [...document.querySelectorAll('[data-testid=view]')].map((v) => [v.dataset.name, v.dataset.shape, v.dataset.stride, v.dataset.offset, v.dataset.storage]),
    highlighted: [...document.querySelectorAll('[data-highlighted=true]')].map((c) => `${c.dataset.testid}@${c.dataset.offset}:${c.dataset.index ?? ''}`).sort(),
    pinned: [...document.querySelectorAll('[data-pinned=true]')].length,
    editor: document.querySelector('[data-testid=editor]')?.value,
    formula: document.querySelector('[data-testid=formula]')?.textContent,
  }));
}

// The default scenario's step count, from a fresh page with no link.
let defaultLabel;
await check('a fresh page writes its state into the address (#v1.)', async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  defaultLabel = await page.textContent('[data-testid=step-label]');
  await page.waitForFunction(() => location.hash.startsWith('#v1.'));
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('Copy link opens to the same step, views and highlighted cell', async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  // Step to `b = a.transpose(0, 1)` and a few steps on, then pin b[0, 1].
  for (let i = 0; i < 6; i++) await page.click('[data-testid=step-next]');
  const cell = page.locator('[data-testid=view][data-name=b] [data-testid=view-cell][data-index="0,1"]');
  await cell.click();
  await page.mouse.move(5, 5); // leave the cell: the pin keeps the highlight
  await page.waitForFunction(() => document.querySelectorAll('[data-pinned=true]').length >= 2);
  const before = await snapshot(page);
  expect(before.highlighted.length >= 3, `the pinned element lights its storage cell and a view cell in a and b: ${before.highlighted}`);
  // b = a.transpose(0, 1) of a 5x3 tensor has PyTorch's strides (1, 3): b[0, 1] is element 3.
  expectEqual(before.formula, 'b[0, 1]: offset = 0 + 0·1 + 1·3 = 3', 'the pinned cell\'s formula stays shown');
  await page.click('[data-testid=copy-link]');
  const link = await page.inputValue('[data-testid=share-url]');
  expect(link.startsWith(base) && link.includes('#v1.'), `link: ${link.slice(0, 80)}`);
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  expectEqual(clip, link, 'clipboard holds the link');
  await page.screenshot({ path: join(shots, 'share-pinned.png') });

  const other = await freshPage();
  await other.goto(link);
  await ready(other);
  await other.waitForFunction(() => document.querySelectorAll('[data-pinned=true]').length >= 2);
  const after = await snapshot(other);
  expectEqual(after, before, 'the opened link shows the same state');
  expectEqual([...page.errors, ...other.errors], [], 'page errors');
  await other.screenshot({ path: join(shots, 'share-opened.png') });
  await page.context().close();
  await other.context().close();
});

const valid = (await (async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  await page.waitForFunction(() => location.hash.startsWith('#v1.'));
  const hash = await page.evaluate(() => location.hash);
  await page.context().close();
  return hash;
})());

const hostile = [
  ['malformed', '#v1.!!!not*base64***'],
  ['truncated', valid.slice(0, Math.floor(valid.length / 2))],
  ['from a future version', '#v9.' + valid.slice(4)],
  ['megabytes long', '#v1.' + 'A'.repeat(1_900_000)],
  ['carrying <script>', '#<script>window.__pwned=1</script>'],
  ['carrying <img onerror>', '#<img src=x onerror="window.__pwned=1">'],
  ['a v1 link whose data is HTML', '#v1.PGltZyBzcmM9eCBvbmVycm9yPSJ3aW5kb3cuX19wd25lZD0xIj4'],
];
for (const [what, hash] of hostile) {
  await check(`a link ${what} opens the default scenario with a clear notice`, async () => {
    const page = await freshPage();
    await page.goto(base + hash);
    await ready(page);
    const notice = await page.textContent('[data-testid=link-notice]');
    expect(/link/i.test(notice) && /default scenario/.test(notice), `notice: ${notice}`);
    expectEqual(await page.textContent('[data-testid=step-label]'), defaultLabel, 'the default scenario');
    const pwned = await page.evaluate(() => window.__pwned ?? null);
    expectEqual(pwned, null, 'no script from the link ran');
    expectEqual(await page.locator('img[src=x], script:not([type])').count(), 0, 'no element injected from the link');
    expectEqual(page.errors, [], 'page errors');
    if (what === 'carrying <img onerror>') await page.screenshot({ path: join(shots, 'share-hostile-link.png') });
    await page.context().close();
  });
}

await check('the Embed dialog writes a snippet whose widget has the chosen options', async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  await page.click('[data-testid=step-next]');
  await page.click('[data-testid=embed-open]');
  await page.waitForSelector('[data-testid=embed-dialog]');
  await page.uncheck('[data-testid=embed-panel-editor]');
  await page.uncheck('[data-testid=embed-panel-memory]');
  await page.check('[data-testid=embed-readonly]');
  await page.selectOption('[data-testid=embed-theme]', 'dark');
  await page.fill('[data-testid=embed-title]', 'Strides of a');
  await page.screenshot({ path: join(shots, 'share-embed-dialog.png') });
  const snippet = await page.inputValue('[data-testid=embed-snippet]');
  expect(snippet.startsWith(`<iframe src="${base}embed.html#v1.`), snippet.slice(0, 120));
  expect(snippet.includes('title="Stridescope: Strides of a"'), 'accessible title');
  expect(snippet.includes('stridescope:height'), 'the auto-height listener');
  const src = snippet.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  // The snippet, pasted into a page of its own.
  const host = await freshPage();
  await host.setContent(`<!DOCTYPE html><title>host</title><body>${snippet}</body>`);
  const frame = await (await host.waitForSelector('iframe')).contentFrame();
  await ready(frame);
  expectEqual(await frame.textContent('[data-testid=step-label]'), 'Step 2 of ' + defaultLabel.match(/of (\d+)/)[1] + ' · line 3', 'starts at the chosen step');
  expectEqual(await frame.locator('[data-testid=editor]').count(), 0, 'editor hidden');
  expectEqual(await frame.evaluate(() => document.documentElement.dataset.theme), 'dark', 'theme');
  expectEqual(await frame.title(), 'Stridescope: Strides of a', 'document title');
  await host.waitForFunction(() => parseInt(document.querySelector('iframe').style.height) > 100);
  expectEqual([...page.errors, ...host.errors], [], 'page errors');
  await page.context().close();
  await host.context().close();
});

/** Opens the course page at `url` and checks its three widgets. */
async function coursePage(url, shot) {
  const page = await freshPage({ width: 1100, height: 900 });
  await page.addInitScript(() => {
    window.__heights = new Map();
    addEventListener('message', (e) => {
      if (e.data?.type !== 'stridescope:height') return;
      const frames = [...document.querySelectorAll('iframe')];
      window.__heights.set(frames.findIndex((f) => f.contentWindow === e.source), e.data.height);
    });
  });
  await page.goto(url);
  const iframes = page.locator('iframe');
  expectEqual(await iframes.count(), 3, 'three widgets');
  const expected = [
    // [title, view names, a distinguishing view's stride] from the scenarios (PyTorch's strides).
    ['Stridescope: aliasing through transpose', ['a', 'b'], ['b', '1,3']],
    ['Stridescope: slicing with offsets', ['x', 'y'], ['y', '4,1']],
    ['Stridescope: the channels_last conversion', ['x', 'y'], ['y', '16,1,8,4']],
  ];
  for (let i = 0; i < 3; i++) {
    await iframes.nth(i).scrollIntoViewIfNeeded();
    const frame = await (await iframes.nth(i).elementHandle()).contentFrame();
    await ready(frame);
    const [title, names, [name, stride]] = expected[i];
    expectEqual(await iframes.nth(i).getAttribute('title'), title, `iframe ${i} title`);
    const views = await frame.$$eval('[data-testid=view]', (vs) => vs.map((v) => [v.dataset.name, v.dataset.stride]));
    expectEqual(views.map(([n]) => n), names, `widget ${i} views`);
    expect(views.some(([n, s]) => n === name && s === stride), `widget ${i}: ${name} has stride ${stride}: ${JSON.stringify(views)}`);
    if (i === 1) {
      // The slicing widget's editor is read-only, and says so.
      expectEqual(await frame.$eval('[data-testid=editor]', (e) => e.readOnly), true, 'read-only editor');
      expect((await frame.textContent('[data-testid=editor-hint]')).includes('Read-only'), 'the hint says read-only');
    }
  }
  await page.waitForFunction(() => window.__heights.size === 3 && [...window.__heights.values()].every((h) => h > 150), null, { timeout: 20000 });
  const heights = await page.evaluate(() => [...window.__heights.entries()].sort());
  // The page's own listener applied them.
  for (const [i, h] of heights) {
    const css = await iframes.nth(i).evaluate((f) => f.style.height);
    expectEqual(css, `${Math.ceil(h)}px`, `iframe ${i} grew to its content`);
  }
  if (shot) {
    // Each widget as it shows once scrolled to (a full-page capture would catch off-screen
    // iframes before Chromium paints them).
    for (let i = 0; i < 3; i++) {
      await iframes.nth(i).scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await iframes.nth(i).screenshot({ path: join(shots, shot.replace('.png', `-widget-${i + 1}.png`)) });
    }
    await page.evaluate(() => scrollTo(0, 0));
    await page.screenshot({ path: join(shots, shot) });
  }
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
  return heights;
}

await check('the course page: three widgets, each its own scenario, each reporting its height', async () => {
  const heights = await coursePage(base + 'examples/course.html', 'course-page.png');
  console.log(`     heights reported: ${heights.map(([i, h]) => `#${i}: ${h}px`).join(', ')}`);
});

async function download(page, testid) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
  const path = await file.path();
  return { name: file.suggestedFilename(), bytes: await readFile(path) };
}

await check('Enter pins the cell the keyboard is on, and again unpins it', async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  await page.focus('[data-testid=view][data-name=a] [data-testid=view-grid]');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-pinned=true]').length >= 2);
  const pinned = await page.$$eval('[data-pinned=true]', (cs) => cs.map((c) => `${c.dataset.testid}@${c.dataset.offset}`).sort());
  expectEqual(pinned, ['storage-cell@1', 'view-cell@1'], 'a[0, 1] and its storage element are pinned');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-pinned=true]').length === 0);
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('SVG export parses and holds the storage cells with their values', async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  for (let i = 0; i < 9; i++) await page.click('[data-testid=step-next]');
  await page.locator('[data-testid=storage-cell][data-offset="4"]').first().click();
  const { name, bytes } = await download(page, 'export-svg');
  expectEqual(name, 'stridescope-step-10.svg', 'file name');
  const svg = bytes.toString('utf8');
  await writeFile(join(shots, 'export.svg'), svg);
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    if (doc.querySelector('parsererror')) return { error: doc.querySelector('parsererror').textContent };
    return {
      root: doc.documentElement.tagName,
      cells: [...doc.querySelectorAll('g.storage-cell')].map((g) => [g.dataset.storage, g.dataset.offset, g.querySelector('text').textContent]),
      texts: doc.querySelectorAll('text').length,
    };
  }, svg);
  expect(!parsed.error, `SVG parses: ${parsed.error}`);
  expectEqual(parsed.root, 'svg', 'root element');
  const page_cells = await page.$$eval('[data-testid=storage]', (ss) => ss.flatMap((s) =>
    [...s.querySelectorAll('[data-testid=storage-cell]')].map((c) => [s.dataset.storage, c.dataset.offset, c.querySelector('.val')?.textContent ?? c.textContent])));
  expectEqual(parsed.cells, page_cells, 'the SVG has every storage cell of the page with its value');
  expect(svg.includes('stroke-width="3"'), 'the pinned cell is outlined');
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('PNG export is a non-empty image of the diagram', async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  for (let i = 0; i < 9; i++) await page.click('[data-testid=step-next]');
  const { name, bytes } = await download(page, 'export-png');
  expectEqual(name, 'stridescope-step-10.png', 'file name');
  expectEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  await writeFile(join(shots, 'export.png'), bytes);
  const size = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    // Not blank: count the pixels that are not the background.
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200) ink++;
    return { w: img.width, h: img.height, ink };
  }, bytes.toString('base64'));
  expect(size.w > 400 && size.h > 300, `PNG size ${size.w}x${size.h}`);
  expect(size.ink > 2000, `the PNG shows a drawing (${size.ink} dark pixels)`);
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('index.html?embed with hand-written options is the widget', async () => {
  const page = await freshPage();
  await page.goto(`${base}index.html?embed&readonly&panels=steps,storage,views&step=3&theme=dark${valid}`);
  await ready(page);
  expectEqual(await page.locator('header.top').count(), 0, 'no page header');
  expectEqual(await page.locator('[data-testid=open-full]').count(), 1, 'the compact bar');
  expectEqual(await page.locator('[data-testid=editor]').count(), 0, 'editor hidden');
  expectEqual(await page.locator('[data-testid=output]').count(), 0, 'output hidden');
  expect(await page.locator('[data-testid=view]').count() >= 1, 'views shown');
  expect((await page.textContent('[data-testid=step-label]')).startsWith('Step 3 of'), 'starts at step 3');
  expectEqual(await page.evaluate(() => document.documentElement.dataset.theme), 'dark', 'theme');
  const full = await page.getAttribute('[data-testid=open-full]', 'href');
  expect(full.startsWith(`${base}index.html#v1.`), `Open in Stridescope: ${full.slice(0, 80)}`);
  // The full app, opened from the widget, says what the link hides and undoes it.
  const app = await freshPage();
  await app.goto(full);
  await ready(app);
  expect((await app.textContent('[data-testid=link-options]')).includes('Script editor'), 'names the hidden panels');
  await app.click('[data-testid=show-all-panels]');
  await app.click('[data-testid=make-editable]');
  await app.waitForSelector('[data-testid=editor]');
  expectEqual(await app.$eval('[data-testid=editor]', (e) => e.readOnly), false, 'editable');
  expectEqual(await app.locator('[data-testid=link-options]').count(), 0, 'the bar goes');
  expectEqual([...page.errors, ...app.errors], [], 'page errors');
  await page.context().close();
  await app.context().close();
});

await check('a long 1-D tensor (virtualized) wraps into lines of 16 cells', async () => {
  const page = await freshPage();
  await page.goto(base);
  await ready(page);
  await page.fill('[data-testid=editor]', 'import torch\ny = torch.arange(3000)\n');
  const cell = (i) => page.locator(`[data-testid=view][data-name=y] [data-testid=view-cell][data-index="${i}"]`);
  await cell(16).waitFor();
  const [a, b, c] = await Promise.all([0, 16, 17].map((i) => cell(i).boundingBox()));
  expect(b.y > a.y && Math.abs(b.x - a.x) < 1, `index 16 starts the second line: ${JSON.stringify([a, b])}`);
  expect(Math.abs(c.y - b.y) < 1 && c.x > b.x, 'index 17 follows it');
  expectEqual(await cell(16).textContent(), '16', 'its value (arange)');
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('embed.html opened from file:// runs its link', async () => {
  const file = pathToFileURL(join(dist, 'embed.html')).href + valid;
  const page = await freshPage();
  await page.goto(file);
  await ready(page);
  expectEqual(await page.textContent('[data-testid=step-label]'), defaultLabel, 'the linked scenario');
  expect(await page.locator('[data-testid=view]').count() >= 1, 'views drawn');
  await page.screenshot({ path: join(shots, 'embed-file-url.png') });
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('the course page opened from file:// shows its three widgets', async () => {
  await coursePage(pathToFileURL(join(dist, 'examples', 'course.html')).href, 'course-page-file-url.png');
});

const subpathDist = process.env.STRIDESCOPE_SUBPATH_DIST;
if (subpathDist) {
  const prefix = '/some/sub/path/';
  const sub = await serve(subpathDist, prefix);
  const subBase = `http://127.0.0.1:${sub.address().port}${prefix}`;
  await check('a --public-url /some/sub/path/ build works served from that subpath', async () => {
    const page = await freshPage();
    await page.goto(subBase);
    await ready(page);
    expectEqual(await page.textContent('[data-testid=step-label]'), defaultLabel, 'the default scenario');
    await page.click('[data-testid=copy-link]');
    const link = await page.inputValue('[data-testid=share-url]');
    expect(link.startsWith(subBase), `the link stays under the subpath: ${link.slice(0, 80)}`);
    await page.screenshot({ path: join(shots, 'subpath.png') });
    expectEqual(page.errors, [], 'page errors');
    await page.context().close();
    await coursePage(subBase + 'examples/course.html');
  });
  sub.close();
}

await browser.close();
server.close();
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
