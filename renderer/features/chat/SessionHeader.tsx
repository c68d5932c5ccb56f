/**
 * Agent picker and working folder. For a new conversation both can be chosen; once it exists the
 * folder stays, and the agent picker chooses who handles the next turn: the conversation passes
 * to that agent when the message is sent (not while a turn runs).
 */
import { recentFolders } from '../../persisted/recentFolders.js';
import { useBaton } from '../../store/index.js';
import { THIS_COMPUTER } from '../../store/slices/machinesSlice.js';
import { AgentPicker } from '../agents/AgentPicker.js';
import { AgentCard } from '../agents/AgentCard.js';
import { AgentSessions } from '../agents/AgentSessions.js';
import { InstallAction, ManagedAgent } from '../agents/AgentInstall.js';
import { DraftSessionOptions } from '../composer/SessionOptions.js';
import { FolderField } from './FolderField.js';
import { DevContainerOffer } from '../machines/DevContainerOffer.js';
import { MachineBlockedAlert, MachinePicker, MachineStatus } from '../machines/Machines.js';
import { ProcessSharing } from './ProcessSharing.js';
import { ToolsWaysOut } from '../composer/ToolsWaysOut.js';
import { Tip } from '../../components/Tip.js';
import { ScrollText, Wrench } from 'lucide-react';
import { selectActiveMachine, selectActiveSummary, selectActiveTranscript } from '../../store/selectors/transcript.js';

/** The header of the chat pane. */
export function SessionHeader() {
  const agents = useBaton((state) => state.agents);
  const draft = useBaton((state) => state.draft);
  const summary = useBaton(selectActiveSummary);
  const transcript = useBaton(selectActiveTranscript);
  const setDraftAgent = useBaton((state) => state.setDraftAgent);
  const setDraftCwd = useBaton((state) => state.setDraftCwd);
  const agentSessions = useBaton((state) => state.agentSessions);
  const openInstructions = useBaton((state) => state.openInstructions);
  const openToolbox = useBaton((state) => state.openToolbox);
  const nextAgent = useBaton((state) => (summary ? state.nextAgent[summary.conversationId] : undefined));
  const setNextAgent = useBaton((state) => state.setNextAgent);
  const agentId = summary ? (nextAgent ?? summary.agentId) : draft.agentId;
  const running = Boolean(transcript?.activeTurnId);
  const cwd = summary ? summary.cwd : draft.cwd;
  const selected = agents.find((agent) => agent.agentId === agentId);
  // Whether an agent is installed is known for this computer; on another machine the host looks there when it starts it.
  const here = useBaton(selectActiveMachine) === THIS_COMPUTER;
  // A bad agents.json is said where agents are picked, with where it goes wrong.
  const agentsFileProblem = useBaton((state) => state.agentsFileProblem);
  const bound = summary !== undefined;
  const opening = useBaton((state) => state.selection.kind === 'conversation') && !bound;
  if (opening) {
    // A conversation is being opened: show nothing of the new-conversation draft meanwhile.
    return <header className="session-header" aria-busy="true" />;
  }
  const switching = summary !== undefined && nextAgent !== undefined && nextAgent !== summary.agentId;
  const nextName = selected?.displayName ?? nextAgent;
  return (
    <header className={bound ? 'session-header compact' : 'session-header'}>
      <div className="field">
        <span className={bound ? 'visually-hidden' : undefined} aria-hidden="true">
          Agent
        </span>
        <AgentPicker
          agents={agents}
          value={agentId}
          disabled={running}
          {...(running ? { title: 'You can hand the conversation to another agent once this turn ends or is stopped' } : {})}
          onChange={(picked) => (summary ? setNextAgent(summary.conversationId, picked) : setDraftAgent(picked))}
          elsewhere={!here}
          {...(summary && !selected ? { extra: { agentId: summary.agentId, displayName: summary.agentName } } : {})}
        />
      </div>
      {agentsFileProblem ? (
        <p className="notice notice-warning agents-file-problem" role="alert">
          Your custom agents are not offered: {agentsFileProblem}
        </p>
      ) : null}
      {bound ? <MachineStatus machineId={summary.machine} /> : <MachinePicker />}
      <FolderField value={cwd} readOnly={bound} onChange={setDraftCwd} conversationId={summary?.conversationId} />
      {!bound && !draft.machineId ? <RecentFolders current={cwd} choose={setDraftCwd} /> : null}
      {!bound && !draft.machineId ? <DevContainerOffer folder={cwd} /> : null}
      <MachineBlockedAlert machineId={summary ? summary.machine : draft.machineId} />
      {bound ? (
        <>
          {/* In the one-row header: icon buttons, named as before, with a tooltip. */}
          <Tip text="Toolbox: the tools (MCP servers) this conversation may use">
            <button type="button" className="header-action pane-action icon-action" aria-label="Toolbox" onClick={() => void openToolbox()}>
              <Wrench size={16} aria-hidden="true" />
            </button>
          </Tip>
          <Tip text="Instructions: what the agents are told before every message, at the level you ask for">
            <button
              type="button"
              className="header-action pane-action icon-action"
              aria-label="Instructions"
              disabled={!agentId}
              onClick={() => void openInstructions()}
            >
              <ScrollText size={16} aria-hidden="true" />
            </button>
          </Tip>
        </>
      ) : (
        <>
          <button type="button" className="header-action pane-action" onClick={() => void openToolbox()}>
            Toolbox
            {draft.serverIds && draft.serverIds.length > 0 ? <span className="badge"> ({draft.serverIds.length})</span> : null}
          </button>
          <button type="button" className="header-action pane-action" disabled={!agentId} onClick={() => void openInstructions()}>
            Instructions
            {draft.instructions?.text.trim() ? (
              <span className="badge" aria-label="(this conversation has its own)">
                {' '}
                •
              </span>
            ) : null}
          </button>
        </>
      )}
      {summary ? (
        <ProcessSharing
          conversationId={summary.conversationId}
          activeTurnId={transcript?.activeTurnId ?? null}
          turns={transcript ? Object.keys(transcript.turns).length : 0}
        />
      ) : null}
      {switching ? (
        <p className="hint next-agent" role="status">
          Your next message goes to {nextName}, which picks up where {summary.agentName} stopped.
        </p>
      ) : null}
      <ToolsWaysOut />
      {!bound && selected?.available ? <DraftSessionOptions agentId={selected.agentId} agentName={selected.displayName} /> : null}
      {!bound && selected ? <AgentCard agentId={selected.agentId} available={selected.available} cwd={cwd} /> : null}
      {!bound && selected && agentSessions?.agentId === selected.agentId ? <AgentSessions agentName={selected.displayName} /> : null}
      {selected && !selected.available && here ? (
        <div className="agent-hint" role="note">
          <p>
            {selected.displayName} is not available: {selected.unavailableReason} {selected.installHint ?? ''}
          </p>
          <InstallAction agent={selected} />
        </div>
      ) : null}
      {!bound && selected?.available ? <ManagedAgent agent={selected} /> : null}
    </header>
  );
}

/** Group "Recent folders": the folders used last (remembered across reloads), one click to use again. */
function RecentFolders({ current, choose }: { current: string; choose: (folder: string) => void }) {
  const folders = recentFolders()
    .filter((folder) => folder !== current.trim())
    .slice(0, 4);
  if (folders.length === 0) {
    return null;
  }
  return (
    <div className="recent-folders" role="group" aria-label="Recent folders">
      <span className="hint">Recent:</span>
      {folders.map((folder) => (
        <Tip key={folder} text={folder}>
          <button type="button" onClick={() => choose(folder)}>
            {folder.split(/[\\/]/).filter(Boolean).at(-1) ?? folder}
          </button>
        </Tip>
      ))}
    </div>
  );
}
