/**
 * The options of the next message, beside the composer (as chat apps place their model and mode
 * pickers), so the header is one row: the agent's own session options (model, mode, effort…) of
 * the agent the next message goes to, the context it uses, and button "Hide options" / "Options"
 * that folds them into one line saying their values. A self-approving mode is marked as before.
 */
import { useState } from 'react';
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
  const usage = !switching && transcript?.usage && transcript.usage.size > 0 ? transcript.usage : undefined;
  if (!switching && (transcript?.sessionOptions.length ?? 0) === 0 && !usage) {
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
        {usage ? (
          <p className="usage" title="How much of the model's context window the conversation uses, as the agent reports it">
            Context: {compactNumber.format(usage.used)} of {compactNumber.format(usage.size)} tokens{' '}
            <meter min={0} max={usage.size} value={usage.used} aria-label="Context used" />
          </p>
        ) : null}
        {switching ? (
          <p className="hint usage">{nextName} starts with a handoff of this conversation: its context is counted once it replies.</p>
        ) : null}
      </div>
    </section>
  );
}
