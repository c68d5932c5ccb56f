/**
 * Extension of claude-agent-acp (read in 0.101.0's `fork-session.js`): `session/fork` copies the
 * whole session, unless its `_meta.jetbrains.air.fork` names one of the agent's messages (version 1,
 * `messageId` as the agent gave it on its message chunks); then the copy ends at that message. The
 * Agent SDK's `forkSession(…, { upToMessageId })` does the cut. The protocol has no standard way
 * yet (fork at a message is RFD PR #629, `session/rewind` PR #1321).
 *
 * Baton's use: a rewind to before the last turn lets Claude go on in a copy of its own session
 * that ends where the rewind went back to, instead of a new session given Baton's handoff.
 */
import { versionIn } from '../versions.js';

/** From 0.101.0 (the release read and measured); an unknown version is not asked. */
export const claudeForkAtMessage = {
  forkAtMessage: (version: string | undefined, messageId: string): Record<string, unknown> | undefined =>
    versionIn(version, '0.101.0') ? { jetbrains: { air: { fork: { version: 1, messageId } } } } : undefined,
} as const;
