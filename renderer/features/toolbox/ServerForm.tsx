/**
 * The form that adds or changes a toolbox server: its name, how it is reached (a command, or an
 * address over HTTP or SSE, optionally through Baton's local bridge), its variables and headers
 * (secret ones never come back to the page), and a whole command line pasted into Command split.
 */
import { useState } from 'react';
import type { CatalogServer, Transport } from '../../../app/toolbox/catalog.js';
import { splitCommandLine } from '../../../app/toolbox/commandLine.js';
import { Banner } from '../../components/DialogFrame.js';
import { useBaton } from '../../store/index.js';
import { Tick } from '../../components/Tick.js';

/** A variable or header being edited; `keep` is a secret left as it is (its value never comes to the page). */
type Row = { name: string; value: string; secret: boolean; keep?: boolean };

/** Under Command: a whole command line pasted there, shown split (program, arguments) with a button to split it, or why it cannot be. */
function CommandLineNote({ command, split }: { command: string; split: (program: string, args: string[]) => void }) {
  const line = command.trim();
  if (!/\s/.test(line) && !/["'\\]/.test(line)) {
    return null;
  }
  const parts = splitCommandLine(line);
  if ('problem' in parts) {
    return <Banner kind="warning" alert={false}>{`This command cannot be started as it is: ${parts.problem}`}</Banner>;
  }
  if (parts.args.length === 0 && parts.command === line) {
    return null;
  }
  return (
    <p className="hint command-line-note" role="note">
      This looks like a whole command line. Command: <code>{parts.command}</code>
      {parts.args.length > 0 ? (
        <>
          ; arguments:{' '}
          {parts.args.map((arg, index) => (
            <span key={index}>
              {index > 0 ? ' ' : ''}
              <code>{arg}</code>
            </span>
          ))}
        </>
      ) : null}
      .{' '}
      <button type="button" onClick={() => split(parts.command, parts.args)}>
        Split into command and arguments
      </button>
    </p>
  );
}

/** The "Add server" form, or a server's Edit form (its secrets kept unless a new value is typed). */
export function ServerForm({ server }: { server?: CatalogServer }) {
  const addServer = useBaton((state) => state.addServer);
  const updateServer = useBaton((state) => state.updateServer);
  const setAdding = useBaton((state) => state.setAdding);
  const setEditing = useBaton((state) => state.setEditing);
  const busy = useBaton((state) => state.toolboxDialog?.busy ?? false);
  const [name, setName] = useState(server?.name ?? '');
  const [transport, setTransport] = useState<Transport>(server?.transport ?? 'stdio');
  const [command, setCommand] = useState(server?.command ?? '');
  const [args, setArgs] = useState(server?.args.join('\n') ?? '');
  const [url, setUrl] = useState(server?.url ?? '');
  const [rows, setRows] = useState<Row[]>(
    [...(server?.env ?? []), ...(server?.headers ?? [])].map((entry) =>
      entry.secret
        ? { name: entry.name, value: '', secret: true, keep: true }
        : { name: entry.name, value: entry.value ?? '', secret: false },
    ),
  );
  const stdio = transport === 'stdio';
  const rowLabel = stdio ? 'Variable name' : 'Header name';
  const save = async (): Promise<void> => {
    const entries = rows
      .filter((row) => row.name.trim() !== '')
      .map((row) => ({ name: row.name, value: row.value, secret: row.secret, ...(row.keep && row.secret ? { keep: true } : {}) }));
    // A whole command line pasted into Command is saved split (as the note under it shows), not refused.
    const pasted = stdio && /\s|["'\\]/.test(command.trim()) ? splitCommandLine(command.trim()) : undefined;
    const split = pasted && !('problem' in pasted) && pasted.args.length > 0 ? pasted : undefined;
    const program = split ? split.command : command;
    const argv = [
      ...(split?.args ?? []),
      ...args
        .split('\n')
        .map((arg) => arg.trim())
        .filter(Boolean),
    ];
    if (split) {
      setCommand(split.command);
      setArgs(argv.join('\n'));
    }
    const input = {
      name,
      transport,
      ...(server ? { description: server.description, variables: server.variables, bridge: server.bridge } : {}),
      ...(stdio ? { command: program, args: argv, env: entries } : { url, headers: entries }),
    };
    await (server ? updateServer(server.serverId, input) : addServer(input));
  };
  return (
    <fieldset className="add-server" aria-label={server ? `Edit ${server.name}` : 'New server'}>
      <legend>{server ? `Edit ${server.name}` : 'New server'}</legend>
      <label className="field">
        <span>Name</span>
        <input aria-label="Name" value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label className="field">
        <span>Transport</span>
        <select aria-label="Transport" value={transport} onChange={(event) => setTransport(event.target.value as Transport)}>
          <option value="stdio">stdio</option>
          <option value="http">http</option>
          <option value="sse">sse</option>
        </select>
      </label>
      {stdio ? (
        <>
          <label className="field">
            <span>Command</span>
            <input aria-label="Command" value={command} spellCheck={false} onChange={(event) => setCommand(event.target.value)} />
          </label>
          <CommandLineNote
            command={command}
            split={(program, more) => {
              setCommand(program);
              setArgs([...more, ...args.split('\n').filter((arg) => arg.trim() !== '')].join('\n'));
            }}
          />
          <label className="field">
            <span>Arguments (one per line)</span>
            <textarea aria-label="Arguments" rows={3} value={args} spellCheck={false} onChange={(event) => setArgs(event.target.value)} />
          </label>
        </>
      ) : (
        <label className="field">
          <span>URL</span>
          <input aria-label="URL" value={url} spellCheck={false} onChange={(event) => setUrl(event.target.value)} />
        </label>
      )}
      {rows.map((row, index) => (
        <div key={index} className="entry-row" role="group" aria-label={`${stdio ? 'Variable' : 'Header'} ${index + 1}`}>
          <input
            aria-label={rowLabel}
            placeholder={rowLabel}
            value={row.name}
            onChange={(event) =>
              setRows(rows.map((candidate, at) => (at === index ? { ...candidate, name: event.target.value } : candidate)))
            }
          />
          <input
            aria-label="Value"
            placeholder={row.keep ? 'Kept as it is: type to replace' : 'Value'}
            type={row.secret ? 'password' : 'text'}
            value={row.value}
            onChange={(event) =>
              setRows(rows.map((candidate, at) => (at === index ? { ...candidate, value: event.target.value, keep: false } : candidate)))
            }
          />
          <Tick
            label="Secret"
            checked={row.secret}
            onChange={(checked) => setRows(rows.map((candidate, at) => (at === index ? { ...candidate, secret: checked } : candidate)))}
          >
            Secret
          </Tick>
        </div>
      ))}
      <div className="dialog-actions">
        <button type="button" onClick={() => setRows([...rows, { name: '', value: '', secret: false }])}>
          {stdio ? 'Add variable' : 'Add header'}
        </button>
        <button type="button" onClick={() => (server ? setEditing(null) : setAdding(false))}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={busy} onClick={() => void save()}>
          {server ? 'Save changes' : 'Save server'}
        </button>
      </div>
    </fieldset>
  );
}
