/**
 * Settings › Permissions: every "always" answer the person gave an agent, with what was asked,
 * where and when, and Revoke. Revoking says what the agent may still keep on its own.
 */
import type { AlwaysDecision } from '../../../app/agents/alwaysDecisions.js';
import { relativeTime } from '../../components/relativeTime.js';
import { useBaton } from '../../store/index.js';

/** The list. */
export function PermissionsSettings() {
  const decisions = useBaton((state) => state.settings?.decisions ?? null);
  const note = useBaton((state) => state.settings?.note ?? null);
  return (
    <>
      <h2>Permissions</h2>
      <p className="muted">
        When you answer an agent’s question with an “always” option, the agent stops asking about it. Each such answer is listed here.
        Revoke one and Baton starts that agent afresh for its next message in that folder, so it asks again.
      </p>
      {note ? (
        <p className="info-note" role="status">
          {note}
        </p>
      ) : null}
      {decisions === null ? (
        <p aria-busy="true">Reading your answers…</p>
      ) : decisions.length === 0 ? (
        <p>You have given no “always” answers.</p>
      ) : (
        <ul className="settings-list" aria-label="Always answers">
          {decisions.map((decision) => (
            <DecisionRow key={decision.id} decision={decision} />
          ))}
        </ul>
      )}
    </>
  );
}

function DecisionRow({ decision }: { decision: AlwaysDecision }) {
  const revokeDecision = useBaton((state) => state.revokeDecision);
  const select = useBaton((state) => state.select);
  const closeSettings = useBaton((state) => state.closeSettings);
  const what = `${decision.agentName}: ${decision.title}`;
  return (
    <li className={`always-decision always-${decision.decision}`} aria-label={`${decision.optionName} — ${what}`}>
      <div>
        <strong>{decision.decision === 'allow' ? 'Always allowed' : 'Always rejected'}</strong> · {what}
      </div>
      <div className="muted">
        “{decision.optionName}” in {decision.cwd} · <time dateTime={decision.decidedAt}>{relativeTime(decision.decidedAt)}</time>
      </div>
      <div className="row-actions">
        <button type="button" aria-label={`Revoke ${decision.optionName} for ${what}`} onClick={() => void revokeDecision(decision.id)}>
          Revoke
        </button>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            closeSettings();
            void select(decision.conversationId);
          }}
        >
          Open its conversation
        </button>
      </div>
    </li>
  );
}
