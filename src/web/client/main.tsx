// The browser client of `brv webui`, bundled by scripts/build.mjs into dist/web/assets/app.js.
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(<App />, root);
