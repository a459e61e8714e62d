import test from 'ava';
import {
  normaliseConversation,
  normaliseDiaId,
  normaliseEvidence,
  normaliseLocomo,
  parseSessionDate,
  splitEvidence,
  turnText,
} from '../../bench/lib/locomo-data.js';
import { escapeAttribute, generateTopics, pathSegment, sessionTopicPath, turnTopicPath } from '../../bench/lib/locomo-topics.js';
import { renderTopicMarkdown, topicText, validateTopicHtml } from '../../src/topic/index.js';
import { tinySample } from './locomo-fixture.js';

test('session dates parse to ISO, words, weekday and time', (t) => {
  t.deepEqual(parseSessionDate('1:56 pm on 8 May, 2023'), {
    raw: '1:56 pm on 8 May, 2023',
    iso: '2023-05-08',
    words: '8 May 2023',
    weekday: 'Monday',
    time: '1:56 pm',
  });
  t.is(parseSessionDate('12:09 am on 13 September, 2023').iso, '2023-09-13');
  t.is(parseSessionDate('9:35 AM on 1 Feb, 2024').words, '1 February 2024');
  t.deepEqual(parseSessionDate('sometime in May'), { raw: 'sometime in May' });
  t.deepEqual(parseSessionDate('1:00 pm on 31 February, 2023'), { raw: '1:00 pm on 31 February, 2023' });
});

test('evidence ids: split, fixed, dropped, deduplicated', (t) => {
  t.deepEqual(splitEvidence('D8:6; D9:17'), ['D8:6', 'D9:17']);
  t.deepEqual(splitEvidence('D21:18 D21:22  D11:15'), ['D21:18', 'D21:22', 'D11:15']);
  t.is(normaliseDiaId('D:11:26'), 'D11:26');
  t.is(normaliseDiaId('D30:05'), 'D30:5');
  t.is(normaliseDiaId(' D1:3 '), 'D1:3');
  t.is(normaliseDiaId('D'), undefined);
  t.is(normaliseDiaId('1:3'), undefined);
  const ids = new Set(['D1:1', 'D11:26', 'D30:5']);
  t.deepEqual(normaliseEvidence(['D:11:26', 'D30:05; D1:1', 'D1:1', 'D4:36', 'D'], ids), {
    evidence: ['D11:26', 'D30:5', 'D1:1'],
    fixed: ['D:11:26 → D11:26', 'D30:05 → D30:5'],
    dropped: ['D4:36', 'D'],
  });
});

test('images become [shares: <caption>] after the text', (t) => {
  t.is(turnText({ text: 'Look!', blip_caption: 'a photo of a cat' }), 'Look! [shares: a photo of a cat]');
  t.is(turnText({ text: '', blip_caption: 'a bowl' }), '[shares: a bowl]');
  t.is(turnText({ text: ' two\n lines ' }), 'two lines');
});

test('a conversation normalises: sessions by session_N lists, questions with clean evidence', (t) => {
  const { dialogue, questions, log } = normaliseConversation(tinySample());
  t.is(dialogue.sampleId, 'conv-T1');
  t.deepEqual(dialogue.speakers, ['Ann', 'Bo "B" <Smith>']);
  t.deepEqual(
    dialogue.sessions.map((s) => s.number),
    [1, 2, 10],
  ); // numeric order; no session 11
  t.is(dialogue.sessions[2]!.date.iso, '2023-09-13');
  t.deepEqual(dialogue.sessions[0]!.turns[1], {
    diaId: 'D1:2',
    session: 1,
    speaker: 'Bo "B" <Smith>',
    text: 'So cute! What breed? [shares: a photo of a "golden" dog]',
  });

  t.deepEqual(
    questions.map((q) => q.id),
    ['conv-T1#0', 'conv-T1#1', 'conv-T1#2', 'conv-T1#4'],
  );
  t.deepEqual(
    questions.map((q) => q.category),
    [4, 1, 2, 5],
  );
  t.deepEqual(questions[1]!.evidence, ['D1:1', 'D10:1']);
  t.is(questions[1]!.answer, '3'); // a number in the data
  t.deepEqual(questions[2]!.evidence, ['D2:1']);
  t.is(questions[3]!.answer, 'pottery'); // adversarial_answer
  t.deepEqual(log, {
    fixed: ['conv-T1#1: D10:01 → D10:1', 'conv-T1#2: D:2:1 → D2:1'],
    dropped: ['conv-T1#2: D9:9', 'conv-T1#2: D'],
    skipped: ['conv-T1#3'],
  });
  t.is(normaliseLocomo([tinySample(), tinySample()]).length, 2);
  t.throws(() => normaliseLocomo({}), { message: /list of conversations/ });
});

test('paths are safe brv paths', (t) => {
  const { dialogue } = normaliseConversation(tinySample());
  t.is(sessionTopicPath(dialogue, 1), 'locomo/conv-t1/session_01');
  t.is(sessionTopicPath(dialogue, 10), 'locomo/conv-t1/session_10');
  t.is(turnTopicPath(dialogue, 'D10:1'), 'locomo/conv-t1/d10_1');
  t.is(pathSegment('Conv 26/x'), 'conv-26-x');
  t.is(pathSegment('.hidden'), 'hidden');
  t.is(escapeAttribute('a "b" <c> & d'), 'a &quot;b&quot; &lt;c&gt; &amp; d');
});

for (const variant of ['session', 'turn'] as const) {
  for (const turnContext of ['none', 'previous'] as const) {
    if (variant === 'session' && turnContext === 'previous') continue;
    test(`every ${variant} topic (context ${turnContext}) validates and carries its turns, and nothing from qa or summaries`, (t) => {
      const { dialogue } = normaliseConversation(tinySample());
      const topics = generateTopics(dialogue, variant, { turnContext });
      t.is(topics.length, variant === 'session' ? 3 : 6);
      t.is(new Set(topics.map((x) => x.path)).size, topics.length);
      for (const topic of topics) {
        const validation = validateTopicHtml(topic.html);
        if (!validation.ok) {
          t.fail(`${topic.path}: ${validation.errors.map((e) => e.message).join('; ')}`);
          continue;
        }
        t.is(validation.topic.path as string, topic.path);
        t.deepEqual(
          validation.topic.tags,
          variant === 'session'
            ? ['Ann', 'Bo "B" <Smith>']
            : [dialogue.sessions.flatMap((s) => s.turns).find((x) => x.diaId === topic.turns[0])!.speaker],
        );
        const text = topicText(validation.topic.root);
        const facts = text.elements.filter((e) => e.tag === 'bv-fact');
        t.deepEqual(
          facts.map((f) => f.attributes.subject),
          [...topic.turns],
        );
        t.true(text.elements.some((e) => e.tag === 'bv-timestamp' && /^\d{4}-\d{2}-\d{2}$/.test(e.text)));
        // Nothing from qa, summaries, observations, or the image search query ("golden retriever").
        t.notRegex(topic.html, /LEAKCANARY|ANSWERCANARY|golden retriever/);
        const rendered = renderTopicMarkdown(validation.topic.root);
        t.notRegex(rendered, /LEAKCANARY|ANSWERCANARY/);
      }
      const first = validateTopicHtml(topics[0]!.html);
      t.true(first.ok);
      if (!first.ok) return;
      const text = topicText(first.topic.root);
      if (variant === 'session') {
        t.is(text.title, 'Ann and Bo "B" <Smith>, session 1: 8 May 2023');
        t.regex(text.summary, /Monday, 8 May 2023 \(2023-05-08\); 3 turns, D1:1 to D1:3/);
        t.regex(text.body, /Ann: Hi Bo! I adopted a puppy named <Rex> & he is 3\./);
        t.regex(text.body, /Bo "B" <Smith>: So cute! What breed\? \[shares: a photo of a "golden" dog\]/);
      } else {
        t.is(text.title, 'Ann, 8 May 2023 (session 1)');
        const second = validateTopicHtml(topics[1]!.html);
        t.true(second.ok);
        if (second.ok) {
          const reason = topicText(second.topic.root).elements.find((e) => e.tag === 'bv-reason');
          t.is(reason?.text, turnContext === 'previous' ? 'In reply to Ann: Hi Bo! I adopted a puppy named <Rex> & he is 3.' : undefined);
        }
      }
    });
  }
}
