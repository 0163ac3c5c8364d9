// The lesson player in headless Chromium (issue 10), keyboard only: a whole shipped lesson
// ("aliases": answer, choices, cells and task questions) in English and in Chinese, a wrong
// answer refused with feedback, concealed views revealed by the right answer, a copying task
// solution refused with its bytes named, progress kept across reloads, the lesson list, the
// lesson sources (?lesson= on this origin only, lesson links, hostile links), an embedded
// lesson's progress messages, the language switch, and axe-core (WCAG 2.1 AA) on the app,
// the player and the embed. Screenshots go to target/e2e/. Run after `trunk build --release`.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { check, expect, expectEqual, launch, results, root, serve, shots, watchErrors } from './harness.mjs';

await mkdir(shots, { recursive: true });
const server = await serve();
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch(false);
const axeSource = await readFile(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

async function freshPage(viewport = { width: 1400, height: 1000 }, locale = 'en-US') {
  const context = await browser.newContext({ viewport, locale });
  return watchErrors(await context.newPage());
}

/** axe-core's WCAG 2.1 A/AA violations of `target` (a page or a frame) that are serious or critical. */
async function axe(target) {
  await target.addScriptTag({ content: axeSource });
  const found = await target.evaluate(async () => {
    const r = await globalThis.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return { all: found, serious: found.filter((v) => v.impact === 'serious' || v.impact === 'critical') };
}

const q = (n) => `[data-testid=lesson-question] >> nth=${n}`;
const state = (page, n) => page.locator(q(n)).getAttribute('data-state');
const progress = async (page) => {
  const p = page.locator('[data-testid=lesson-progress]');
  return [await p.getAttribute('data-done'), await p.getAttribute('data-total')];
};
async function waitKind(page, n, kind) {
  await page.waitForFunction(([n, kind]) => document.querySelectorAll('[data-testid=lesson-question]')[n]?.dataset.kind === kind,
    [n, kind], { timeout: 10000 });
}
async function waitState(page, n, want) {
  await page.waitForFunction(([n, want]) => document.querySelectorAll('[data-testid=lesson-question]')[n]?.dataset.state === want,
    [n, want], { timeout: 10000 });
}
/** Moves the keyboard focus to `selector` (no pointer involved) and presses `key`. */
async function press(page, selector, key) {
  await page.locator(selector).focus();
  await page.keyboard.press(key);
}
async function next(page) {
  await press(page, '[data-testid=lesson-next]', 'Enter');
}

const words = {
  en: { feedback: /engine says/, copied: /\+12 B/, hidden: 'hidden until you answer', complete: 'Lesson complete' },
  'zh-CN': { feedback: /引擎算出的是/, copied: /\+12 B/, hidden: '作答后才显示', complete: '本课完成' },
};

for (const lang of ['en', 'zh-CN']) {
  const w = words[lang];
  const url = `${base}index.html?lang=${lang}#lesson=aliases`;
  await check(`[${lang}] the "aliases" lesson, keyboard only: every kind of question, feedback, concealed views, progress across reloads`, async () => {
    const page = await freshPage();
    await page.goto(url);
    await page.waitForSelector('[data-testid=lesson-question]');
    expectEqual(await page.evaluate(() => document.documentElement.lang), lang, '<html lang>');
    expectEqual(await progress(page), ['0', '4'], 'progress at the start');
    const ask = await page.locator(q(0)).locator('.ask').textContent();
    expect(lang === 'en' ? /What is/.test(ask) : /[\u4e00-\u9fff]/.test(ask), `the question in ${lang}: ${ask}`);

    // Q1 (answer): the views of the last code block are drawn without their labels.
    expectEqual(await page.locator(q(0)).getAttribute('data-kind'), 'answer', 'kind');
    await page.waitForSelector('[data-testid=view][data-name=b][data-concealed=true]');
    const meta = await page.locator('[data-testid=view][data-name=b] .meta').textContent();
    expect(meta.includes(w.hidden) && !/\(\d+\)/.test(meta), `b's labels hidden: ${meta}`);
    expectEqual(await page.locator('[data-testid=view][data-name=b] [data-testid=view-cell]').count(), 3, 'b still drawn with its cells');
    await page.screenshot({ path: join(shots, `lesson-${lang}-1400.png`), fullPage: false });
    await page.locator(`${q(0)} >> [data-testid=lesson-answer]`).focus();
    await page.keyboard.type('[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]');
    await page.keyboard.press('Enter');
    await waitState(page, 0, 'wrong');
    const feedback = await page.locator(`${q(0)} >> [data-testid=lesson-feedback]`).textContent();
    expect(w.feedback.test(feedback), `feedback from the engine: ${feedback}`);
    expectEqual(await page.locator('[data-concealed=true]').count() > 0, true, 'still concealed after a wrong answer');
    await page.screenshot({ path: join(shots, `lesson-${lang}-wrong-1400.png`) });
    // Hint, by keyboard.
    await press(page, `${q(0)} >> [data-testid=lesson-hint]`, 'Enter');
    await page.waitForSelector(`${q(0)} >> [data-testid=lesson-hint-text]`);
    await page.locator(`${q(0)} >> [data-testid=lesson-answer]`).focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('[[0.0, 7.0, 0.0], [0.0, 0.0, 0.0]]');
    await page.keyboard.press('Enter');
    await waitState(page, 0, 'correct');
    await page.waitForFunction(() => document.querySelectorAll('[data-concealed=true]').length === 0, null, { timeout: 5000 });
    const shown = await page.locator('[data-testid=view][data-name=b] .meta').textContent();
    expect(/\(3\)/.test(shown) && /\(1\)/.test(shown), `b's labels revealed: ${shown}`);
    expectEqual(await progress(page), ['1', '4'], 'progress after one');

    // Progress survives a reload: question 1 stays answered, question 2 is open.
    await page.reload();
    await page.waitForSelector('[data-testid=lesson-question]');
    await waitState(page, 0, 'correct');
    await waitState(page, 1, 'open');
    expectEqual(await progress(page), ['1', '4'], 'progress after a reload');

    // Q2 (choices): c (the transpose) is concealed; Space picks, arrows move, Enter checks.
    expectEqual(await page.locator(q(1)).getAttribute('data-kind'), 'choices', 'kind');
    await page.waitForSelector('[data-testid=view][data-name=c][data-concealed=true]');
    const values = await page.locator(`${q(1)} >> [data-testid=lesson-choice]`).evaluateAll((els) => els.map((e) => e.value));
    expectEqual(values, ['0.0', '5.0', '7.0'], 'choice values');
    await page.locator(`${q(1)} >> [data-testid=lesson-choice] >> nth=0`).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Enter');
    await waitState(page, 1, 'wrong');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await waitState(page, 1, 'correct');
    await next(page);

    // Q3 (cells): the keyboard toggles the storage's cells; a wrong set names what is missing.
    await waitKind(page, 2, 'cells');
    for (const at of [3, 4]) await press(page, `${q(2)} >> [data-testid=lesson-cell][data-offset="${at}"]`, 'Space');
    await press(page, `${q(2)} >> [data-testid=lesson-submit]`, 'Enter');
    await waitState(page, 2, 'wrong');
    const cellsFeedback = await page.locator(`${q(2)} >> [data-testid=lesson-feedback]`).textContent();
    expect(cellsFeedback.includes('5'), `names cell 5: ${cellsFeedback}`);
    expectEqual(await page.locator('[data-testid=storage-cell][data-selected=true]').count(), 2, 'selected cells marked in the diagram');
    await press(page, `${q(2)} >> [data-testid=lesson-cell][data-offset="5"]`, 'Space');
    await press(page, `${q(2)} >> [data-testid=lesson-submit]`, 'Enter');
    await waitState(page, 2, 'correct');
    await next(page);

    // Q4 (task): the editor holds the lesson's code; a copying solution is refused with its bytes.
    await waitKind(page, 3, 'task');
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'editor', null, { timeout: 5000 });
    const prefix = await page.inputValue('[data-testid=editor]');
    expect(prefix.includes('c[2, 1] = 5'), `the editor holds the lesson's code: ${prefix}`);
    const copying = 'a[1] = torch.ones(3)';
    await page.keyboard.type(copying);
    await press(page, `${q(3)} >> [data-testid=lesson-submit]`, 'Enter');
    await waitState(page, 3, 'wrong');
    const taskFeedback = await page.locator(`${q(3)} >> [data-testid=lesson-feedback]`).textContent();
    expect(w.copied.test(taskFeedback), `the copied bytes are named: ${taskFeedback}`);
    await page.screenshot({ path: join(shots, `lesson-${lang}-task-1400.png`) });
    await page.locator('[data-testid=editor]').focus();
    await page.keyboard.press('Control+End');
    for (let i = 0; i < copying.length; i++) await page.keyboard.press('Backspace');
    await page.keyboard.type('a[1].fill_(1)');
    await press(page, `${q(3)} >> [data-testid=lesson-submit]`, 'Enter');
    await waitState(page, 3, 'correct');
    expectEqual(await progress(page), ['4', '4'], 'all done');
    await next(page);
    await page.waitForSelector(`text=${w.complete}`);

    await page.reload();
    await page.waitForSelector('[data-testid=lesson-question]');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=lesson-question]')].every((e) => e.dataset.state === 'correct')
      && document.querySelectorAll('[data-testid=lesson-question]').length === 4, null, { timeout: 5000 });
    expectEqual(await progress(page), ['4', '4'], 'all done after a reload');

    // The list shows the lesson done.
    await page.goto(`${base}index.html?lang=${lang}#lessons`);
    await page.waitForSelector('[data-testid=lesson-link]');
    expect(await page.locator('[data-testid=lesson-link]').count() >= 10, 'ten lessons or more');
    const link = page.locator('[data-testid=lesson-link][data-id=aliases]');
    expectEqual([await link.getAttribute('data-done'), await link.getAttribute('data-total')], ['4', '4'], 'aliases done in the list');
    await page.screenshot({ path: join(shots, `lesson-index-${lang}.png`) });
    expectEqual(page.errors, [], 'page errors');
    await page.context().close();
  });

  await check(`[${lang}] the player at 360 px: screenshot, Show me reveals`, async () => {
    const page = await freshPage({ width: 360, height: 800 });
    await page.goto(url);
    await page.waitForSelector('[data-testid=view][data-concealed=true]');
    await page.screenshot({ path: join(shots, `lesson-${lang}-360.png`), fullPage: true });
    await press(page, `${q(0)} >> [data-testid=lesson-reveal]`, 'Enter');
    await waitState(page, 0, 'revealed');
    await page.waitForFunction(() => document.querySelectorAll('[data-concealed=true]').length === 0);
    const fb = await page.locator(`${q(0)} >> [data-testid=lesson-feedback]`).textContent();
    expect(fb.includes('7.0'), `the answer is shown: ${fb}`);
    expectEqual(await progress(page), ['1', '4'], 'a shown answer counts as done');
    expectEqual(page.errors, [], 'page errors');
    await page.context().close();
  });
}

await check('clicking a storage cell toggles its selection in a cells question', async () => {
  const page = await freshPage();
  await page.goto(`${base}index.html#lesson=storage`);
  await page.waitForSelector('[data-testid=lesson-question]');
  // Close the first four questions with "Show me" to reach the cells question.
  // Once in five full runs of ./dev test (a loaded machine) an Enter here changed nothing for
  // 10 s; alone the test passed every time. Press again if nothing happened after 3 s (as a
  // reader would), three times at most; the cause is not yet known.
  for (let n = 0; n < 4; n++) {
    for (let tries = 1; ; tries++) {
      await press(page, `${q(n)} >> [data-testid=lesson-reveal]`, 'Enter');
      const revealed = await page.waitForFunction(([n]) => document.querySelectorAll('[data-testid=lesson-question]')[n]?.dataset.state === 'revealed',
        [n], { timeout: 3000 }).then(() => true, () => false);
      if (revealed) break;
      if (tries === 3) await waitState(page, n, 'revealed');
    }
    await next(page);
  }
  await waitKind(page, 4, 'cells');
  await page.click('[data-testid=storage-cell][data-offset="1"]');
  await page.click('[data-testid=storage-cell][data-offset="4"]');
  await page.click('[data-testid=storage-cell][data-offset="2"]');
  await page.click('[data-testid=storage-cell][data-offset="2"]');
  expectEqual(await page.locator('[data-testid=storage-cell][data-selected=true]').count(), 2, 'two selected');
  await page.click(`${q(4)} >> [data-testid=lesson-submit]`);
  await waitState(page, 4, 'correct');
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('the browser language chooses the language; the switch changes it and is remembered', async () => {
  const page = await freshPage({ width: 1400, height: 1000 }, 'zh-CN');
  await page.goto(base);
  await page.waitForSelector('[data-testid=view]');
  expectEqual(await page.evaluate(() => document.documentElement.lang), 'zh-CN', 'from navigator.languages');
  expect((await page.textContent('[data-testid=step-label]')).startsWith('第 1 步'), 'the step label in Chinese');
  const badge = await page.textContent('[data-testid=engine-badge]');
  expect(badge.startsWith('CPU · ') && /[\u4e00-\u9fff]/.test(badge), `the engine badge in Chinese: ${badge}`);
  await page.screenshot({ path: join(shots, 'app-zh-CN-1400.png') });
  await page.locator('[data-testid=lang-switch]').focus();
  await page.selectOption('[data-testid=lang-switch]', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  expect((await page.textContent('[data-testid=step-label]')).startsWith('Step 1'), 'switched to English');
  await page.reload();
  await page.waitForSelector('[data-testid=view]');
  expectEqual(await page.evaluate(() => document.documentElement.lang), 'en', 'the choice is remembered');
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('lesson sources: ?lesson= on this origin, refused elsewhere; lesson links; hostile links never take the page down', async () => {
  const page = await freshPage();
  await page.goto(`${base}index.html?lesson=lessons/en/02-transpose-permute.md`);
  await page.waitForSelector('[data-testid=lesson-question]');
  expect((await page.textContent('#lesson-title')).includes('Transpose'), 'same-origin file');
  // Share this lesson: the link carries the whole lesson.
  await press(page, '[data-testid=lesson-share]', 'Enter');
  await page.waitForSelector('.lesson-foot .share-url');
  const link = await page.inputValue('.lesson-foot .share-url');
  expect(link.includes('#lesson-data=v1.'), `lesson link: ${link.slice(0, 80)}`);
  const other = await freshPage();
  await other.goto(link);
  await other.waitForSelector('[data-testid=lesson-question]');
  expect((await other.textContent('#lesson-title')).includes('Transpose'), 'the linked lesson');
  await other.context().close();
  for (const [what, address] of [
    ['another origin', `${base}index.html?lesson=https://example.org/evil.md`],
    ['a script URL', `${base}index.html?lesson=javascript:alert(1)`],
    ['a damaged lesson link', `${base}index.html#lesson-data=v1.%3Cimg%20src=x%20onerror=alert(1)%3E`],
    ['an unknown lesson', `${base}index.html#lesson=no-such-lesson`],
    ['a hostile id', `${base}index.html#lesson=%3Cscript%3Ealert(1)%3C/script%3E`],
  ]) {
    const p = await freshPage();
    await p.goto(address);
    await p.waitForSelector('[data-testid=lesson-error]', { timeout: 10000 });
    const text = await p.textContent('[data-testid=lesson-error]');
    expect(text.length > 20, `${what}: a clear notice (${text})`);
    expectEqual(await p.locator('img, script:not([type])').count() <= 1, true, `${what}: nothing injected`);
    expectEqual(p.errors, [], `${what}: page errors`);
    await p.context().close();
  }
  const hostile = `---\nid: x\ntitle: <img src=x onerror=alert(1)>\nlang: en\n---\n<script>alert(1)</script> **hi**\n\n\`\`\`python\na = torch.zeros(3)\n\`\`\`\n\n\`\`\`question\nask: <img src=y onerror=alert(2)> size?\nanswer: a.numel()\n\`\`\`\n`;
  const hp = await freshPage();
  await hp.goto(`${base}index.html?lesson=lessons/en/01-storage.md`);
  await hp.waitForSelector('[data-testid=lesson-question]');
  const packed = await hp.evaluate(async (src) => {
    const data = new Blob([src]).stream().pipeThrough(new CompressionStream('deflate-raw'));
    const bytes = new Uint8Array(await new Response(data).arrayBuffer());
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
  }, hostile);
  await hp.goto(`${base}index.html#lesson-data=v1.${packed}`);
  await hp.waitForSelector('[data-testid=lesson-question], [data-testid=lesson-error]');
  expectEqual(await hp.locator('.lesson img').count(), 0, 'no <img> from the lesson');
  expectEqual(await hp.locator('.lesson script').count(), 0, 'no <script> from the lesson');
  expectEqual(hp.errors, [], 'page errors');
  await hp.context().close();
  expectEqual(page.errors, [], 'page errors');
  await page.context().close();
});

await check('an embedded lesson plays compactly and posts its progress to the parent page', async () => {
  const host = await freshPage({ width: 900, height: 1000 });
  await host.goto(`${base}examples/course.html`);
  await host.setContent(`<!DOCTYPE html><html lang="en"><title>host</title><body>
    <iframe src="${base}embed.html?lang=en#lesson=aliases" title="Lesson: aliases" width="100%" height="900"></iframe>
    <script>window.__progress = []; addEventListener('message', (e) => { if (e.data?.type === 'stridescope:progress') window.__progress.push(e.data); });</script>
  </body></html>`);
  const frame = await (await host.waitForSelector('iframe')).contentFrame();
  await frame.waitForSelector('[data-testid=lesson-question]');
  expectEqual(await frame.locator('[data-testid=editor]').count(), 0, 'no editor outside tasks');
  await frame.locator(`${q(0)} >> [data-testid=lesson-answer]`).focus();
  await host.keyboard.type('[[0.0, 7.0, 0.0], [0.0, 0.0, 0.0]]');
  await host.keyboard.press('Enter');
  await host.waitForFunction(() => window.__progress.some((m) => m.done === 1), null, { timeout: 10000 });
  const messages = await host.evaluate(() => window.__progress);
  expectEqual(messages.at(-1), { type: 'stridescope:progress', lesson: 'aliases', done: 1, total: 4 }, 'the last message');
  await host.screenshot({ path: join(shots, 'lesson-embed.png') });
  const found = await axe(frame);
  console.log(`     axe (embedded lesson): ${found.all.length} violations, ${found.serious.length} serious or critical ${JSON.stringify(found.serious)}`);
  expectEqual(found.serious, [], 'serious or critical violations in the embed');
  expectEqual(host.errors, [], 'page errors');
  await host.context().close();
});

for (const [name, address] of [
  ['the app', `${base}index.html`],
  ['the app in Chinese', `${base}index.html?lang=zh-CN`],
  ['the lesson player', `${base}index.html#lesson=aliases`],
  ['the lesson list', `${base}index.html#lessons`],
  ['the embed', `${base}embed.html`],
]) {
  await check(`axe-core: ${name} has no serious or critical WCAG 2.1 AA violations`, async () => {
    const page = await freshPage();
    await page.goto(address);
    await page.waitForSelector('[data-testid=view], [data-testid=lesson-link]', { timeout: 15000 });
    await page.waitForTimeout(300);
    const found = await axe(page);
    console.log(`     axe (${name}): ${found.all.length} violations, ${found.serious.length} serious or critical ${JSON.stringify(found.serious)}`);
    expectEqual(found.serious, [], 'serious or critical violations');
    await page.context().close();
  });
}

await check('axe-core: the lesson player in the dark theme, answered wrong, has no serious or critical violations', async () => {
  const page = await freshPage();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${base}index.html?lang=zh-CN#lesson=aliases`);
  await page.waitForSelector('[data-testid=lesson-question]');
  await page.locator(`${q(0)} >> [data-testid=lesson-answer]`).focus();
  await page.keyboard.type('(1, 3)');
  await page.keyboard.press('Enter');
  await waitState(page, 0, 'wrong');
  await press(page, `${q(0)} >> [data-testid=lesson-hint]`, 'Enter');
  await page.screenshot({ path: join(shots, 'lesson-zh-CN-dark-1400.png') });
  const found = await axe(page);
  console.log(`     axe (the lesson player, dark, wrong answer): ${found.all.length} violations, ${found.serious.length} serious or critical ${JSON.stringify(found.serious)}`);
  expectEqual(found.serious, [], 'serious or critical violations');
  await page.context().close();
});

await browser.close();
server.close();
console.log(`\n${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
