/**
 * The agents Baton offers: its built-in adapters (each with what the ACP Registry says of it),
 * every other agent of the registry that has a distribution for this platform, and custom agents
 * from `agents.json`; each checked for an executable. An agent the person installed (on PATH)
 * comes first, then Baton's own install.
 */
import path from 'node:path';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import { registryPlatform, type RegistryIndex } from '../../../app/agents/registry.js';
import { NotFoundError } from '../../../app/errors.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import { claudeAdapter } from '../adapters/claude.js';
import { codexAdapter } from '../adapters/codex.js';
import { geminiAdapter } from '../adapters/gemini.js';
import { opencodeAdapter } from '../adapters/opencode.js';
import { piAdapter } from '../adapters/pi.js';
import { qwenAdapter } from '../adapters/qwen.js';
import { compareVersions } from '../adapters/versions.js';
import type { Env } from '../process/env.js';
import { findExecutable } from '../machine/findExecutable.js';
import { packageVersion } from '../machine/packageVersion.js';
import { dataFileStamp } from '../store/dataFiles.js';
import type { AgentInstaller } from './AgentInstaller.js';
import { readCustomAgents, type CustomAgentsResult } from './customAgents.js';
import type { AgentRegistry } from './registry/AgentRegistry.js';
import { registryAdapters } from './registry/registryAdapters.js';

/** Built-in adapters in picker order. */
export const builtinAdapters: readonly AgentAdapter[] = [
  claudeAdapter,
  codexAdapter,
  geminiAdapter,
  qwenAdapter,
  opencodeAdapter,
  piAdapter,
];

/** What the catalog answers: its agents, and why `agents.json` was not read, if it was not. */
export type CatalogList = { agents: AgentInfo[]; agentsFileProblem: string | null };

/** Finds agents and answers which are usable. */
export class AgentCatalog {
  /** The registry's agents as adapters, made again when the index changes. */
  private fromRegistry: { index: RegistryIndex; builtins: AgentAdapter[]; adapters: AgentAdapter[] } | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly env: Env,
    /** Baton's own installs; without it, only agents on PATH are found. */
    readonly installer?: AgentInstaller,
    /** The ACP Registry; without it, only the built-ins and custom agents are offered. */
    readonly registry?: AgentRegistry,
  ) {}

  /** `agents.json` as last read, with the size and time of change it had then. */
  private custom: { stamp: string; result: CustomAgentsResult } | undefined;

  /**
   * `agents.json`, read again only when it changed (its size or time of change), so edits show
   * without a restart while callers on hot paths (redaction asks on every commit) cost one stat.
   */
  private customAgents(): CustomAgentsResult {
    const file = this.agentsFile();
    // Absent or unreadable: readCustomAgents says which.
    const stamp = dataFileStamp(file) ?? 'absent';
    if (this.custom?.stamp !== stamp || stamp === 'absent') {
      this.custom = { stamp, result: readCustomAgents(file) };
    }
    return this.custom.result;
  }

  /** The built-ins (with their registry facts) and the registry's other agents. */
  private registryPart(): { builtins: readonly AgentAdapter[]; adapters: readonly AgentAdapter[] } {
    const index = this.registry?.index;
    if (!index) {
      return { builtins: builtinAdapters, adapters: [] };
    }
    if (this.fromRegistry?.index !== index) {
      this.fromRegistry = { index, ...registryAdapters(builtinAdapters, index, registryPlatform(process.platform, process.arch)) };
    }
    return this.fromRegistry;
  }

  /** All adapters, with `agents.json`'s as it is now. */
  adapters(): AgentAdapter[] {
    const { builtins, adapters } = this.registryPart();
    return [...builtins, ...adapters, ...this.customAgents().adapters];
  }

  /** The picker's entries, with availability, and why `agents.json` was not read. */
  list(): CatalogList {
    const custom = this.customAgents();
    const { builtins, adapters } = this.registryPart();
    return {
      agents: [...builtins, ...adapters, ...custom.adapters].map((adapter) => this.describe(adapter)),
      agentsFileProblem: custom.problem ?? null,
    };
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
    const managed =
      adapter.oldestSupported !== undefined && tooOld(adapter, packageVersion(own)) ? this.managedExecutable(adapter) : undefined;
    return managed && !tooOld(adapter, packageVersion(managed)) ? managed : own;
  }

  /** The version of the copy that would run, and whether it is older than Baton supports. */
  runningVersion(adapter: AgentAdapter): { version: string | undefined; tooOld: boolean } {
    const executable = this.resolve(adapter);
    const version = executable ? (packageVersion(executable) ?? this.installer?.installedVersion(adapter)) : undefined;
    return { version, tooOld: tooOld(adapter, version) };
  }

  private ownExecutable(adapter: AgentAdapter): string | undefined {
    return adapter.onPath === false ? undefined : findExecutable(adapter.command, { ...this.env, ...adapter.env });
  }

  private managedExecutable(adapter: AgentAdapter): string | undefined {
    const installer = this.installer;
    if (!installer || (!installer.packages(adapter) && !adapter.archive)) {
      return undefined;
    }
    return (
      installer.installedExecutable(adapter) ??
      findExecutable(adapter.command, { PATH: installer.binDir(adapter), PATHEXT: this.env.PATHEXT ?? '' })
    );
  }

  private describe(adapter: AgentAdapter): AgentInfo {
    const executable = this.resolve(adapter);
    const managedPath = executable !== undefined && executable !== this.ownExecutable(adapter) ? executable : undefined;
    const available = executable !== undefined;
    const installer = this.installer;
    const version = executable ? (packageVersion(executable) ?? installer?.installedVersion(adapter)) : undefined;
    const installable = installer !== undefined && (installer.packages(adapter) !== undefined || adapter.archive !== undefined);
    // A registry agent is pinned to the registry's version; a built-in to the version Baton tests.
    const pinned = adapter.source === 'registry' ? adapter.registry?.version : installer?.pinnedVersion(adapter);
    const installed = installer?.installedVersion(adapter);
    const update = installed && pinned && compareVersions(pinned, installed) > 0 ? { update: pinned } : {};
    const managed = installable
      ? { ...(pinned ? { pinned } : {}), ...(installed ? { installed } : {}), inUse: managedPath !== undefined, ...update }
      : undefined;
    const icon = adapter.registry ? this.registry?.icon(adapter.registry.id) : undefined;
    return {
      agentId: adapter.agentId,
      displayName: adapter.displayName,
      source: adapter.source,
      tested: adapter.source === 'builtin',
      ...(adapter.registry ? { description: adapter.registry.description } : {}),
      ...(icon ? { icon } : {}),
      ...(adapter.registry
        ? {
            registry: {
              id: adapter.registry.id,
              version: adapter.registry.version,
              distribution: adapter.registry.distribution,
              ...(adapter.registry.website ? { website: adapter.registry.website } : {}),
              ...(adapter.registry.repository ? { repository: adapter.registry.repository } : {}),
              ...(adapter.registry.license ? { license: adapter.registry.license } : {}),
              ...(adapter.archive && adapter.archive.sha256 === undefined ? { unverified: true } : {}),
            },
          }
        : {}),
      command: [adapter.command, ...adapter.args].join(' '),
      available,
      usesTools: adapter.takesMcpServers !== false,
      ...(version ? { version } : {}),
      ...(executable ? { path: path.resolve(executable) } : {}),
      ...(available ? {} : { unavailableReason: this.whyUnavailable(adapter, installable) }),
      ...(adapter.installHint ? { installHint: adapter.installHint } : {}),
      ...(managed ? { managed } : {}),
    };
  }

  private whyUnavailable(adapter: AgentAdapter, installable: boolean): string {
    if (adapter.command === 'uvx' && adapter.source === 'registry') {
      return 'it runs with uv (uvx), which was not found on PATH.';
    }
    if (installable && adapter.onPath === false) {
      return 'it is not installed yet.';
    }
    return `"${adapter.command}" was not found on PATH.`;
  }

  private agentsFile(): string {
    return path.join(this.dataDir, 'agents.json');
  }
}

/** True when the version is known and older than the oldest release Baton supports for the agent. */
function tooOld(adapter: AgentAdapter, version: string | undefined): boolean {
  return adapter.oldestSupported !== undefined && version !== undefined && compareVersions(version, adapter.oldestSupported) < 0;
}
