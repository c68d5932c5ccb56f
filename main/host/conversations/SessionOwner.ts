/**
 * What a live session and its parts (modes, permissions, requests for input, subagents, updates)
 * need from the conversation that owns it: where its events go, which turn runs, and how its end
 * is told. Apart from `LiveSession.ts`, so that the parts depend on it and not on the session.
 */
import type { EventDraft } from '../../../app/events/index.js';

/** What a live session needs from the conversation that owns it. */
export type LiveSessionOwner = {
  /** Commits drafts for the running turn and pushes them. */
  commit(drafts: EventDraft[]): void;
  /** The turn now running, if any. */
  activeTurnId(): string | undefined;
  /** The agent process ended. */
  onExit(): void;
  /** Reports something worth a log line (unknown update kinds). */
  log(message: string): void;
  /** Takes the known secret values out of text Baton hands the agent from elsewhere (terminal output). */
  redact?(text: string): string;
};
