/**
 * The agent's own session options (model, mode, reasoning…) as pickers. In a conversation a choice
 * is remembered for it (and for the agent); before the first message the pickers show the options
 * the agent offered last, and the choices are applied when its session starts.
 */
import { useEffect } from 'react';
import type { EventPayload } from '../../../app/events/index.js';
import type { TranscriptState } from '../../../app/transcript/index.js';
import { agentChoices, rememberOptions } from '../../persisted/agentChoices.js';
import { useBaton } from '../../store/index.js';
import { SEARCHABLE_AFTER, SearchablePicker } from '../../components/SearchablePicker.js';
import { ChoicePicker, fitsChoicePicker } from '../../components/ChoicePicker.js';

type SessionOption = EventPayload<'session.options'>['options'][number];

/** How a mode in which the agent approves on its own is marked, in the picker and beside it. */
export const SELF_APPROVING_NOTE = 'the agent decides without asking you';

/** One picker per option; modes in which the agent approves on its own are marked as such. */
export function OptionPickers({
  options,
  valueOf,
  choose,
  label = 'Session options',
}: {
  options: readonly SessionOption[];
  valueOf: (option: SessionOption) => string;
  choose: (optionId: string, value: string) => void;
  label?: string;
}) {
  return (
    <div className="session-options" role="group" aria-label={label}>
      {options.map((option) => {
        const value = valueOf(option);
        const current = option.options.find((choice) => choice.value === value);
        const selfApproving = current?.selfApproving === true;
        // What the agent says of the chosen value (a mode's own words): its description and tooltip.
        const saysId = current?.description ? `option-says-${option.id}` : undefined;
        // A long list (OpenCode's models) is searchable; a short one is a select showing what the agent says of each value.
        const searchable = option.options.length > SEARCHABLE_AFTER;
        const native = !searchable && !fitsChoicePicker(option.options);
        const picker = searchable ? (
          <SearchablePicker
            label={option.name}
            entries={option.options}
            value={value}
            onChange={(picked) => choose(option.id, picked)}
            describedBy={saysId}
          />
        ) : native ? (
          <select
            aria-label={option.name}
            aria-describedby={saysId}
            title={current?.description}
            value={value}
            onChange={(event) => choose(option.id, event.target.value)}
          >
            {option.options.map((choice) => (
              <option key={choice.value} value={choice.value} title={choice.description}>
                {choice.selfApproving ? `${choice.name} (${SELF_APPROVING_NOTE})` : choice.name}
              </option>
            ))}
          </select>
        ) : (
          <ChoicePicker
            label={option.name}
            entries={option.options.map((choice) => ({ ...choice, note: choice.selfApproving ? SELF_APPROVING_NOTE : undefined }))}
            value={value}
            onChange={(picked) => choose(option.id, picked)}
            describedBy={saysId}
            title={current?.description}
          />
        );
        // A native select is named by its label; the others carry their own name.
        const Field = native ? 'label' : 'div';
        return (
          <Field key={option.id} className="field">
            <span aria-hidden={native ? undefined : 'true'}>{option.name}</span>
            {picker}
            {saysId ? (
              <span id={saysId} className="visually-hidden">
                {current?.description}
              </span>
            ) : null}
            {selfApproving && (
              <span className="hint self-approving" role="note">
                {`In ${current?.name ?? value}, ${SELF_APPROVING_NOTE}.`}
              </span>
            )}
          </Field>
        );
      })}
    </div>
  );
}

/** The options of the conversation's live (or last) session; what it offers is remembered for the agent. */
export function SessionOptions({ transcript }: { transcript: TranscriptState }) {
  const setSessionOption = useBaton((state) => state.setSessionOption);
  const { agentId, sessionOptions } = transcript;
  useEffect(() => rememberOptions(agentId, sessionOptions), [agentId, sessionOptions]);
  if (sessionOptions.length === 0) {
    return null;
  }
  return (
    <OptionPickers
      options={sessionOptions}
      valueOf={(option) => option.currentValue}
      choose={(optionId, value) => void setSessionOption(optionId, value)}
    />
  );
}

/** Before the first message: the options the agent offered last time, with the choices remembered for it. */
export function DraftSessionOptions({ agentId, agentName }: { agentId: string; agentName: string }) {
  const chosen = useBaton((state) => state.draft.options);
  const setDraftOption = useBaton((state) => state.setDraftOption);
  const remembered = agentChoices(agentId);
  if (!remembered) {
    return (
      <p className="hint draft-options-hint">
        {agentName}'s model and mode can be picked here once it has been used in a conversation (it names them when a session starts).
      </p>
    );
  }
  return (
    <OptionPickers
      options={remembered.options}
      valueOf={(option) => chosen?.[option.id] ?? remembered.chosen[option.id] ?? askingValue(option)}
      choose={(optionId, value) => setDraftOption(optionId, value)}
    />
  );
}

/**
 * What a new session will show for an option nobody chose: its last value, unless that was a mode
 * in which the agent decides without asking (Baton sets the asking one then, see LiveSession).
 */
export function askingValue(option: SessionOption): string {
  const current = option.options.find((choice) => choice.value === option.currentValue);
  return current?.selfApproving === true
    ? (option.options.find((choice) => choice.selfApproving !== true)?.value ?? option.currentValue)
    : option.currentValue;
}

/**
 * After another agent is picked for the next message: that agent's options as it offered them last,
 * with the choices made for it (or remembered for the agent). A choice is applied when that agent's
 * session starts; the live session, another agent's, is left alone.
 */
export function NextAgentOptions({ conversationId, agentId, agentName }: { conversationId: string; agentId: string; agentName: string }) {
  const chosen = useBaton((state) => state.nextOptions[conversationId]);
  const choose = useBaton((state) => state.setNextAgentOption);
  const remembered = agentChoices(agentId);
  if (!remembered || remembered.options.length === 0) {
    return (
      <p className="hint draft-options-hint">
        {agentName}&apos;s model and mode can be picked once it has been used (it names them when a session starts).
      </p>
    );
  }
  return (
    <OptionPickers
      options={remembered.options}
      valueOf={(option) => chosen?.[option.id] ?? remembered.chosen[option.id] ?? askingValue(option)}
      choose={(optionId, value) => void choose(optionId, value)}
    />
  );
}
