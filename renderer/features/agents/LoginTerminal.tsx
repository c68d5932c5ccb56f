/**
 * A log-in that runs in a terminal: the agent's own log-in screen, in a real terminal emulator
 * (xterm.js) connected to a pseudo-terminal on the host. The person types into it; when it ends
 * with exit code 0 they are logged in.
 */
import { useEffect, useRef } from 'react';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useBaton } from '../../store/index.js';

/** The size log-in terminals start with. */
export const LOGIN_TERMINAL_SIZE = { cols: 100, rows: 28 };

/** The open log-in terminal, as a dialog over the page. */
export function LoginTerminal() {
  const shown = useBaton((state) => state.loginTerminal);
  const sendLoginInput = useBaton((state) => state.sendLoginInput);
  const close = useBaton((state) => state.closeLoginTerminal);
  const agentName = useBaton((state) => state.agents.find((agent) => agent.agentId === state.loginTerminal?.agentId)?.displayName ?? '');
  const host = useRef<HTMLDivElement>(null);
  const terminal = useRef<Terminal | null>(null);
  const written = useRef(0);
  const terminalId = shown?.terminalId;

  useEffect(() => {
    if (!terminalId || !host.current) {
      return undefined;
    }
    const created = new Terminal({ ...LOGIN_TERMINAL_SIZE, convertEol: false, cursorBlink: true, fontSize: 13 });
    created.open(host.current);
    created.focus();
    const typed = created.onData((data) => sendLoginInput(data));
    terminal.current = created;
    written.current = 0;
    return () => {
      typed.dispose();
      created.dispose();
      terminal.current = null;
    };
  }, [terminalId, sendLoginInput]);

  const output = shown?.output ?? '';
  useEffect(() => {
    const current = terminal.current;
    if (current && output.length > written.current) {
      current.write(output.slice(written.current));
      written.current = output.length;
    }
  }, [output]);

  if (!shown) {
    return null;
  }
  const { exit } = shown;
  return (
    <div className="login-terminal-backdrop">
      <section className="login-terminal" role="dialog" aria-modal="true" aria-label={`Log in to ${agentName}`}>
        <header>
          <strong>
            Log in to {agentName}: {shown.methodName}
          </strong>
          <button type="button" onClick={() => void close()}>
            {exit ? 'Close' : 'Cancel log-in'}
          </button>
        </header>
        <div ref={host} className="login-terminal-screen" aria-label="Log-in terminal" />
        <p role="status" className={exit && exit.code !== 0 ? 'notice-error' : 'muted'}>
          {!exit
            ? 'Type into the terminal above. It closes when the log-in is done.'
            : exit.code === 0
              ? 'Logged in. Close this and send your message again.'
              : `The log-in did not succeed (${exit.signal ? `ended by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`}).`}
        </p>
      </section>
    </div>
  );
}
