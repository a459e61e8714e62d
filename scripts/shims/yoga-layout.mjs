// Build-time stand-in for `yoga-layout` (ink's layout engine). Its module body awaits the
// WebAssembly it embeds (top-level await), which the CommonJS chunks of brv's build cannot hold
// (scripts/build.mjs). The same code, loaded without that await: `ready` settles once Yoga is
// there; the TUI awaits it before its first render (ink calls Yoga only when it lays out).
import { loadYoga } from '../../node_modules/yoga-layout/dist/src/load.js';

export * from '../../node_modules/yoga-layout/dist/src/generated/YGEnums.js';

let Yoga;
export const ready = loadYoga().then((loaded) => {
  Yoga = loaded;
});
export { Yoga as default };
