// The built client (dist/web, written by `npm run build`) fits the server's Content-Security-Policy
// (`script-src 'self'; style-src 'self'`, no remote origin): index.html references only /assets/app.js and
// /assets/app.css, has no inline script, style or event handler, and the bundle evaluates no strings as code.
import test from 'ava';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const WEB = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'web');

test('index.html has no inline script or style and no external URL', async (t) => {
  const html = await readFile(path.join(WEB, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  t.is(scripts.length, 1);
  t.regex(scripts[0]![1]!, /\bsrc="\/assets\/app\.js"/);
  t.is(scripts[0]![2]!.trim(), '', 'no inline script body');
  t.notRegex(html, /<style\b/i, 'no <style> element');
  t.notRegex(html, /\sstyle\s*=/i, 'no style attribute');
  t.notRegex(html, /\son[a-z]+\s*=/i, 'no inline event handler');
  t.notRegex(html, /javascript:/i);
  const references = [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1]).sort();
  t.deepEqual(references, ['/assets/app.css', '/assets/app.js']);
  t.notRegex(html, /(https?:)?\/\/[a-z0-9]/i, 'no external URL');
});

test('app.js evaluates no strings as code; app.css imports nothing remote; both stay small', async (t) => {
  const js = await readFile(path.join(WEB, 'assets', 'app.js'), 'utf8');
  t.notRegex(js, /\beval\s*\(/, 'no eval');
  t.notRegex(js, /\bnew\s+Function\b/, 'no new Function');
  t.notRegex(js, /\bFunction\s*\(\s*["'`]/, 'no Function("...")');
  t.notRegex(js, /setTimeout\s*\(\s*["'`]/, 'no string timers');
  const css = await readFile(path.join(WEB, 'assets', 'app.css'), 'utf8');
  t.notRegex(css, /@import|@font-face|url\(/i, 'no imports, web fonts or remote images');
  // A budget, not a measurement (the report gives the figures): Preact + the pages. The review inbox (batch
  // selection, merge conflicts: +2.7 kB gzipped) and the virtualised tree with sources (+3.8 kB) took it
  // from 67 KB / 22.6 kB gzipped to about 87 KB / 29 kB; the action pages (New topic, Ask, Dream, delete, branch
  // actions, the Model section: about 16 KB, 4.5 kB gzipped) to about 110 KB / 36 kB.
  const { size } = await stat(path.join(WEB, 'assets', 'app.js'));
  t.true(size < 120_000, `app.js is ${size} bytes`);
  t.true(gzipSync(js).length < 40_000, `app.js is ${gzipSync(js).length} bytes gzipped`);
});

// The client is left out of the Node layer rules (.dependency-cruiser.cjs): it must stay self-contained,
// importing only its own modules and its bundled libraries, never brv's Node code; the one exception is the
// API's shared types (src/web/api-types.ts), imported as types only, and importing nothing itself.
test('the client imports nothing of brv outside src/web/client but the API types', async (t) => {
  const { readdir } = await import('node:fs/promises');
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'web', 'client');
  const files = (await readdir(dir)).filter((f) => /\.tsx?$/.test(f));
  t.true(files.length > 10);
  for (const file of files) {
    const source = await readFile(path.join(dir, file), 'utf8');
    for (const [statement, target] of source.matchAll(/^(?:import|export)[^;]*?\bfrom\s+'([^']+)'/gms))
      if (target!.startsWith('..'))
        t.true(target === '../api-types.js' && statement.startsWith('import type '), `${file} imports ${target}`);
    for (const [, target] of source.matchAll(/\bimport\(\s*'([^']+)'/g)) t.false(target!.startsWith('..'), `${file} imports ${target}`);
  }
  t.notRegex(await readFile(path.join(dir, '..', 'api-types.ts'), 'utf8'), /^\s*(import|export .* from)\b/m);
});
