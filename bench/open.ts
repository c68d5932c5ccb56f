/**
 * open: time to the first page of a 10,000-turn conversation (the host's read of its last turns
 * plus the shared reducer folding them, as a window does), and to the first page of a list of
 * 10,000 conversations; then the same with ten times the data, as a ratio.
 */
import type { Envelope } from '../app/events/index.js';
import { applyEnvelopesForBench } from './foldTail.js';
import { EventStore } from '../main/host/store/EventStore.js';
import { median, report, settle, syntheticEnvelopes, time, withTempDir } from './util.js';

const SAMPLES = 101;

function seedConversation(store: EventStore, turns: number): string {
  const envelopes = syntheticEnvelopes(turns, (turn, role) =>
    role === 'user' ? `question ${turn}` : `answer ${turn} with some words in it`,
  );
  return store.importEnvelopes('long', envelopes).conversationId;
}

function seedList(store: EventStore, conversations: number): void {
  for (let index = 0; index < conversations; index += 1) {
    const created: Envelope = {
      conversationId: 'x',
      seq: 1,
      at: new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString(),
      v: 1,
      type: 'conversation.created',
      payload: { title: `Conversation ${index}`, agentId: 'claude', agentName: 'Claude', cwd: '/' },
    };
    store.importEnvelopes(`list-${index}`, [created]);
  }
}

function measure(scale: number): { transcriptMs: number; listMs: number } {
  return withTempDir('open', (dir) => {
    const store = new EventStore(dir);
    const conversationId = seedConversation(store, 10_000 * scale);
    seedList(store, 10_000 * scale);
    settle();
    const transcript: number[] = [];
    const list: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      transcript.push(
        time(() => {
          store.getSummary(conversationId);
          const context = store.getContext(conversationId);
          const { firstSeq, envelopes } = store.readTail(conversationId, 50);
          applyEnvelopesForBench(context, firstSeq, envelopes);
        }),
      );
      list.push(time(() => store.listSummaries({ limit: 200 })));
    }
    store.close();
    return { transcriptMs: median(transcript), listMs: median(list) };
  });
}

/** Runs the open benchmark and prints its figures. */
export function openBenchmark(): void {
  console.log(`\nopen: median of ${SAMPLES} reads each`);
  const small = measure(1);
  const large = measure(10);
  report('first page of a 10,000-turn conversation', `${small.transcriptMs.toFixed(2)} ms`);
  report(
    'first page of a 100,000-turn conversation',
    `${large.transcriptMs.toFixed(2)} ms  ratio ${(large.transcriptMs / small.transcriptMs).toFixed(2)}x`,
  );
  report('first page of a list of 10,000 conversations', `${small.listMs.toFixed(2)} ms`);
  report(
    'first page of a list of 100,000 conversations',
    `${large.listMs.toFixed(2)} ms  ratio ${(large.listMs / small.listMs).toFixed(2)}x`,
  );
}
