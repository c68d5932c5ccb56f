/** Under an "AuthRequired" failure: the agent's log-in methods, as actions where Baton can run them. */
import type { AuthMethodInfo } from '../../../app/errors.js';
import { useBaton } from '../../store/index.js';
import { selectActiveSummary } from '../../store/selectors/transcript.js';

/** Log-in actions for the conversation's agent. */
export function LogInPrompt({ methods }: { methods: AuthMethodInfo[] }) {
  const summary = useBaton(selectActiveSummary);
  const logIn = useBaton((state) => state.logIn);
  if (!summary) {
    return null;
  }
  return (
    <div className="log-in">
      {methods.map((method) =>
        method.terminal ? (
          <p key={method.id}>{method.name}: runs in a terminal, which Baton does not offer yet. Log in from a terminal, then send again.</p>
        ) : (
          <button key={method.id} type="button" title={method.description} onClick={() => void logIn(summary.agentId, method.id)}>
            Log in with {method.name}
          </button>
        ),
      )}
    </div>
  );
}
