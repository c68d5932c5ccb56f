/** Under an "AuthRequired" failure: the agent's log-in methods, as actions where Baton can run them. */
import { logInLabel } from '../../../app/agents/logInWords.js';
import type { AuthMethodInfo } from '../../../app/errors.js';
import { Tip } from '../../components/Tip.js';
import { useBaton } from '../../store/index.js';
import { LOGIN_TERMINAL_SIZE } from './LoginTerminal.js';
import { selectActiveSummary } from '../../store/selectors/transcript.js';

/** Log-in actions for an agent: the conversation's unless another is named (the settings page). */
export function LogInPrompt({ methods, agentId }: { methods: AuthMethodInfo[]; agentId?: string }) {
  const summaryAgentId = useBaton((state) => selectActiveSummary(state)?.agentId);
  const logIn = useBaton((state) => state.logIn);
  const terminalLogin = useBaton((state) => state.terminalLogin);
  const startLoginTerminal = useBaton((state) => state.startLoginTerminal);
  const target = agentId ?? summaryAgentId;
  if (!target) {
    return null;
  }
  return (
    <div className="log-in">
      {methods.map((method) =>
        method.terminal && !terminalLogin ? (
          <p key={method.id}>
            {method.name}: runs in a terminal, which this system does not give Baton. Log in from a terminal, then send again.
          </p>
        ) : method.terminal ? (
          <Tip key={method.id} text={method.description}>
            <button type="button" onClick={() => void startLoginTerminal(target, method.id, method.name, LOGIN_TERMINAL_SIZE)}>
              {logInLabel(method.name)} (in a terminal)
            </button>
          </Tip>
        ) : (
          <Tip key={method.id} text={method.description}>
            <button type="button" onClick={() => void logIn(target, method.id)}>
              {logInLabel(method.name)}
            </button>
          </Tip>
        ),
      )}
    </div>
  );
}
