// Writes `embed.html` and `standalone.html` into the build (run by post_build.mjs), each one
// self-contained (CSS, the wasm-bindgen glue, the split loader and the wasm modules inlined,
// the wasm as base64), so that they work from any subpath, from a CDN-less static host and
// from file://, where browsers refuse to load module scripts and to fetch wasm.
//   embed.html       the compact widget for iframes (`<body data-embed="true">`)
//   standalone.html  the whole app, for offline use (open it from disk)
// Run by Trunk with TRUNK_STAGING_DIR set; `node tools/web/standalone.mjs DIR` also works.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR || process.argv[2];
if (!dir) {
  console.error('standalone.mjs: set TRUNK_STAGING_DIR or pass the build folder');
  process.exit(2);
}
const files = readdirSync(dir);
const wasmName = files.find((f) => f.endsWith('_bg.wasm') && !f.startsWith('bench'));
if (!wasmName) {
  console.error(`standalone.mjs: no *_bg.wasm in ${dir}`);
  process.exit(1);
}
const glueName = wasmName.replace(/_bg\.wasm$/, '.js');
let glue = readFileSync(join(dir, glueName), 'utf8');
// The glue imports the split loader (`import * as import1 from "./__wasm_split.js"`), which
// imports `initSync` from the glue and fetches each chunk by URL. Inlined, the loader is a
// plain object built in the same script, and each chunk is read from its base64.
const splitImport = /^import \* as (\w+) from "\.\/__wasm_split\.js";?$/m;
const splitMatch = glue.match(splitImport);
if (splitMatch) {
  let loader = readFileSync(join(dir, '__wasm_split.js'), 'utf8');
  loader = loader.replace(/^import \{ initSync \} from "[^"]+";?$/m, '');
  const exported = [...loader.matchAll(/^export const (\w+)/gm)].map((m) => m[1]);
  loader = loader.replace(/^export const /gm, 'const ');
  loader = loader.replace(/fetch\(new URL\("\.\/([\w.-]+\.wasm)", import\.meta\.url\)\)/g, (_, file) => {
    const b64 = readFileSync(join(dir, file)).toString('base64');
    return `Promise.resolve(new Response(__wasmBytes("${b64}"), { headers: { "Content-Type": "application/wasm" } }))`;
  });
  glue = glue.replace(splitImport, '');
  glue += `
function __wasmBytes(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}
${loader}
const ${splitMatch[1]} = { ${exported.join(', ')} };
`;
}
if (/^\s*import\s/m.test(glue)) {
  console.error(`standalone.mjs: ${glueName} imports other modules; it cannot be inlined`);
  process.exit(1);
}
// Inline scripts end at the first `</script`: keep the glue from ever containing one.
glue = glue.replace(/<\/script/gi, '<\\/script');
const wasm = readFileSync(join(dir, wasmName)).toString('base64');
const css = ['style.css', 'share.css', 'lesson.css']
  .filter((f) => files.includes(f))
  .map((f) => readFileSync(join(dir, f), 'utf8'))
  .join('\n');
const icon = files.includes('favicon.svg')
  ? `<link rel="icon" href="data:image/svg+xml;base64,${readFileSync(join(dir, 'favicon.svg')).toString('base64')}">`
  : '';

function page({ embed, title }) {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${icon}
<style>
${css}
</style>
</head>
<body${embed ? ' data-embed="true"' : ''}>
<noscript>Stridescope needs JavaScript and WebAssembly.</noscript>
<p id="loading" class="loading">Loading the tensor engine&hellip;</p>
<script type="module">
${glue}
const wasmBase64 = "${wasm}";
const bin = atob(wasmBase64);
const bytes = new Uint8Array(bin.length);
for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
try {
  await __wbg_init({ module_or_path: bytes });
} catch (e) {
  const p = document.getElementById('loading');
  if (p) p.textContent = 'Stridescope could not start: ' + e;
}
</script>
</body>
</html>
`;
}

writeFileSync(join(dir, 'embed.html'), page({ embed: true, title: 'Stridescope widget' }));
writeFileSync(join(dir, 'standalone.html'), page({ embed: false, title: 'Stridescope (offline)' }));
console.log(`standalone.mjs: wrote embed.html and standalone.html (${Math.round(wasm.length / 1024)} KiB of wasm as base64)`);
