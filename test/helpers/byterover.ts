/** The legacy Markdown topics of fixtures/byterover (converted on import), in tree order. */
export const BYTEROVER_MARKDOWN_TOPICS = [
  'auth/jwt/token_refresh',
  'auth/sessions/logout',
  'database/postgres/connection_pool',
  'database/postgres/migrations',
  'ops/runbooks/rollback',
];
