/**
 * Quirk of claude-agent-acp (seen in 0.23.1; gone in 0.101.0, where the test "after Stop during a
 * streamed reply, each later message gets its own reply" passes without it): a cancelled prompt
 * leaves one end-of-turn behind.
 *
 * The adapter reads Claude Code's output stream only while a `session/prompt` runs. On
 * `session/cancel` it interrupts the query, and the cancelled prompt returns "cancelled" at the
 * first result it reads; the interrupted query still emits its own end of turn (the
 * "session idle" state change), which stays unread in the stream. The next prompt reads that
 * stale end first and answers `end_turn` at once, with no reply; its real reply is read by the
 * prompt after it, and from then on every reply is one message late (and permission requests,
 * asked while no turn is running in Baton, are withdrawn as "Tool use aborted"). Seen in the
 * frames: after a Stop, the next `session/prompt` answers `{"stopReason":"end_turn"}` with no
 * `session/update` before it, while the model stub receives that message's request later.
 *
 * Baton's answer: after a cancel, close the session (which drops the adapter's query and its
 * stream) and resume it, so the next prompt starts on a clean stream with the history intact.
 */
import { versionIn } from '../versions.js';

/** Applies to the releases before 0.101.0 (the oldest measured without it). */
export const claudeStaleEndOfTurn = {
  reopenAfterCancel: (version: string | undefined): boolean => version === undefined || versionIn(version, '0.0.0', '0.101.0'),
} as const;
