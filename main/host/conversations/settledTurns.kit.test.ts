/**
 * Turns as host tests drive them (not a test file itself: vitest leaves `*.kit.test.ts` out): a
 * message sent, and its turn and the turn's checkpoint settled before the test looks.
 */
import { expect } from 'vitest';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import type { Host } from '../Host.js';

/** Sends `text` in the conversation and waits until its turn has ended and its checkpoint is kept; returns the turn's id. */
export async function sendAndSettle(host: Host, conversationId: string, text: string): Promise<string> {
  const { turnId } = await host.turns.send(conversationId, text);
  await host.turns.idle();
  await host.turnCheckpoints.idle();
  return turnId;
}

/** Sends `text` and answers every permission question with allow-once, as a person might; expects the turn to complete. */
export async function sendAllowing(host: Host, conversationId: string, text: string): Promise<string> {
  const transcript = (): TranscriptState => reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  const { turnId } = await host.turns.send(conversationId, text);
  const answered = new Set<string>();
  let done = false;
  const running = host.turns.idle().then(() => {
    done = true;
  });
  while (!done) {
    const request = transcript().items.find((item) => item.kind === 'permission' && !item.decision && !answered.has(item.requestId));
    if (request?.kind === 'permission') {
      answered.add(request.requestId);
      const allow = request.options.find((option) => option.kind === 'allow_once') ?? request.options[0]!;
      host.turns.answerPermission(conversationId, request.requestId, allow.optionId);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await running;
  expect(transcript().turns[turnId]?.status, JSON.stringify(transcript().items.at(-1))).toBe('completed');
  return turnId;
}

/** A host request as a test makes it: its result, or an error naming the method and why. */
export function callOn(host: Host) {
  return async <T>(method: string, params: unknown): Promise<T> => {
    const answer = await host.handle(method, params);
    if (!answer.ok) {
      throw new Error(`${method}: ${answer.error.message}`);
    }
    return answer.result as T;
  };
}
