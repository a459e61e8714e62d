import { put, rule, succeeded } from './knowledge.js';
import { plantTree } from './plant.js';
import { brvJson, makeRepo, showTopic } from './repo.js';

/**
 * A real conflicted merge review (the recipe of test/cli/review-resolve.test.ts): main and feature both
 * change rules r1 and r2 of ops/deploy differently, and feature is merged into main, which opens one
 * merge review whose topic keeps both versions of each rule, marked. `repo` defaults to a new one.
 */
export async function conflictedMerge(repo?: string, topic = 'ops/deploy'): Promise<{ repo: string; id: string }> {
  const dir = repo ?? (await makeRepo());
  const branch = `feature-${topic.replace(/\W/g, '-')}`;
  await put(dir, topic, rule('Base one.') + rule('Base two.', 'r2'), { title: 'Deploys' });
  succeeded(await brvJson(dir, ['vc', 'checkout', '-b', branch]));
  await put(dir, topic, rule('Theirs one.') + rule('Theirs two.', 'r2'), { title: 'Deploys' });
  succeeded(await brvJson(dir, ['vc', 'checkout', 'main']));
  await put(dir, topic, rule('Ours one.') + rule('Ours two.', 'r2'), { title: 'Deploys' });
  const merged = succeeded(await brvJson(dir, ['vc', 'merge', branch]));
  if (!merged.review?.id) throw new Error(`no review opened: ${JSON.stringify(merged)}`);
  return { repo: dir, id: merged.review.id };
}

/** A high-impact curate of `topic` (an ordinary review, not a merge); returns its review id. */
export async function highImpactReview(repo: string, topic: string, text: string): Promise<string> {
  const data = await put(repo, topic, rule(text), { title: topic, meta: { impact: 'high', reason: `changes ${topic}` } });
  const id = data.review?.id ?? data.reviewId;
  if (!id) throw new Error(`no review opened: ${JSON.stringify(data)}`);
  return id;
}

/**
 * Plants (as a push would) markup in "ours" side of `conflictedMerge`'s ops/deploy that is valid topic
 * HTML whose strings are markup: an escaped handler, a title attribute breaking out of its quotes, an
 * escaped script, a link.
 */
export async function plantHostileConflictSide(repo: string): Promise<void> {
  const html = (await showTopic(repo, 'ops/deploy.html'))!;
  const hostile = html.replace(
    'Ours one.',
    'Ours one. &lt;img src=x onerror=alert(1)&gt; <abbr title="&quot;&gt;&lt;img src=x onerror=alert(2)&gt;">CI</abbr> ' +
      '<code>&lt;script&gt;alert(3)&lt;/script&gt;</code> <a href="https://example.invalid/x">link</a>',
  );
  await plantTree(repo, { 'ops/deploy.html': hostile });
}
