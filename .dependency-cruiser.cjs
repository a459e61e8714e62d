// The layers of src/ (CONTRIBUTING.md "Architecture"), checked by
// `npm run lint:layers` in `npm test`. Each layer imports only itself and the layers below it; type-only and
// dynamic imports count like any other. test/layers.test.ts runs this configuration on a fixture tree with violations.

/** The floors, bottom first. */
const TOPIC = '^src/topic/';
/** errors, error kinds, trace marks, the package root, the refs/brv names: over topic/ only. */
const BASE = '^src/base/';
const GIT = '^src/git/';
/** The processes brv starts that are not git (the editor, the browser opener, detached work), through git/'s runner. */
const PROC = '^src/proc/';
/** The typed brv.* settings: read through git only, so the store's review policy can use them. */
const SETTINGS = '^src/settings/';
const STORE = '^src/store/';
/** The on-disk search index: segments, stacks, manifests, build, maintenance, extraction, caches. */
const INDEX = '^src/index/';
/** Ranking over the index: question analysis, scoring, ranking features, fusion, federation. */
const SEARCH = '^src/search/';
/** What the service offers, side by side: each may use the others as long as no cycle forms. */
const FEATURES = '^src/(curate|byterover|vc|setup|models)/';
const SERVICE = '^src/service/';
/** Results → terminal text and markdown, for every front end: pure functions over the service's results. */
const VIEWS = '^src/views/';
const FRONT_ENDS = '^src/(cli|mcp|web|tui)/';

/** What every layer may use. */
const LEAVES = [TOPIC, BASE];
/** A module in no layer: a new directory must be placed in a layer here and in the diagram first. */
const ANY_LAYER = [...LEAVES, GIT, PROC, SETTINGS, STORE, INDEX, SEARCH, FEATURES, SERVICE, VIEWS, FRONT_ENDS];

/** Only the given layers (and the leaves), as a `to.pathNot` list: anything else in src/ is above. */
const onlyTo = (...layers) => ({ path: '^src/', pathNot: [...LEAVES, ...layers] });
const BELOW_FEATURES = [SEARCH, INDEX, STORE, SETTINGS, PROC, GIT];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'A file must not depend on itself through other files (type-only imports included).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'outside-layers',
      severity: 'error',
      comment: 'Every module in src/ belongs to a layer: add a new directory to .dependency-cruiser.cjs and the diagram.',
      from: { path: '^src/', pathNot: ANY_LAYER },
      to: {},
    },
    {
      name: 'topic-is-pure',
      severity: 'error',
      comment: 'src/topic/ is a pure leaf: it imports nothing from src/ outside topic/.',
      from: { path: TOPIC },
      to: { path: '^src/', pathNot: TOPIC },
    },
    {
      name: 'topic-no-node',
      severity: 'error',
      comment: 'src/topic/ is pure: no Node built-in module (no fs, no processes, no network).',
      from: { path: TOPIC },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'leaf-files',
      severity: 'error',
      comment: 'src/base/ (errors, error kinds, trace, package root, ref names) imports only base/ and topic/.',
      from: { path: BASE },
      to: onlyTo(),
    },
    {
      name: 'git-imports-upward',
      severity: 'error',
      comment: 'src/git/ is the bottom layer: it imports only git/ and the leaves.',
      from: { path: GIT },
      to: onlyTo(GIT),
    },
    {
      name: 'proc-imports-upward',
      severity: 'error',
      comment: 'src/proc/ imports only proc/, git/ and the leaves.',
      from: { path: PROC },
      to: onlyTo(PROC, GIT),
    },
    {
      name: 'settings-imports-upward',
      severity: 'error',
      comment: 'src/settings/ imports only settings/, proc/, git/ and the leaves.',
      from: { path: SETTINGS },
      to: onlyTo(SETTINGS, PROC, GIT),
    },
    {
      name: 'store-imports-upward',
      severity: 'error',
      comment: 'src/store/ imports only store/, proc/, git/ and the leaves (its review policy is given by the service, not read from settings/).',
      from: { path: STORE },
      to: onlyTo(STORE, PROC, GIT),
    },
    {
      name: 'index-imports-upward',
      severity: 'error',
      comment: 'src/index/ imports only index/, store/ and what is below it; never search/ (ranking is above the index).',
      from: { path: INDEX },
      to: onlyTo(INDEX, STORE, SETTINGS, PROC, GIT),
    },
    {
      name: 'search-imports-upward',
      severity: 'error',
      comment: 'src/search/ imports only search/, index/ and what is below it; never a feature, the service or a front end.',
      from: { path: SEARCH },
      to: onlyTo(...BELOW_FEATURES),
    },
    {
      name: 'feature-imports-upward',
      severity: 'error',
      comment:
        'Features (curate, byterover, vc, setup, models) import each other (without cycles) and what is below them; never service/ or a front end.',
      from: { path: FEATURES },
      to: onlyTo(FEATURES, ...BELOW_FEATURES),
    },
    {
      name: 'service-imports-upward',
      severity: 'error',
      comment: 'src/service/ imports features and what is below them; never views/ or a front end.',
      from: { path: SERVICE },
      to: onlyTo(SERVICE, FEATURES, ...BELOW_FEATURES),
    },
    {
      name: 'views-imports-upward',
      severity: 'error',
      comment:
        'src/views/ imports the service (its result types) and what is below it, except settings/ (what a view needs of the settings comes from the service); never a front end.',
      from: { path: VIEWS },
      to: onlyTo(VIEWS, SERVICE, FEATURES, SEARCH, INDEX, STORE, PROC, GIT),
    },
    {
      name: 'front-ends-use-the-service',
      severity: 'error',
      comment:
        'Front ends (CLI, MCP, the web dashboard, the TUI) reach brv only through the service and the views (and the leaves): ' +
        'no feature, search, index, store, settings, proc or git module. What they need is a service operation or a view.',
      from: { path: FRONT_ENDS },
      to: onlyTo(FRONT_ENDS, SERVICE, VIEWS),
    },
    {
      name: 'service-context-is-internal',
      severity: 'error',
      comment: "src/service/context.ts (an opened repository's shared state) is for the service's own modules only.",
      from: { path: '^src/', pathNot: SERVICE },
      to: { path: '^src/service/context\\.ts$' },
    },
    {
      name: 'mcp-imports-cli',
      severity: 'error',
      comment: 'The MCP server does not use the CLI (the CLI may start the MCP server: `brv mcp`).',
      from: { path: '^src/mcp/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'web-imports-cli',
      severity: 'error',
      comment: 'The web dashboard server does not use the CLI or the MCP server (the CLI starts it: `brv webui`).',
      from: { path: '^src/web/' },
      to: { path: '^src/(cli|mcp)/' },
    },
    {
      name: 'tui-imports-cli',
      severity: 'error',
      comment: 'The TUI does not use the CLI, the MCP server or the web dashboard (the CLI starts it: `brv tui`).',
      from: { path: '^src/tui/' },
      to: { path: '^src/(cli|mcp|web)/' },
    },
    {
      name: 'process-outside-git',
      severity: 'error',
      comment: 'Only src/git/ spawns processes (argument arrays, cleaned environment, explicit --git-dir); proc/ goes through it.',
      from: { path: '^src/', pathNot: GIT },
      to: { dependencyTypes: ['core'], path: '^(node:)?(child_process|cluster)$' },
    },
    {
      name: 'not-resolvable',
      severity: 'error',
      comment:
        'A relative import the checker cannot resolve would escape every other rule. (Packages are left to tsc: ' +
        'type-only ones such as "hast", which exist only as @types/hast, are not resolved by dependency-cruiser.)',
      from: { path: '^src/' },
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['node_modules', '^src/web/client/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    cache: false,
  },
};
