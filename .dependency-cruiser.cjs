// The layers of src/ (CONTRIBUTING.md, "Architecture"), checked by `npm run lint:layers` in `npm test`.
// Each layer imports only itself, the layers below it and the leaves; type-only and dynamic imports
// count like any other. test/layers.test.ts runs this configuration on a fixture tree with violations.

/**
 * The leaves every layer may use. `src/topic/` is pure; the four files import nothing but each other and
 * topic/; `store/refs.ts` (the spelling of every refs/brv name, importing nothing) so that settings/, below
 * the store, can name the review refs in its help texts.
 */
const LEAVES = '^src/(topic/|errors\\.ts$|error-kinds\\.ts$|package-root\\.ts$|trace\\.ts$|store/refs\\.ts$)';
const GIT = '^src/git/';
/** The typed brv.* settings: read through git only (the service reads the store's review policy through them). */
const SETTINGS = '^src/settings/';
const STORE = '^src/store/';
const FEATURES = '^src/(curate|query|vc|review|sync|source|hooks|connectors|doctor|templates|llm|dream)/';
const SERVICE = '^src/service/';
/** Results → terminal text and markdown, for every front end: pure functions over the service's results. */
const VIEWS = '^src/views/';
const FRONT_ENDS = '^src/(cli|mcp|web|tui)/';

/** A module in no layer: a new directory must be placed in a layer here and in CONTRIBUTING.md first. */
const ANY_LAYER = [LEAVES, GIT, SETTINGS, STORE, FEATURES, SERVICE, VIEWS, FRONT_ENDS];

/** Only the given layers (and the leaves), as a `to.pathNot` list: anything else in src/ is above. */
const onlyTo = (...layers) => ({ path: '^src/', pathNot: [LEAVES, ...layers] });

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
      comment: 'Every module in src/ belongs to a layer: add a new directory to .dependency-cruiser.cjs and CONTRIBUTING.md.',
      from: { path: '^src/', pathNot: ANY_LAYER },
      to: {},
    },
    {
      name: 'topic-is-pure',
      severity: 'error',
      comment: 'src/topic/ is a pure leaf: it imports nothing from src/ outside topic/.',
      from: { path: '^src/topic/' },
      to: { path: '^src/', pathNot: '^src/topic/' },
    },
    {
      name: 'topic-no-node',
      severity: 'error',
      comment: 'src/topic/ is pure: no Node built-in module (no fs, no processes, no network).',
      from: { path: '^src/topic/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'leaf-files',
      severity: 'error',
      comment: 'errors.ts, error-kinds.ts, package-root.ts and trace.ts are leaves: they import only each other and topic/.',
      from: { path: '^src/[^/]+\\.ts$' },
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
      name: 'settings-imports-upward',
      severity: 'error',
      comment: 'src/settings/ imports only settings/, git/ and the leaves.',
      from: { path: SETTINGS },
      to: onlyTo(SETTINGS, GIT),
    },
    {
      name: 'store-imports-upward',
      severity: 'error',
      comment: 'src/store/ imports only store/, git/ and the leaves (its review policy is given by the service, not read from settings/).',
      from: { path: STORE },
      to: onlyTo(STORE, GIT),
    },
    {
      name: 'feature-imports-upward',
      severity: 'error',
      comment:
        'Feature modules import other features (without cycles), store/, settings/, git/ and the leaves; never service/ or a front end.',
      from: { path: FEATURES },
      to: onlyTo(FEATURES, STORE, SETTINGS, GIT),
    },
    {
      name: 'service-imports-upward',
      severity: 'error',
      comment: 'src/service/ imports features, store/, settings/, git/ and the leaves; never a front end.',
      from: { path: SERVICE },
      to: onlyTo(SERVICE, FEATURES, STORE, SETTINGS, GIT),
    },
    {
      name: 'views-imports-upward',
      severity: 'error',
      comment:
        'src/views/ imports the service (its result types) and what is below it, except settings/ (what a view needs of the settings comes from the service); never a front end.',
      from: { path: VIEWS },
      to: onlyTo(VIEWS, SERVICE, FEATURES, STORE, GIT),
    },
    {
      name: 'front-ends-use-the-service',
      severity: 'error',
      comment:
        'Front ends (CLI, MCP, the web dashboard, the TUI) reach brv only through the service and the views (and the leaves): ' +
        'no feature, store, settings or git module. What they need is a service operation or a view.',
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
      comment: 'Only src/git/ spawns processes (argument arrays, cleaned environment, explicit --git-dir).',
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
