import type { AdoptResult, InitResult, StatusResult, StatusUpstream } from '../service/setup.js';
import { remoteTrackingPrefix } from '../base/ref-names.js';
import { shortOid } from './format.js';

/** `brv init`, and what `--track` added. */
export function initText(result: InitResult, tracked?: { remote: string; added: unknown[] }): string {
  const lines = result.adopted?.commit
    ? []
    : [
        result.created
          ? `Initialized brv context tree on ${result.ref} (commit ${shortOid(result.commit)}).`
          : `brv is already initialized on ${result.ref} (tip ${shortOid(result.commit)}).`,
      ];
  lines.push(...adoptNotes(result.adopted));
  if (tracked) {
    lines.push(
      tracked.added.length
        ? `git fetch ${tracked.remote} now also fetches brv knowledge (into ${remoteTrackingPrefix(tracked.remote)}).`
        : `${tracked.remote} already fetches brv knowledge.`,
    );
  }
  return lines.join('\n');
}

/**
 * What looking for the remote's brv branch did, beyond adopting it (init, hooks install and
 * connectors install print these): the fetch failed, the remote has no knowledge, other branches came.
 */
export function adoptNotes(adopted: AdoptResult | undefined): string[] {
  if (!adopted) return [];
  const { branch } = adopted;
  const lines: string[] = [];
  if (adopted.commit)
    lines.push(
      `Adopted ${adopted.remote}'s knowledge: brv branch ${branch} starts at ${adopted.remote}/${branch} (commit ${shortOid(adopted.commit)}), so brv query answers from it.`,
    );
  else if (adopted.failed)
    lines.push(
      `note: could not fetch knowledge from ${adopted.remote} (${adopted.failed.kind}): ${adopted.failed.message} ` +
        `brv sync merges ${adopted.remote}'s knowledge into this branch once it can be reached.`,
    );
  else if (adopted.refused)
    lines.push(
      `note: ${adopted.remote}'s brv branch ${branch} is not knowledge this brv reads (${adopted.refused.kind}): ${adopted.refused.message} It was not adopted.`,
    );
  else if (!adopted.commit) lines.push(`note: ${adopted.remote} has no brv branch ${branch} yet: this clone starts it.`);
  const others = adopted.createdBranches.filter((b) => b !== branch);
  if (others.length > 0) lines.push(`note: brv branches also taken from ${adopted.remote}: ${others.join(', ')}.`);
  if (adopted.tracked)
    lines.push(`note: a plain git fetch or git pull from ${adopted.remote} now brings knowledge too (brv's fetch refspecs added).`);
  return lines;
}

/** A status line for knowledge fetched from the remote that the branch does not have; undefined when there is none. */
export function incomingText(upstream: StatusUpstream | undefined, branch: string): string | undefined {
  if (!upstream?.tracking || upstream.behind === 0) return undefined;
  const where = `${upstream.remote}/${branch}`;
  if (upstream.held)
    return `${upstream.behind} commit(s) fetched from ${where} are held for review ${upstream.held} (they remove many topics): brv review show ${upstream.held}, then brv review approve or reject ${upstream.held}.`;
  if (!upstream.local)
    return `${where} has knowledge (${upstream.behind} commit(s)) this clone has not taken yet: run brv init to start from it.`;
  if (upstream.ahead > 0)
    return `${upstream.ahead} commit(s) to push, ${upstream.behind} to pull (${where}, histories diverged): run brv sync to merge and push.`;
  return `${upstream.behind} commit(s) fetched from ${where} are not in ${branch} yet: run brv vc pull (or brv sync).`;
}

/** `brv status`: one aligned line per fact. */
export function statusText(status: StatusResult): string {
  const incoming = incomingText(status.upstream, status.branch);
  return [
    `Repository:     ${status.repository}${status.bare ? ' (bare)' : ''}`,
    `brv branch:     ${status.branch} (${status.ref})`,
    `Tip:            ${
      status.initialized
        ? shortOid(status.tip)
        : incoming
          ? 'none yet (see Remote)'
          : status.fetchFrom
            ? `none yet — ${status.fetchFrom} may have knowledge: "brv init" fetches it and starts from it (nothing was fetched yet)`
            : 'none yet — run "brv init" or curate a topic'
    }`,
    ...(incoming ? [`Remote:         ${incoming}`] : []),
    `Topics:         ${status.topics}`,
    `Open sessions:  ${status.openSessions}`,
    `git:            ${status.gitVersion}`,
  ].join('\n');
}
