/**
 * The settings page, in place of the conversation: agents (catalog, capability cards, logins), machines,
 * toolboxes, instructions, permissions (the "always" answers, revocable), notifications, appearance, the data
 * folder and export. Sections are tabs (Radix Tabs: arrow keys move between them).
 */
import * as Tabs from '@radix-ui/react-tabs';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { applyTheme, readTheme, type ThemeChoice } from '../../persisted/theme.js';
import { useCopy } from '../../components/useCopy.js';
import { useBaton } from '../../store/index.js';
import { Banners } from '../chat/ChatView.js';
import { ServerActions } from '../toolbox/ToolboxDialog.js';
import type { SettingsSection } from '../../store/types.js';
import { MachinesSettings } from '../machines/MachinesSettings.js';
import { AgentsSettings } from './AgentsSettings.js';
import { NotificationsSettings } from './NotificationsSettings.js';
import { PermissionsSettings } from './PermissionsSettings.js';
import { Tick } from '../../components/Tick.js';

/** The sections, in order: the tab's label and what it shows. */
const SECTIONS: ReadonlyArray<{ section: SettingsSection; label: string; Panel: () => ReactNode }> = [
  { section: 'agents', label: 'Agents', Panel: AgentsSettings },
  { section: 'machines', label: 'Machines', Panel: MachinesSettings },
  { section: 'toolboxes', label: 'Toolboxes', Panel: ToolboxesSettings },
  { section: 'instructions', label: 'Instructions', Panel: InstructionsSettings },
  { section: 'permissions', label: 'Permissions', Panel: PermissionsSettings },
  { section: 'notifications', label: 'Notifications', Panel: NotificationsSettings },
  { section: 'appearance', label: 'Appearance', Panel: AppearanceSettings },
  { section: 'data', label: 'Data folder', Panel: DataFolderSettings },
  { section: 'export', label: 'Export', Panel: ExportSettings },
];

/** The page, while open. */
export function SettingsPage() {
  const settings = useBaton((state) => state.settings);
  const closeSettings = useBaton((state) => state.closeSettings);
  const showSettingsSection = useBaton((state) => state.showSettingsSection);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  if (!settings) {
    return null;
  }
  return (
    <main
      className="chat settings-page"
      aria-label="Settings"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !document.querySelector('dialog[open]')) {
          event.preventDefault();
          closeSettings();
        }
      }}
    >
      <div className="settings-header">
        <h1 ref={heading} tabIndex={-1}>
          Settings
        </h1>
        <button type="button" onClick={() => closeSettings()}>
          Close settings
        </button>
      </div>
      <Banners />
      <Tabs.Root
        className="settings-tabs"
        orientation="vertical"
        value={settings.section}
        onValueChange={(value) => showSettingsSection(value as SettingsSection)}
      >
        <Tabs.List className="settings-sections" aria-label="Settings sections">
          {SECTIONS.map(({ section, label }) => (
            <Tabs.Trigger key={section} value={section} className="settings-tab">
              {label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        {SECTIONS.map(({ section, Panel }) => (
          <Tabs.Content key={section} value={section} className="settings-section">
            <Panel />
          </Tabs.Content>
        ))}
      </Tabs.Root>
    </main>
  );
}

/** The toolbox catalog at a glance; the Toolbox dialog changes it. */
function ToolboxesSettings() {
  const servers = useBaton((state) => state.settings?.servers ?? null);
  const toolboxes = useBaton((state) => state.settings?.toolboxes ?? []);
  const openToolbox = useBaton((state) => state.openToolbox);
  const setEditing = useBaton((state) => state.setEditing);
  const askRemove = useBaton((state) => state.askRemoveServer);
  return (
    <>
      <h2>Toolboxes</h2>
      <p className="muted">
        The MCP servers conversations may use. Each conversation gets only the servers you check for it in its Toolbox.
      </p>
      {servers === null ? (
        <p aria-busy="true">Reading the toolbox…</p>
      ) : servers.length === 0 ? (
        <p>No servers yet.</p>
      ) : (
        <ul className="settings-list" aria-label="Servers">
          {servers.map((server) => (
            <li key={server.serverId}>
              <strong>{server.name}</strong>{' '}
              <span className="muted">
                · {server.transport}
                {server.bridge ? ' through Baton’s bridge' : ''} ·{' '}
                {server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : server.url}
              </span>{' '}
              <ServerActions
                name={server.name}
                onEdit={() => void openToolbox('default').then(() => setEditing(server.serverId))}
                onRemove={() => void openToolbox('default').then(() => askRemove(server.serverId))}
              />
            </li>
          ))}
        </ul>
      )}
      {toolboxes.length > 0 ? (
        <ul className="settings-list" aria-label="Named toolboxes">
          {toolboxes.map((toolbox) => (
            <li key={toolbox.toolboxId}>
              <strong>{toolbox.name}</strong>
              {toolbox.isDefault ? ' (default for new conversations)' : ''}{' '}
              <span className="muted">· {toolbox.serverIds.length} servers</span>
            </li>
          ))}
        </ul>
      ) : null}
      <button type="button" onClick={() => void openToolbox('default')}>
        Edit the default toolbox…
      </button>
    </>
  );
}

/** The person's own instructions at a glance; the Instructions dialog edits every source. */
function InstructionsSettings() {
  const person = useBaton((state) => state.settings?.person ?? null);
  const openInstructions = useBaton((state) => state.openInstructions);
  return (
    <>
      <h2>Instructions</h2>
      <p className="muted">
        Your own instructions go to every conversation, with the working folder’s (once you trust them), the agent’s profile and the
        conversation’s own.
      </p>
      {person === null ? (
        <p aria-busy="true">Reading your instructions…</p>
      ) : person.text.trim() === '' ? (
        <p>You have not written any instructions yet.</p>
      ) : (
        <figure className="settings-quote">
          <figcaption>
            Your instructions ({person.intent === 'replace' ? 'replacing the agent’s own' : 'added to the agent’s own'})
          </figcaption>
          <blockquote>{person.text}</blockquote>
        </figure>
      )}
      <button type="button" onClick={() => void openInstructions()}>
        Edit instructions…
      </button>
    </>
  );
}

/** The theme. */
function AppearanceSettings() {
  return (
    <>
      <h2>Appearance</h2>
      <ThemePicker />
    </>
  );
}

/** Select "Theme": the system's, or light or dark whatever the system says. */
function ThemePicker() {
  const [theme, setTheme] = useState<ThemeChoice>(readTheme);
  return (
    <label className="field">
      <span>Theme</span>
      <select
        aria-label="Theme"
        value={theme}
        onChange={(event) => {
          const choice = event.target.value as ThemeChoice;
          applyTheme(choice);
          setTheme(choice);
        }}
      >
        <option value="system">As the system</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

/** Where Baton keeps everything, and its version. */
function DataFolderSettings() {
  const dataDir = useBaton((state) => state.dataDir);
  const version = useBaton((state) => state.version);
  const usage = useBaton((state) => state.dataFolderUsage);
  const loadUsage = useBaton((state) => state.loadDataFolderUsage);
  useEffect(() => void loadUsage(), [loadUsage]);
  const [copied, copy] = useCopy();
  return (
    <>
      <h2>Data folder</h2>
      <p className="muted">
        Every conversation, your settings, the toolbox (secrets encrypted) and the agents Baton installed live in this folder. Copy it to
        back everything up; set BATON_DATA_DIR to use another.
      </p>
      <p>
        <code aria-label="Data folder path">{dataDir || '…'}</code>{' '}
        <button type="button" disabled={!dataDir} onClick={() => copy(dataDir)}>
          {copied ? 'Copied' : 'Copy path'}
        </button>
      </p>
      <p aria-label="Checkpoints">
        Checkpoints of working folders (kept as long as their conversations): {usage ? formatBytes(usage.checkpointBytes) : '…'}
      </p>
      {usage ? <CheckpointSettings off={usage.checkpointsOff} maxFileMegabytes={usage.maxFileMegabytes} /> : null}
      <LogView />
      {version ? <p className="muted">Baton {version}</p> : null}
    </>
  );
}

/** Baton's log: its last lines on request (the web host has no menu to reveal the file). */
function LogView() {
  const tail = useBaton((state) => state.logTail);
  const load = useBaton((state) => state.loadLog);
  return (
    <section className="log-view" aria-label="Baton's log">
      <h3>Log</h3>
      <button type="button" onClick={() => void load()}>
        {tail ? 'Show the latest lines' : 'Show the log'}
      </button>
      {tail ? (
        <>
          <p className="muted">
            {tail.file ? (
              <>
                The last {tail.lines.length} lines of <code>{tail.file}</code>. It says what happened, never what you or the agents wrote.
              </>
            ) : (
              'This Baton keeps no log file.'
            )}
          </p>
          {tail.lines.length > 0 ? (
            <pre className="log-lines" aria-label="Log lines" tabIndex={0}>
              {tail.lines.join('\n')}
            </pre>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** Whether turns take checkpoints of their folder (what rewinds put back), and the largest file one keeps. */
function CheckpointSettings({ off, maxFileMegabytes }: { off: boolean; maxFileMegabytes: number }) {
  const save = useBaton((state) => state.setCheckpointSettings);
  const [size, setSize] = useState(String(maxFileMegabytes));
  useEffect(() => setSize(String(maxFileMegabytes)), [maxFileMegabytes]);
  const valid = Number(size) > 0 && Number(size) <= 10_000;
  return (
    <fieldset className="checkpoint-settings">
      <legend>Checkpoint settings</legend>
      <Tick className="checkbox" checked={!off} onChange={(checked) => void save({ off: !checked })}>
        Take a checkpoint of the working folder around each turn (what a rewind puts back)
      </Tick>
      <label className="field">
        <span>Largest file kept (MB)</span>
        <input
          type="number"
          min="0.1"
          max="10000"
          step="any"
          value={size}
          aria-invalid={!valid}
          onChange={(event) => setSize(event.target.value)}
          onBlur={() => valid && Number(size) !== maxFileMegabytes && void save({ maxFileMegabytes: Number(size) })}
        />
      </label>
      <p className="muted">Larger files are listed on the turn, not kept, and a rewind cannot put them back.</p>
    </fieldset>
  );
}

function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Every conversation at once; one conversation exports from its own menu. */
function ExportSettings() {
  const exportAll = useBaton((state) => state.exportAll);
  return (
    <>
      <h2>Export</h2>
      <p className="muted">
        Saves every conversation that is not in the trash, newest first, as one Markdown file. To export one conversation as JSONL (which
        Baton can import again), use Export JSONL in its menu.
      </p>
      <button type="button" onClick={() => void exportAll()}>
        Export all conversations
      </button>
    </>
  );
}
