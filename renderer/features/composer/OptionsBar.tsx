/**
 * The options of the next message, beside the composer (as chat apps place their model and mode
 * pickers), so the header is one row: the agent's own session options (model, mode, effort…) of
 * the agent the next message goes to, the context it uses, and button "Hide options" / "Options"
 * that folds them into one line saying their values. A self-approving mode is marked as before.
 */
import { useState } from 'react';
import { contextUse, type ContextUse } from '../../../app/transcript/index.js';
import { readPreference, writePreference } from '../../persisted/preferences.js';
import { useBaton } from '../../store/index.js';
import { selectActiveSummary, selectActiveTranscript } from '../../store/selectors/transcript.js';
import { NextAgentOptions, SessionOptions } from './SessionOptions.js';

const compactNumber = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

/** The bar, for an existing conversation that has options or a context figure. */
export function OptionsBar() {
  const summary = useBaton(selectActiveSummary);
  const transcript = useBaton(selectActiveTranscript);
  const nextAgent = useBaton((state) => (summary ? state.nextAgent[summary.conversationId] : undefined));
  const nextName = useBaton((state) => state.agents.find((agent) => agent.agentId === nextAgent)?.displayName ?? nextAgent);
  const [open, setOpen] = useState(
    () => (readPreference('header.options') ?? (window.matchMedia('(max-width: 800px)').matches ? 'closed' : 'open')) === 'open',
  );
  if (!summary || summary.lifecycle === 'deleted') {
    return null;
  }
  const switching = nextAgent !== undefined && nextAgent !== summary.agentId;
  const use = !switching && transcript ? contextUse(transcript) : { kind: 'none' as const };
  if (!switching && (transcript?.sessionOptions.length ?? 0) === 0 && use.kind === 'none') {
    return null;
  }
  const toggle = (): void => {
    writePreference('header.options', open ? 'closed' : 'open');
    setOpen(!open);
  };
  // Folded, the values stay in view in one line.
  const values = switching
    ? []
    : (transcript?.sessionOptions ?? []).map(
        (option) => option.options.find((choice) => choice.value === option.currentValue)?.name ?? option.currentValue,
      );
  return (
    <section className="options-bar" aria-label="Options of the next message">
      <button
        type="button"
        className="header-action options-toggle"
        aria-expanded={open}
        aria-controls="session-options-row"
        onClick={toggle}
      >
        {open ? 'Hide options' : 'Options'}
      </button>
      {!open && values.length > 0 ? <span className="options-values hint">{values.join(' · ')}</span> : null}
      <div id="session-options-row" className="options-row" hidden={!open}>
        {/* The pickers and the meter are those of the agent the next message goes to. */}
        {switching && nextAgent ? (
          <NextAgentOptions conversationId={summary.conversationId} agentId={nextAgent} agentName={nextName ?? nextAgent} />
        ) : transcript ? (
          <SessionOptions transcript={transcript} />
        ) : null}
        <ContextFigure use={use} />
        {switching ? (
          <p className="hint usage">{nextName} starts with a handoff of this conversation: its context is counted once it replies.</p>
        ) : null}
      </div>
    </section>
  );
}

/** The context in use as the agent reports it (never a count Baton makes up), or why there is none. */
function ContextFigure({ use }: { use: ContextUse }) {
  switch (use.kind) {
    case 'reported':
      return (
        <p className="usage" title="How much of the model's context window the conversation uses, as the agent reports it">
          Context: {compactNumber.format(use.used)} of {compactNumber.format(use.size)} tokens{' '}
          <meter min={0} max={use.size} value={use.used} aria-label="Context used" />
        </p>
      );
    case 'beyond':
      return (
        <p className="usage usage-note">
          Context: not known. The agent reported {compactNumber.format(use.used)} tokens, more than its window of{' '}
          {compactNumber.format(use.size)}: a running total, not the context in use.
        </p>
      );
    case 'unreported':
      return <p className="usage usage-note">Context: {use.agentName} does not report how much it uses.</p>;
    default:
      return null;
  }
}
