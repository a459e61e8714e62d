/**
 * Labelled topics for dream's thresholds (test/dream/thresholds.test.ts) and its end-to-end tests:
 * the same knowledge written twice (reworded, reordered, a line added), topics about one subject from
 * different angles, and unrelated topics around them (so term weights are those of a real tree).
 */
const topic = (path: string, title: string, body: string, extra = '') =>
  `<bv-topic path="${path}" title="${title}"${extra}>\n  ${body}\n</bv-topic>\n`;

export const CORPUS: Record<string, string> = {
  'security/jwt': topic(
    'security/jwt',
    'JWT signing',
    '<bv-rule id="r1">Sign JWT access tokens with RS256 using the key pair kept in the vault.</bv-rule><bv-rule id="r2">Rotate the signing keys every 90 days.</bv-rule><bv-rule id="r3">Services verify tokens against the JWKS endpoint.</bv-rule>',
  ),
  'security/jwt_signing': topic(
    'security/jwt_signing',
    'How JWTs are signed',
    '<bv-highlights><p>Access tokens (JWT) are signed with RS256; the key pair lives in the vault.</p><p>Verification uses the JWKS endpoint; keys rotate every 90 days.</p><p>Never sign with HS256.</p></bv-highlights>',
  ),
  'deploy/rollback': topic(
    'deploy/rollback',
    'Rolling back a deploy',
    '<bv-rule id="r1">Roll back with the previous Helm release: helm rollback api, then watch the canary dashboards.</bv-rule><bv-rule id="r2">A rollback needs no approval during an incident.</bv-rule>',
  ),
  'deploy/rollbacks': topic(
    'deploy/rollbacks',
    'Deploy rollback',
    '<bv-highlights><p>To roll back a deploy: helm rollback api to the previous release and watch the canary dashboards.</p><p>During an incident a rollback needs no approval.</p></bv-highlights>',
  ),
  'db/migrations': topic(
    'db/migrations',
    'Database migrations',
    '<bv-rule id="r1">Migrations run with knex migrate:latest before the new pods start.</bv-rule><bv-rule id="r2">Every migration has a down step and is tested on a snapshot of production.</bv-rule>',
  ),
  'db/schema_changes': topic(
    'db/schema_changes',
    'Schema changes',
    '<bv-highlights><p>Schema changes ship as knex migrations; migrate:latest runs before new pods start.</p><p>Each migration needs a down step and a test on a production snapshot.</p><p>Large tables are altered in batches.</p></bv-highlights>',
  ),
  // One subject, different angles: related, not duplicates.
  'security/sessions': topic(
    'security/sessions',
    'Sessions',
    '<bv-rule id="r1">Refresh tokens are stored in httpOnly cookies and rotated on every use.</bv-rule><bv-rule id="r2">The JWKS endpoint is cached for ten minutes by the session service.</bv-rule>',
  ),
  'deploy/canary': topic(
    'deploy/canary',
    'Canary releases',
    '<bv-rule id="r1">New releases go to 5% of traffic first; the canary dashboards decide within 30 minutes.</bv-rule><bv-rule id="r2">A failed canary is rolled back automatically by Helm.</bv-rule>',
  ),
  'db/backups': topic(
    'db/backups',
    'Backups',
    '<bv-rule id="r1">Nightly snapshots of production are kept for 30 days.</bv-rule><bv-rule id="r2">Restores are rehearsed monthly on a staging cluster before migrations of large tables.</bv-rule>',
  ),
  // Unrelated.
  'frontend/forms': topic(
    'frontend/forms',
    'Forms',
    '<bv-rule id="r1">Forms validate on blur with zod schemas shared with the API.</bv-rule><bv-rule id="r2">Error messages appear under the field, never in alerts.</bv-rule>',
  ),
  'frontend/theming': topic(
    'frontend/theming',
    'Theming',
    '<bv-rule id="r1">Colours come from CSS custom properties; dark mode flips the palette on the root element.</bv-rule>',
  ),
  'team/oncall': topic(
    'team/oncall',
    'On-call',
    '<bv-rule id="r1">The on-call rotation changes on Mondays at 10:00; handover notes go in the ops channel.</bv-rule>',
  ),
  'team/reviews': topic(
    'team/reviews',
    'Code reviews',
    '<bv-rule id="r1">Every pull request needs one approval; authors merge their own pull requests after CI passes.</bv-rule>',
  ),
  'api/pagination': topic(
    'api/pagination',
    'Pagination',
    '<bv-rule id="r1">List endpoints paginate with opaque cursors; page size is at most 100 items.</bv-rule>',
  ),
  'api/errors': topic(
    'api/errors',
    'API errors',
    '<bv-rule id="r1">Errors are RFC 7807 problem documents with a stable type URI per error.</bv-rule>',
  ),
};

/** Pairs that are one topic written twice: dream proposes merging them. */
export const DUPLICATES: Array<[string, string]> = [
  ['security/jwt', 'security/jwt_signing'],
  ['deploy/rollback', 'deploy/rollbacks'],
  ['db/migrations', 'db/schema_changes'],
];

/** Pairs about one subject from different angles: worth a link, not a merge. */
export const RELATED: Array<[string, string]> = [
  ['security/jwt', 'security/sessions'],
  ['deploy/rollback', 'deploy/canary'],
  ['db/migrations', 'db/backups'],
];
