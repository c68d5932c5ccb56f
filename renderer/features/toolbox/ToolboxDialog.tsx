/**
 * Dialog "Toolbox": which MCP servers this conversation may use (a checkbox per catalog server),
 * named toolbox sets, adding a server, importing the configs people already have, running a
 * network server through Baton's local bridge, and the tools each server really offers.
 */
import { useState } from 'react';
import { Banner, DialogFrame } from '../../components/DialogFrame.js';
import { useBaton } from '../../store/index.js';
import { ServerForm } from './ServerForm.js';
import { Tick } from '../../components/Tick.js';

/** What "Import servers" found, to choose from. */
function ImportList() {
  const scan = useBaton((state) => state.toolboxDialog?.scan);
  const importSelected = useBaton((state) => state.importSelected);
  const [chosen, setChosen] = useState<string[]>([]);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  if (!scan) {
    return null;
  }
  return (
    <section className="import-list" aria-label="Servers found">
      <h3>Servers found</h3>
      {scan.problems.map((found) => (
        <Banner key={found.file} kind="error">
          {found.message}
        </Banner>
      ))}
      {scan.candidates.length === 0 ? <p>No MCP server configs were found in the usual places.</p> : null}
      <ul>
        {scan.candidates.map((candidate) => (
          <li key={candidate.candidateId}>
            <Tick
              label={candidate.name}
              disabled={candidate.alreadyInCatalog}
              checked={chosen.includes(candidate.candidateId)}
              onChange={(checked) =>
                setChosen(checked ? [...chosen, candidate.candidateId] : chosen.filter((id) => id !== candidate.candidateId))
              }
            >
              <strong>{candidate.name}</strong> ({candidate.transport}) <code>{candidate.summary}</code>
            </Tick>
            <div className="hint">
              {candidate.dialect}: {candidate.file} ({candidate.key}){candidate.alreadyInCatalog ? ' — already in your toolbox' : ''}
              {candidate.secretNames.length > 0 ? ` — kept encrypted: ${candidate.secretNames.join(', ')}` : ''}
              {candidate.notCarried.length > 0 ? ` — not carried over: ${candidate.notCarried.join(', ')}` : ''}
            </div>
            {candidate.needsInput.map((input) => (
              <label key={input.inputId} className="field">
                <span>{input.description}</span>
                <input
                  aria-label={input.description}
                  type={input.password ? 'password' : 'text'}
                  value={inputs[input.inputId] ?? ''}
                  onChange={(event) => setInputs({ ...inputs, [input.inputId]: event.target.value })}
                />
              </label>
            ))}
          </li>
        ))}
      </ul>
      <button type="button" disabled={chosen.length === 0} onClick={() => void importSelected(chosen, inputs)}>
        Import selected
      </button>
    </section>
  );
}

/** Removing a server: which conversations use it (they lose it), then Remove or Keep. */
function RemoveServer({
  name,
  serverId,
  usedBy,
}: {
  name: string;
  serverId: string;
  usedBy: Array<{ conversationId: string; title: string }> | null;
}) {
  const remove = useBaton((state) => state.removeServer);
  const cancel = useBaton((state) => state.cancelRemoveServer);
  return (
    <div className="remove-server" role="group" aria-label={`Remove ${name}?`}>
      {usedBy === null ? (
        <p aria-busy="true">Looking for the conversations that use it…</p>
      ) : usedBy.length === 0 ? (
        <p>No conversation uses {name}.</p>
      ) : (
        <p>
          {usedBy.length === 1 ? 'One conversation uses' : `${usedBy.length} conversations use`} {name}:{' '}
          {usedBy.map((conversation) => `“${conversation.title}”`).join(', ')}. {usedBy.length === 1 ? 'It loses' : 'They lose'} it: choose
          their tools again in Toolbox before their next message.
        </p>
      )}
      <button type="button" disabled={usedBy === null} onClick={() => void remove(serverId)}>
        Remove {name}
      </button>{' '}
      <button type="button" onClick={() => cancel()}>
        Keep it
      </button>
    </div>
  );
}

/** A server's "Edit" and "Remove", named by the server (in Toolbox, and in Settings' list of servers). */
export function ServerActions({ name, onEdit, onRemove }: { name: string; onEdit: () => void; onRemove: () => void }) {
  return (
    <span className="server-actions">
      <button type="button" className="link-button" aria-label={`Edit ${name}`} onClick={onEdit}>
        Edit
      </button>{' '}
      <button type="button" className="link-button" aria-label={`Remove ${name}`} onClick={onRemove}>
        Remove
      </button>
    </span>
  );
}

/** Saves the checked servers as a named set (optionally the default for new conversations). */
function SaveSet() {
  const saveSet = useBaton((state) => state.saveToolboxSet);
  const selected = useBaton((state) => state.toolboxDialog?.selected.length ?? 0);
  const [name, setName] = useState('');
  const [isDefault, setDefault] = useState(false);
  return (
    <div className="save-set" role="group" aria-label="Save as a set">
      <input
        aria-label="Set name"
        placeholder="Name a set of the checked servers"
        value={name}
        onChange={(event) => setName(event.target.value)}
      />
      <Tick checked={isDefault} onChange={setDefault}>
        Default for new conversations
      </Tick>
      <button
        type="button"
        disabled={name.trim() === '' || selected === 0}
        onClick={() => void saveSet(name, isDefault).then((saved) => saved && setName(''))}
      >
        Save set
      </button>
    </div>
  );
}

/** The dialog, shown while `toolboxDialog` is set. */
export function ToolboxDialog() {
  const dialog = useBaton((state) => state.toolboxDialog);
  const close = useBaton((state) => state.closeToolbox);
  const toggle = useBaton((state) => state.toggleServer);
  const apply = useBaton((state) => state.applyToolbox);
  const setAdding = useBaton((state) => state.setAdding);
  const scanImports = useBaton((state) => state.scanImports);
  const setBridge = useBaton((state) => state.setBridge);
  const askRemove = useBaton((state) => state.askRemoveServer);
  const setEditing = useBaton((state) => state.setEditing);
  const isConversation = useBaton((state) => state.selection.kind === 'conversation');
  // The agent the next message goes to, when it is not the one that has the conversation and uses no tools: none of these reach it.
  const nextWithoutTools = useBaton((state) => {
    const selection = state.selection;
    const next = selection.kind === 'conversation' ? state.nextAgent[selection.conversationId] : undefined;
    const agent = next ? state.agents.find((candidate) => candidate.agentId === next) : undefined;
    return agent && !agent.usesTools ? agent.displayName : undefined;
  });
  if (!dialog) {
    return null;
  }
  return (
    <DialogFrame
      open={true}
      id="toolbox-title"
      title="Toolbox"
      className="toolbox-dialog"
      hint={
        dialog.scope === 'default' ? (
          <>
            The default toolbox: the servers a new conversation starts with. Conversations already started keep their own choice; change
            theirs from their own Toolbox.
          </>
        ) : (
          <>
            The MCP servers this conversation may use. The agent gets exactly these, from the next message on; your own agent configs are
            never edited.
          </>
        )
      }
      onClose={() => close()}
      actions={
        <>
          <button type="button" className="primary" onClick={() => close()}>
            Close
          </button>
        </>
      }
    >
      {dialog.toolboxes.length > 0 ? (
        <label className="field">
          <span>Toolbox set</span>
          <select aria-label="Toolbox set" value="" onChange={(event) => void apply(event.target.value)}>
            <option value="">Choose a set…</option>
            {dialog.toolboxes.map((toolbox) => (
              <option key={toolbox.toolboxId} value={toolbox.toolboxId}>
                {toolbox.name}
                {toolbox.isDefault ? ' (default)' : ''}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {dialog.servers.length === 0 ? <p>Your toolbox is empty: add a server or import the ones you already have.</p> : null}
      <ul className="server-list" aria-label="Servers">
        {dialog.servers.map((server) => (
          <li key={server.serverId}>
            <Tick
              label={server.name}
              checked={dialog.selected.includes(server.serverId)}
              onChange={(checked) => void toggle(server.serverId, checked)}
            >
              <strong>{server.name}</strong>{' '}
              <span className="hint">
                {server.transport} · {server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : server.url}
                {server.origin.kind === 'import' ? ` · from ${server.origin.file}` : ''}
              </span>
            </Tick>
            {server.transport !== 'stdio' ? (
              <Tick
                className="bridge"
                label={`Run ${server.name} through a local bridge`}
                checked={server.bridge}
                onChange={(checked) => void setBridge(server.serverId, checked)}
              >
                Through Baton&apos;s local stdio bridge
                {server.bridge ? <span className="badge"> bridged</span> : null}
              </Tick>
            ) : null}
            {dialog.removing?.serverId === server.serverId ? (
              <RemoveServer name={server.name} serverId={server.serverId} usedBy={dialog.removing.usedBy} />
            ) : (
              <ServerActions
                name={server.name}
                onEdit={() => setEditing(server.serverId)}
                onRemove={() => void askRemove(server.serverId)}
              />
            )}
            {dialog.editing === server.serverId ? <ServerForm key={server.serverId} server={server} /> : null}
          </li>
        ))}
      </ul>
      {dialog.servers.length > 0 ? <SaveSet /> : null}
      <div className="dialog-actions">
        <button type="button" onClick={() => setAdding(true)}>
          Add server
        </button>
        <button type="button" disabled={dialog.busy} onClick={() => void scanImports()}>
          Import servers
        </button>
      </div>
      {dialog.adding ? <ServerForm /> : null}
      <ImportList />
      {isConversation && nextWithoutTools ? (
        <section aria-label="Tools">
          <h3>Tools this agent sees</h3>
          <p>{`None: your next message goes to ${nextWithoutTools}, which uses no MCP servers, so none of these reach it.`}</p>
        </section>
      ) : isConversation ? (
        <section aria-label="Tools">
          <h3>Tools this agent sees</h3>
          {dialog.tools === null ? <p aria-busy="true">Asking the servers…</p> : null}
          {dialog.toolsNote ? <p className="hint">{dialog.toolsNote}</p> : null}
          <ul aria-label="Tools this agent sees">
            {(dialog.tools ?? []).map((server) => (
              <li key={server.name}>
                <strong>{server.name}</strong>:{' '}
                {server.error ? <span role="alert">{server.error}</span> : server.tools.length === 0 ? 'no tools' : server.tools.join(', ')}
                {!server.error && server.tools.length > 0 && server.calledByAgent.length === 0 ? (
                  <span className="hint"> (the agent has not called any of them yet)</span>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {dialog.problem ? <Banner kind="error">{dialog.problem}</Banner> : null}
    </DialogFrame>
  );
}
