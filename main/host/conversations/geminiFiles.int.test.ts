/**
 * Gemini CLI (the pinned real one, against the model stub) creates a new file through Baton's
 * `fs/write_text_file` and then edits it: it reads a file before writing it, and must be able to
 * tell that a new one does not exist yet (see adapters/quirks/geminiMissingFile.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushEvent } from '../../../app/ipc/index.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { agentHome, agentUnavailable, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub, type NormalizedRequest } from '../../../e2e/fixtures/modelStub.js';
import { Host } from '../Host.js';

const skip = agentUnavailable('gemini');
let host: Host | undefined;
let stub: ModelStub | undefined;

afterEach(async () => {
  await host?.dispose();
  host = undefined;
  await stub?.close();
  stub = undefined;
});

describe('Gemini and files through Baton', () => {
  it.skipIf(skip)(
    withSkipReason('creates a new file, then edits it', skip),
    async () => {
      const work = tempDir('gemini-files');
      const file = path.join(work, 'b.txt');
      stub = await startModelStub({
        reply: (request: NormalizedRequest) => {
          if (request.jsonSchema !== undefined) {
            return undefined;
          }
          if (request.toolResult !== undefined) {
            return { chunks: [`Tool said: ${request.toolResult.slice(0, 200)}`] };
          }
          if (request.lastUserText.includes('CREATE')) {
            return { kind: 'tool', name: 'write_file', arguments: { file_path: file, content: 'first line\n' } };
          }
          if (request.lastUserText.includes('EDIT')) {
            return { kind: 'tool', name: 'write_file', arguments: { file_path: file, content: 'first line\nsecond line\n' } };
          }
          return undefined;
        },
      });
      host = new Host({ dataDir: tempDir('gemini-files-data'), env: agentHome('gemini', stub.url) });
      // The person allows each write (once), having seen what it writes: the question's tool call shows its diff.
      const seenBeforeAnswer: unknown[] = [];
      host.subscribe((event: PushEvent) => {
        if (event.name !== 'transcript') {
          return;
        }
        for (const envelope of event.payload.events) {
          if (envelope.type === 'permission.requested') {
            const shown = reduceAll(
              emptyTranscript(envelope.conversationId),
              host!.store.readEvents(envelope.conversationId).events,
            ).items.find((item) => item.kind === 'tool' && item.toolCallId === (envelope.payload as { toolCallId?: string }).toolCallId);
            seenBeforeAnswer.push(shown?.kind === 'tool' ? shown.content : undefined);
            const payload = envelope.payload as { requestId: string; options: Array<{ optionId: string; kind: string }> };
            const allow = payload.options.find((option) => option.kind === 'allow_once') ?? payload.options[0]!;
            setTimeout(() => host?.turns.answerPermission(envelope.conversationId, payload.requestId, allow.optionId), 20);
          }
        }
      });
      const { conversationId } = host.conversations.create('gemini', work);
      await host.turns.send(conversationId, 'CREATE b.txt please');
      await host.turns.idle();
      expect(existsSync(file) ? readFileSync(file, 'utf8') : 'missing').toBe('first line\n');
      await host.turns.send(conversationId, 'EDIT b.txt please');
      await host.turns.idle();
      expect(readFileSync(file, 'utf8')).toBe('first line\nsecond line\n');
      // Both writes went through Baton (recorded on their turns), and no tool failed.
      const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
      expect(Object.values(state.turns).map((turn) => turn.written?.map((entry) => [path.basename(entry.path), entry.created]))).toEqual([
        [['b.txt', true]],
        [['b.txt', false]],
      ]);
      expect(state.items.filter((item) => item.kind === 'tool').map((item) => (item.kind === 'tool' ? item.status : ''))).toEqual([
        'completed',
        'completed',
      ]);
      // Each question showed the change before the person answered: a new file, then an edit of it.
      expect(seenBeforeAnswer).toEqual([
        [expect.objectContaining({ type: 'diff', path: file, newText: 'first line\n' })],
        [expect.objectContaining({ type: 'diff', path: file, oldText: 'first line\n', newText: 'first line\nsecond line\n' })],
      ]);
    },
    180_000,
  );
});
