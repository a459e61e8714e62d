// Small constant tables front ends build their argument parsers from (loaded at start-up: keep it light).
export { HOOK_NAMES, type HookName } from '../setup/hooks/scripts.js';
