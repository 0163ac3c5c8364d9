// Trunk's post_build hook (Trunk.toml), run with TRUNK_STAGING_DIR, TRUNK_PROFILE and
// TRUNK_PUBLIC_URL set. In order:
//   1. tools/web/build-wasm.sh: the app's wasm, split in two modules (see there);
//   2. the loader of the main module, written into index.html (Trunk's own `rel="rust"`
//      pipeline cannot split, so the page loads the module itself);
//   3. tools/web/standalone.mjs: embed.html and standalone.html, everything inlined.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('post_build.mjs: run by Trunk (TRUNK_STAGING_DIR is not set)');
  process.exit(2);
}
const built = spawnSync('bash', ['tools/web/build-wasm.sh', dir], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const base = process.env.TRUNK_PUBLIC_URL || '/';
const indexPath = join(dir, 'index.html');
const index = readFileSync(indexPath, 'utf8');
const loader = `<link rel="modulepreload" href="${base}stridescope.js" crossorigin>
<link rel="preload" href="${base}stridescope_bg.wasm" as="fetch" type="application/wasm" crossorigin>
<script type="module">
import init from '${base}stridescope.js';
try {
  await init({ module_or_path: '${base}stridescope_bg.wasm' });
} catch (e) {
  const p = document.getElementById('loading');
  if (p) p.textContent = 'Stridescope could not start: ' + e;
}
</script>
</head>`;
if (!index.includes('</head>')) {
  console.error('post_build.mjs: index.html has no </head>');
  process.exit(1);
}
writeFileSync(indexPath, index.replace('</head>', loader));

await import('./standalone.mjs');
