/** Claude Code through the ACP adapter `claude-agent-acp` (`@agentclientprotocol`, formerly `@zed-industries`). */
import type { Env } from './AgentAdapter.js';
import { builtinAdapter } from './builtinAdapter.js';
import { claudeForkAtMessage } from './quirks/claudeForkAtMessage.js';
import { claudeStaleEndOfTurn } from './quirks/claudeStaleEndOfTurn.js';

/**
 * Quirk: run as root, the adapter asks Claude Code to skip permission prompts whenever
 * `IS_SANDBOX` is non-empty, and Claude Code refuses unless it is exactly "1"; session/new then
 * fails with an opaque "Query closed before response received". Baton never skips permissions
 * on its own, so any other value is removed.
 */
export function withoutForeignSandboxFlag(env: Env): Env {
  if (env.IS_SANDBOX === undefined || env.IS_SANDBOX === '1') {
    return env;
  }
  const { IS_SANDBOX: _dropped, ...rest } = env;
  return rest;
}

/** Claude Code. */
export const claudeAdapter = builtinAdapter({
  agentId: 'claude',
  displayName: 'Claude',
  command: 'claude-agent-acp',
  args: [],
  oldestSupported: '0.101.0',
  npmPackages: ['@agentclientprotocol/claude-agent-acp@0.101.0'],
  // The ACP standard systemPrompt (0.101 advertises append and mode.override; its text lands in
  // the model's system prompt). Adapters before it: _meta.systemPrompt, a string to replace,
  // { append } to add. Neither is remembered, so it goes on every session/new, load and resume.
  instructions: {
    standard: { level: 'system', expected: { append: true, override: true } },
    capability: {
      replace: { level: 'system', via: '_meta.systemPrompt (a string) on session/new, load and resume' },
      append: { level: 'system', via: '_meta.systemPrompt.append on session/new, load and resume' },
    },
    sessionMeta: ({ replace, append }) =>
      replace !== null
        ? { systemPrompt: append === null ? replace : `${replace}\n\n${append}` }
        : append !== null
          ? { systemPrompt: { append } }
          : undefined,
  },
  mcpToolTitle: 'mcp__{server}__{tool}',
  asksBeforeMcpTools: true,
  // 0.101 starts a new session in "auto" (Claude's classifier decides) unless asked otherwise.
  modes: { asking: 'default', selfApproving: ['auto', 'dontAsk', 'bypassPermissions'] },
  // 0.101 starts Claude Code with --mcp-config '<json>', environment values and headers included.
  exposesServerConfig: true,
  // 0.101 defers MCP tools behind its ToolSearch tool.
  loadsToolsOnDemand: true,
  // Claude Code writes the rules it suggests for "Always Allow" into the project's local settings.
  savedRuleFiles: ['.claude/settings.local.json'],
  projectEnv: (env) => withoutForeignSandboxFlag(env),
  ...claudeStaleEndOfTurn,
  ...claudeForkAtMessage,
  // Setting the model through its config option records "/model" and its output as user messages.
  isOwnReplayedMessage: (text) => /^\s*<(command-name|command-message|local-command-stdout|local-command-stderr)>/.test(text),
});
