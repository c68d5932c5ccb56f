/** Under an "AuthRequired" failure: the agent's log-in methods, as actions where Baton can run them. */
import type { AuthMethodInfo } from '../../../app/errors.js';
import { useBaton } from '../../store/index.js';
import { LOGIN_TERMINAL_SIZE } from './LoginTerminal.js';
import { selectActiveSummary } from '../../store/selectors/transcript.js';

/** Log-in actions for the conversation's agent. */
export function LogInPrompt({ methods }: { methods: AuthMethodInfo[] }) {
  const summary = useBaton(selectActiveSummary);
  const logIn = useBaton((state) => state.logIn);
  const terminalLogin = useBaton((state) => state.terminalLogin);
  const startLoginTerminal = useBaton((state) => state.startLoginTerminal);
  if (!summary) {
    return null;
  }
  return (
    <div className="log-in">
      {methods.map((method) =>
        method.terminal && !terminalLogin ? (
          <p key={method.id}>{method.name}: runs in a terminal, which this system does not give Baton. Log in from a terminal, then send again.</p>
        ) : method.terminal ? (
          <button key={method.id} type="button" title={method.description} onClick={() => void startLoginTerminal(summary.agentId, method.id, method.name, LOGIN_TERMINAL_SIZE)}>
            Log in with {method.name} (in a terminal)
          </button>
        ) : (
          <button key={method.id} type="button" title={method.description} onClick={() => void logIn(summary.agentId, method.id)}>
            Log in with {method.name}
          </button>
        ),
      )}
    </div>
  );
}
