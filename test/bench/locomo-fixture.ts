/** Test data for the LoCoMo bench: hand-made, not the real (CC BY-NC) data. */
/** A hand-made conversation in LoCoMo's shape (not the real data), with every quirk the real one has. */
export function tinySample(): Record<string, unknown> {
  return {
    sample_id: 'conv-T1',
    conversation: {
      speaker_a: 'Ann',
      speaker_b: 'Bo "B" <Smith>',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi Bo! I adopted a puppy named <Rex> & he is 3.' },
        {
          speaker: 'Bo "B" <Smith>',
          dia_id: 'D1:2',
          text: 'So cute!\nWhat breed?',
          img_url: ['https://example.com/x.jpg'],
          blip_caption: 'a photo of a "golden" dog',
          query: 'golden retriever',
        },
        { speaker: 'Ann', dia_id: 'D1:3', text: 'A retriever mix.' },
      ],
      session_2_date_time: '10:37 am on 27 June, 2023',
      session_2: [
        { speaker: 'Bo "B" <Smith>', dia_id: 'D2:1', text: 'I started pottery classes.' },
        { speaker: 'Ann', dia_id: 'D2:2', text: '', blip_caption: 'a bowl on a wheel' },
      ],
      session_10_date_time: '12:09 am on 13 September, 2023',
      session_10: [{ speaker: 'Ann', dia_id: 'D10:1', text: 'Rex turned four.' }],
      // A date without a session, as in one real conversation.
      session_11_date_time: '9:35 am on 31 October, 2023',
    },
    qa: [
      { question: 'What is the puppy called?', answer: 'Rex ANSWERCANARY', evidence: ['D1:1'], category: 4 },
      { question: 'How old was Rex?', answer: 3, evidence: ['D1:1; D10:01', 'D1:1'], category: 1 },
      { question: 'What did Bo start?', answer: 'pottery', evidence: ['D:2:1 D9:9', 'D'], category: 2 },
      { question: 'Would Ann like cats?', answer: 'Likely', evidence: [], category: 3 },
      { question: 'What did Ann start?', adversarial_answer: 'pottery', evidence: ['D2:1'], category: 5 },
    ],
    observation: { session_1_observation: { Ann: [['LEAKCANARY observation', 'D1:1']] } },
    session_summary: { session_1_summary: 'LEAKCANARY summary' },
    event_summary: { events_session_1: { Ann: ['LEAKCANARY event'] } },
  };
}
