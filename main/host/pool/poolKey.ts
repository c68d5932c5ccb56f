/**
 * How widely one agent process is shared, and the pool key that says it. One agent process is one
 * principal: it can name any session it carries, so conversations share a process only where the
 * person accepts that. By default a process is shared by conversations in the same working folder
 * (what one conversation's agent may touch, the other's may too); with the per-agent setting "one
 * process per conversation", by nobody. An agent that cannot run twice on one state (Codex 2.x and
 * its state database) shares one process per launch, and says why.
 */
import { randomUUID } from 'node:crypto';

/** The scope a process is shared in. */
export type Sharing =
  | { kind: 'launch' }
  | { kind: 'folder'; cwd: string }
  | { kind: 'conversation'; conversationId: string }
  /** A process of its own for one session (agents that carry one session per process). */
  | { kind: 'own' };

/** The pool key of a launch shared in `sharing`: the launch digest, then the scope. */
export function poolKey(launchDigest: string, sharing: Sharing): string {
  switch (sharing.kind) {
    case 'launch':
      return launchDigest;
    case 'folder':
      return `${launchDigest}#folder:${sharing.cwd}`;
    case 'conversation':
      return `${launchDigest}#conversation:${sharing.conversationId}`;
    case 'own':
      return `${launchDigest}#own:${randomUUID()}`;
  }
}
