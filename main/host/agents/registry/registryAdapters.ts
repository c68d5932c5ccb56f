/**
 * The ACP Registry's agents as Baton's adapters. An entry whose package (or id) is one of Baton's
 * built-in agents is that agent, not a second row: the built-in keeps its adapter, its quirks and
 * its pinned, tested version, and gains the entry's description. Every other entry becomes an
 * adapter of its own (`registry:<id>`) whose channels are read from its `initialize` answer, as
 * for custom agents: installed from npm at the entry's exact version, from the archive for this
 * platform (checked against its sha256), or run with `uvx` where uv is installed.
 */
import {
  distributionFor,
  npmPackageName,
  type RegistryAgent,
  type RegistryIndex,
  type RegistryPlatform,
} from '../../../../app/agents/registry.js';
import type { AgentAdapter, RegistryFacts } from '../../adapters/AgentAdapter.js';

/** The agent id Baton gives a registry entry that is not one of its built-ins. */
export function registryAgentId(entryId: string): string {
  return `registry:${entryId}`;
}

/** How the agent uv runs Python agents with is found, and how to get it when it is not. */
export const UV_HINT =
  'It runs with uv (uvx), which is not installed: install uv from https://docs.astral.sh/uv/getting-started/installation/ (for example `curl -LsSf https://astral.sh/uv/install.sh | sh`, `brew install uv` or `pipx install uv`), then reopen the picker.';

/**
 * Names that tell entries apart: entries that share a name (the registry lists GitHub Copilot's
 * language server and its CLI, both "GitHub Copilot") each add what their id says beyond the
 * words all their ids share ("github-copilot-cli" → "GitHub Copilot CLI").
 */
export function distinctNames(agents: readonly Pick<RegistryAgent, 'id' | 'name'>[]): Map<string, string> {
  const names = new Map<string, string>();
  const groups = new Map<string, Array<Pick<RegistryAgent, 'id' | 'name'>>>();
  for (const agent of agents) {
    groups.set(agent.name.toLowerCase(), [...(groups.get(agent.name.toLowerCase()) ?? []), agent]);
  }
  for (const group of groups.values()) {
    const words = group.map((agent) => agent.id.split('-'));
    let shared = 0;
    while (words.every((list) => list[shared] !== undefined && list[shared] === words[0]![shared])) {
      shared += 1;
    }
    for (const [index, agent] of group.entries()) {
      const rest = group.length > 1 ? words[index]!.slice(shared) : [];
      const suffix = rest.map((word) => (word.length <= 3 ? word.toUpperCase() : `${word[0]!.toUpperCase()}${word.slice(1)}`)).join(' ');
      names.set(agent.id, suffix ? `${agent.name} ${suffix}` : agent.name);
    }
  }
  return names;
}

/** The registry entry that is this built-in agent, if any: the same npm package, or the same id. */
function entryOf(builtin: AgentAdapter, index: RegistryIndex): RegistryAgent | undefined {
  const packages = new Set((builtin.npmPackages ?? []).map(npmPackageName));
  return index.agents.find(
    (agent) =>
      agent.id === builtin.agentId ||
      (agent.distribution.npx !== undefined && packages.has(npmPackageName(agent.distribution.npx.package))),
  );
}

function facts(agent: RegistryAgent, distribution: RegistryFacts['distribution']): RegistryFacts {
  return {
    id: agent.id,
    version: agent.version,
    description: agent.description,
    distribution,
    ...(agent.website ? { website: agent.website } : {}),
    ...(agent.repository ? { repository: agent.repository } : {}),
    ...(agent.license ? { license: agent.license } : {}),
  };
}

/**
 * The built-ins with what the registry says of them, and an adapter for every other entry that
 * has a distribution for this platform (those without one are left out, with why, in `missing`).
 */
export function registryAdapters(
  builtins: readonly AgentAdapter[],
  index: RegistryIndex,
  platform: RegistryPlatform | undefined,
): { builtins: AgentAdapter[]; adapters: AgentAdapter[]; missing: Array<{ id: string; name: string; reason: string }> } {
  const claimed = new Set<string>();
  const known = builtins.map((builtin) => {
    const entry = entryOf(builtin, index);
    if (!entry) {
      return builtin;
    }
    claimed.add(entry.id);
    return { ...builtin, registry: facts(entry, entry.distribution.npx ? 'npx' : entry.distribution.binary ? 'binary' : 'uvx') };
  });
  const adapters: AgentAdapter[] = [];
  const missing: Array<{ id: string; name: string; reason: string }> = [];
  const names = distinctNames(index.agents.filter((agent) => !claimed.has(agent.id)));
  for (const agent of index.agents) {
    if (claimed.has(agent.id)) {
      continue;
    }
    const distribution = distributionFor(agent, platform);
    if (!distribution) {
      missing.push({
        id: agent.id,
        name: agent.name,
        reason: `it is published only for ${Object.keys(agent.distribution.binary ?? {}).join(', ')}`,
      });
      continue;
    }
    const base = {
      agentId: registryAgentId(agent.id),
      displayName: names.get(agent.id) ?? agent.name,
      source: 'registry' as const,
      env: distribution.env,
      // Channels are read from the agent's own answer to initialize, as for custom agents.
      instructions: { capability: 'negotiated' as const },
      registry: facts(agent, distribution.kind),
    };
    switch (distribution.kind) {
      case 'npx':
        adapters.push({
          ...base,
          command: distribution.cmd ?? npmPackageName(distribution.package).split('/').at(-1)!,
          args: distribution.args,
          npmPackages: [distribution.package],
          onPath: distribution.cmd !== undefined,
        });
        break;
      case 'binary': {
        // The npm package of the same entry, where it runs the same way: installed when the archive cannot be had.
        const npx = agent.distribution.npx;
        const sameLaunch =
          npx !== undefined &&
          JSON.stringify(npx.args) === JSON.stringify(distribution.args) &&
          JSON.stringify(npx.env) === JSON.stringify(distribution.env);
        adapters.push({
          ...base,
          command: distribution.cmd.split(/[\\/]/).at(-1)!,
          args: distribution.args,
          archive: { url: distribution.archive, cmd: distribution.cmd, ...(distribution.sha256 ? { sha256: distribution.sha256 } : {}) },
          ...(sameLaunch ? { npmPackages: [npx.package] } : {}),
          onPath: false,
        });
        break;
      }
      case 'uvx':
        adapters.push({ ...base, command: 'uvx', args: [distribution.package, ...distribution.args], installHint: UV_HINT });
        break;
    }
  }
  return { builtins: known, adapters, missing };
}
