/**
 * A live session's options (model, mode…) as the agent last reported them, and the rule that the
 * person's permission mode wins: a session that starts in a mode where the agent approves on its
 * own, which the person did not pick, is set to the asking mode; an agent that switches itself
 * into one is switched back; both are said in the transcript.
 */
import { InvalidRequestError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import type { AgentConnection, SessionUpdate } from '../acp/AgentConnection.js';
import { markSelfApproving, modeName, modeOption, modeToRestore } from '../acp/permissionModes.js';
import { MODE_OPTION_ID, sessionOptions, withCurrentMode, type SessionOption } from '../acp/sessionOptions.js';
import type { PermissionModes } from '../adapters/AgentAdapter.js';
import type { LiveSessionOwner } from './SessionOwner.js';

/** What the options belong to. */
export type SessionModesOf = {
  agentName: string;
  modes: PermissionModes | undefined;
  owner: LiveSessionOwner;
  connection(): AgentConnection;
  /** The bound session's id, once there is one. */
  sessionId(): string | undefined;
};

/** The synthesized mode option as ACP mode state, so it survives a config-option update. */
function modeState(
  options: readonly SessionOption[],
): { currentModeId: string; availableModes: Array<{ id: string; name: string }> } | null {
  const mode = options.find((option) => option.id === MODE_OPTION_ID);
  return mode ? { currentModeId: mode.currentValue, availableModes: mode.options.map(({ value, name }) => ({ id: value, name })) } : null;
}

/** One session's options and its permission mode. */
export class SessionModes {
  private options: SessionOption[] = [];
  /** The mode the person picked for this session, if any (a self-approving one is kept only then). */
  private pickedMode: string | undefined;

  constructor(private readonly of: SessionModesOf) {}

  /** The session's options now. */
  get current(): readonly SessionOption[] {
    return this.options;
  }

  /** Takes the options an agent reported (new session, reopen), with the self-approving modes marked. */
  reported(options: SessionOption[]): void {
    this.options = markSelfApproving(options, this.of.modes);
  }

  /**
   * Takes the options a session just bound reported, and sets the asking mode when it started in a
   * self-approving one the person did not pick (`chosen`: their choices for this conversation).
   * Returns the drafts to record: any notice, then `session.options`.
   */
  async bound(sessionId: string, options: SessionOption[], chosen: Readonly<Record<string, string>>): Promise<EventDraft[]> {
    this.reported(options);
    const kept = await this.keepAsking(sessionId, this.pickedIn(chosen));
    return [...kept, { type: 'session.options', payload: { options: [...this.options] } }];
  }

  /**
   * Sets the asking mode when the session is in a self-approving one the person did not pick.
   * Returns the notice to record, if it did.
   */
  async keepAsking(sessionId: string, picked: string | undefined): Promise<EventDraft[]> {
    this.pickedMode = picked;
    const restore = modeToRestore(this.options, this.of.modes, picked);
    if (!restore) {
      return [];
    }
    this.reported(await this.of.connection().setOption(sessionId, this.options, restore.option.id, restore.to));
    // What the mode Baton set does is said in the agent's own words (Codex's Read-only asks before edits, not before every command).
    const text = `${this.of.agentName} started this session in ${modeName(restore.option, restore.from)}, where it decides without asking you. Baton set it to ${modeName(restore.option, restore.to)}${inItsWords(this.of.agentName, restore.option, restore.to)}; pick another mode in the Mode menu if you want one.`;
    return [{ type: 'notice', payload: { severity: 'info', text } }];
  }

  /** The person's choice for the mode that was last recorded (for `keepAsking` on a new session). */
  pickedIn(chosen: Readonly<Record<string, string>>): string | undefined {
    return chosen[modeOption(this.options)?.id ?? ''];
  }

  /** Sets one option for the person; resolves with the `session.options` draft to record. */
  async choose(sessionId: string, optionId: string, value: string): Promise<EventDraft> {
    const option = this.options.find((candidate) => candidate.id === optionId);
    if (!option || !option.options.some((candidate) => candidate.value === value)) {
      throw new InvalidRequestError(`${this.of.agentName} does not offer "${value}" for ${option?.name ?? optionId}.`);
    }
    if (option.category === 'mode') {
      this.pickedMode = value;
    }
    this.reported(await this.of.connection().setOption(sessionId, this.options, optionId, value));
    return { type: 'session.options', payload: { options: this.options } };
  }

  /**
   * Applies the person's choices to a session just bound (one already at its value is left as it
   * is); returns the `session.options` draft of each applied, and a notice for each that could not be.
   */
  async applyChoices(sessionId: string, chosen: Readonly<Record<string, string>>): Promise<EventDraft[]> {
    const drafts: EventDraft[] = [];
    for (const [optionId, value] of Object.entries(chosen)) {
      const option = this.options.find((candidate) => candidate.id === optionId);
      if (!option || option.currentValue === value) {
        continue;
      }
      try {
        drafts.push(await this.choose(sessionId, optionId, value));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        drafts.push({
          type: 'notice',
          payload: { severity: 'warning', text: `Your choice of ${option.name} could not be applied again: ${reason}` },
        });
      }
    }
    return drafts;
  }

  /** Applies a change of mode or options the agent reported; false for any other update. */
  onUpdate(update: SessionUpdate): boolean {
    if (update.sessionUpdate !== 'current_mode_update' && update.sessionUpdate !== 'config_option_update') {
      return false;
    }
    this.reported(
      update.sessionUpdate === 'current_mode_update'
        ? withCurrentMode(this.options, update.currentModeId)
        : sessionOptions(modeState(this.options), update.configOptions),
    );
    this.of.owner.commit([{ type: 'session.options', payload: { options: this.options } }]);
    void this.undoOwnSwitch();
    return true;
  }

  /** The agent switched itself into a mode where it decides alone, which the person did not pick: switch it back, and say so. */
  private async undoOwnSwitch(): Promise<void> {
    const restore = modeToRestore(this.options, this.of.modes, this.pickedMode);
    const sessionId = this.of.sessionId();
    const connection = this.of.connection();
    if (!restore || !sessionId || connection.exited) {
      return;
    }
    const { owner, agentName } = this.of;
    try {
      this.reported(await connection.setOption(sessionId, this.options, restore.option.id, restore.to));
      const text = `${agentName} switched itself to ${modeName(restore.option, restore.from)}, where it decides without asking you. Baton switched it back to ${modeName(restore.option, restore.to)}${inItsWords(agentName, restore.option, restore.to)}.`;
      const turnId = owner.activeTurnId();
      owner.commit([
        { type: 'session.options', payload: { options: this.options } },
        { type: 'notice', payload: { ...(turnId ? { turnId } : {}), severity: 'warning', text } },
      ]);
    } catch (error) {
      owner.log(`could not switch ${agentName} back to ${restore.to}: ${String(error)}`);
    }
  }
}

/** ` (Codex: “Requires approval to edit files…”)`: what the agent says of a mode, when it says something. */
function inItsWords(agentName: string, option: SessionOption, value: string): string {
  const description = option.options.find((choice) => choice.value === value)?.description;
  return description ? ` (${agentName}: “${description.replace(/[.\s]+$/, '')}”)` : '';
}
