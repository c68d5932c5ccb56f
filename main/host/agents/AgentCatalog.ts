/** The agents Baton offers: built-in adapters plus custom ones, each checked for an executable. */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import { NotFoundError } from '../../../app/errors.js';
import { findExecutable } from '../process/findExecutable.js';
import { compareVersions } from '../adapters/versions.js';
import { packageVersion } from '../process/packageVersion.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import type { AgentInstaller } from './AgentInstaller.js';
import { claudeAdapter } from '../adapters/claude.js';
import { codexAdapter } from '../adapters/codex.js';
import { geminiAdapter } from '../adapters/gemini.js';
import { opencodeAdapter } from '../adapters/opencode.js';
import { piAdapter } from '../adapters/pi.js';
import { qwenAdapter } from '../adapters/qwen.js';
import { readCustomAgents, type CustomAgentsResult } from './customAgents.js';

/** Built-in adapters in picker order. */
export const builtinAdapters: readonly AgentAdapter[] = [claudeAdapter, codexAdapter, geminiAdapter, qwenAdapter, opencodeAdapter, piAdapter];

/** Finds agents and answers which are usable. */
export class AgentCatalog {
  constructor(
    private readonly dataDir: string,
    private readonly env: Env,
    /** Baton's own installs; without it, only agents on PATH are found. */
    readonly installer?: AgentInstaller,
  ) {}

  /** `agents.json` as last read, with the size and time of change it had then. */
  private custom: { stamp: string; result: CustomAgentsResult } | undefined;

  /**
   * `agents.json`, read again only when it changed (its size or time of change), so edits show
   * without a restart while callers on hot paths (redaction asks on every commit) cost one stat.
   */
  private customAgents(): CustomAgentsResult {
    const file = this.agentsFile();
    let stamp = 'absent';
    try {
      const info = statSync(file);
      stamp = `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch {
      // Absent or unreadable: readCustomAgents says which.
    }
    if (this.custom?.stamp !== stamp || stamp === 'absent') {
      this.custom = { stamp, result: readCustomAgents(file) };
    }
    return this.custom.result;
  }

  /** All adapters, with `agents.json`'s as it is now. */
  adapters(): AgentAdapter[] {
    return [...builtinAdapters, ...this.customAgents().adapters];
  }

  /** The picker's entries, with availability. */
  list(): AgentInfo[] {
    const custom = this.customAgents();
    const infos = [...builtinAdapters, ...custom.adapters].map((adapter) => this.describe(adapter));
    if (custom.problem) {
      infos.push({
        agentId: 'custom:agents-json',
        displayName: 'Custom agents (agents.json)',
        source: 'custom',
        command: this.agentsFile(),
        available: false,
        unavailableReason: custom.problem,
      });
    }
    return infos;
  }

  /** One adapter by id. */
  get(agentId: string): AgentAdapter {
    const adapter = this.adapters().find((candidate) => candidate.agentId === agentId);
    if (!adapter) {
      throw new NotFoundError('agent', agentId);
    }
    return adapter;
  }

  /**
   * Absolute path of the adapter's executable, or undefined when it is not installed. One the
   * person installed (on PATH) comes first; then Baton's own install. A copy on PATH older than
   * the oldest release Baton supports yields to Baton's own copy when that one is not: "Update" on
   * the outdated-agent warning installs it, and it is then the one used.
   */
  resolve(adapter: AgentAdapter): string | undefined {
    const own = this.ownExecutable(adapter);
    if (!own) {
      return this.managedExecutable(adapter);
    }
    // Looked at only when the person's copy is too old: this runs for every session Baton starts.
    const managed = adapter.oldestSupported !== undefined && tooOld(adapter, packageVersion(own)) ? this.managedExecutable(adapter) : undefined;
    return managed && !tooOld(adapter, packageVersion(managed)) ? managed : own;
  }

  private ownExecutable(adapter: AgentAdapter): string | undefined {
    return findExecutable(adapter.command, { ...this.env, ...adapter.env });
  }

  private managedExecutable(adapter: AgentAdapter): string | undefined {
    if (!this.installer?.packages(adapter)) {
      return undefined;
    }
    return findExecutable(adapter.command, { PATH: this.installer.binDir(adapter), PATHEXT: this.env.PATHEXT ?? '' });
  }

  private describe(adapter: AgentAdapter): AgentInfo {
    const executable = this.resolve(adapter);
    const managedPath = executable !== undefined && executable !== this.ownExecutable(adapter) ? executable : undefined;
    const available = executable !== undefined;
    const version = executable ? packageVersion(executable) : undefined;
    const installer = this.installer;
    const pinned = installer?.pinnedVersion(adapter);
    const installed = installer?.installedVersion(adapter);
    const managed = installer?.packages(adapter) ? { ...(pinned ? { pinned } : {}), ...(installed ? { installed } : {}), inUse: managedPath !== undefined } : undefined;
    return {
      agentId: adapter.agentId,
      displayName: adapter.displayName,
      source: adapter.source,
      command: [adapter.command, ...adapter.args].join(' '),
      available,
      ...(version ? { version } : {}),
      ...(executable ? { path: executable } : {}),
      ...(available ? {} : { unavailableReason: `"${adapter.command}" was not found on PATH.` }),
      ...(adapter.installHint ? { installHint: adapter.installHint } : {}),
      ...(managed ? { managed } : {}),
    };
  }

  private agentsFile(): string {
    return path.join(this.dataDir, 'agents.json');
  }
}

/** True when the version is known and older than the oldest release Baton supports for the agent. */
function tooOld(adapter: AgentAdapter, version: string | undefined): boolean {
  return adapter.oldestSupported !== undefined && version !== undefined && compareVersions(version, adapter.oldestSupported) < 0;
}
