import type { InitResult, StatusResult } from '../service/setup.js';
import { remoteTrackingPrefix } from '../store/refs.js';
import { shortOid } from './format.js';

/** `brv init`, and what `--track` added. */
export function initText(result: InitResult, tracked?: { remote: string; added: unknown[] }): string {
  const lines = [
    result.created
      ? `Initialized brv context tree on ${result.ref} (commit ${shortOid(result.commit)}).`
      : `brv is already initialized on ${result.ref} (tip ${shortOid(result.commit)}).`,
  ];
  if (tracked) {
    lines.push(
      tracked.added.length
        ? `git fetch ${tracked.remote} now also fetches brv knowledge (into ${remoteTrackingPrefix(tracked.remote)}).`
        : `${tracked.remote} already fetches brv knowledge.`,
    );
  }
  return lines.join('\n');
}

/** `brv status`: one aligned line per fact. */
export function statusText(status: StatusResult): string {
  return [
    `Repository:     ${status.repository}${status.bare ? ' (bare)' : ''}`,
    `brv branch:     ${status.branch} (${status.ref})`,
    `Tip:            ${
      status.initialized
        ? shortOid(status.tip)
        : status.fetchFrom
          ? `none yet — if ${status.fetchFrom} has knowledge, "brv vc fetch ${status.fetchFrom}" brings it; else run "brv init" or curate a topic`
          : 'none yet — run "brv init" or curate a topic'
    }`,
    `Topics:         ${status.topics}`,
    `Open sessions:  ${status.openSessions}`,
    `git:            ${status.gitVersion}`,
  ].join('\n');
}
