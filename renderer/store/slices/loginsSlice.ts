/**
 * Logging in to an agent and out of it: by one of its methods, or in a terminal the page shows
 * (its output pushed as it comes, kept from before the terminal was named); and the cards of
 * an agent logged in or out forgotten, so they are read again.
 */
import type { PushEvent } from '../../../app/ipc/index.js';
import type { Slice } from '../types.js';

/** Characters of log-in terminal output kept (what the terminal shows is rebuilt from them). */
const LOGIN_OUTPUT_KEPT = 256 * 1024;

type Exit = { code: number | null; signal: string | null };

/** The log-ins slice. */
export type LoginsSlice = {
  logIn(agentId: string, methodId: string): Promise<void>;
  logOut(agentId: string): Promise<void>;
  /** Whether log-in methods that run in a terminal can run on this host. */
  terminalLogin: boolean;
  /** The log-in terminal shown, if any: what it printed so far and, once ended, how. */
  loginTerminal: { terminalId: string; agentId: string; methodName: string; output: string; exit: Exit | null } | null;
  startLoginTerminal(agentId: string, methodId: string, methodName: string, size: { cols: number; rows: number }): Promise<void>;
  sendLoginInput(data: string): void;
  closeLoginTerminal(): Promise<void>;
  /** A pushed piece of a log-in terminal's output, or its end. */
  receiveLoginTerminal(payload: Extract<PushEvent, { name: 'loginTerminal' }>['payload']): void;
};

/** The log-ins slice. */
export const loginsSlice: Slice<LoginsSlice> = (api) => (set, get) => {
  /** Log-in terminal output that came before the terminal was shown, by terminal. */
  const early = new Map<string, { output: string; exit: Exit | null }>();
  /** Says the agent is logged in or out, and forgets its card so it is read again. */
  const said = (agentId: string, text: (name: string) => string): void => {
    const name = get().agents.find((agent) => agent.agentId === agentId)?.displayName ?? agentId;
    get().forgetCard(agentId);
    set({ info: text(name) });
  };
  return {
    async logIn(agentId, methodId) {
      set({ info: null, error: null });
      try {
        await api.call('authenticateAgent', { agentId, methodId });
        said(agentId, (name) => `Logged in to ${name}. Send your message again.`);
      } catch (error) {
        get().showError(error);
      }
    },
    async logOut(agentId) {
      set({ info: null, error: null });
      try {
        await api.call('logoutAgent', { agentId });
        said(agentId, (name) => `Logged out of ${name}.`);
      } catch (error) {
        get().showError(error);
      }
    },
    terminalLogin: false,
    loginTerminal: null,
    async startLoginTerminal(agentId, methodId, methodName, size) {
      set({ info: null, error: null });
      try {
        // Shown at once, so output that comes before the answer has somewhere to go.
        const { terminalId } = await api.call('startLoginTerminal', { agentId, methodId, ...size });
        set((state) => ({
          loginTerminal:
            state.loginTerminal?.terminalId === terminalId
              ? state.loginTerminal
              : { terminalId, agentId, methodName, output: early.get(terminalId)?.output ?? '', exit: early.get(terminalId)?.exit ?? null },
        }));
        early.clear();
      } catch (error) {
        get().showError(error);
      }
    },
    sendLoginInput(data) {
      const shown = get().loginTerminal;
      if (shown && !shown.exit) {
        api.call('loginTerminalInput', { terminalId: shown.terminalId, data }).catch((error: unknown) => get().showError(error));
      }
    },
    async closeLoginTerminal() {
      const shown = get().loginTerminal;
      set({ loginTerminal: null });
      if (shown && !shown.exit) {
        await api.call('closeLoginTerminal', { terminalId: shown.terminalId }).catch((error: unknown) => get().showError(error));
      }
    },
    receiveLoginTerminal({ terminalId, agentId, data, exit }) {
      const shown = get().loginTerminal;
      if (!shown || shown.terminalId !== terminalId) {
        // Output can come before the answer that names the terminal: keep it for a moment.
        const before = early.get(terminalId) ?? { output: '', exit: null };
        early.set(terminalId, { output: (before.output + (data ?? '')).slice(-LOGIN_OUTPUT_KEPT), exit: exit ?? before.exit });
        return;
      }
      const output = data ? (shown.output + data).slice(-LOGIN_OUTPUT_KEPT) : shown.output;
      set({ loginTerminal: { ...shown, output, exit: exit ?? shown.exit } });
      if (exit?.code === 0) {
        said(agentId, (name) => `Logged in to ${name}. Send your message again.`);
      }
    },
  };
};
