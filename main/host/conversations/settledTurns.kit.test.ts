/**
 * Turns as host tests drive them (not a test file itself: vitest leaves `*.kit.test.ts` out): a
 * message sent, and its turn and the turn's checkpoint settled before the test looks.
 */
import type { Host } from '../Host.js';

/** Sends `text` in the conversation and waits until its turn has ended and its checkpoint is kept; returns the turn's id. */
export async function sendAndSettle(host: Host, conversationId: string, text: string): Promise<string> {
  const { turnId } = host.turns.send(conversationId, text);
  await host.turns.idle();
  await host.turnCheckpoints.idle();
  return turnId;
}
