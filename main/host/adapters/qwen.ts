/** Qwen Code in ACP mode (`qwen --acp`). */
import { builtinAdapter } from './builtinAdapter.js';
import { qwenProcessPerSession } from './quirks/qwenProcessPerSession.js';

/** Qwen Code. */
export const qwenAdapter = builtinAdapter({
  agentId: 'qwen',
  displayName: 'Qwen',
  command: 'qwen',
  args: ['--acp'],
  oldestSupported: '0.24.0',
  npmPackages: ['@qwen-code/qwen-code@0.24.4'],
  // Replace: QWEN_SYSTEM_MD names a file (the core prompt; its tool list and QWEN.md still follow).
  // Append: --append-system-prompt, its only channel, a command-line argument.
  instructions: {
    capability: {
      replace: { level: 'system', via: 'QWEN_SYSTEM_MD naming a file Baton writes' },
      append: { level: 'system', via: '--append-system-prompt', visibleInProcessList: true },
    },
    project: (launch, delivered, folder) => {
      const env =
        delivered.replace === null ? launch.env : { ...launch.env, QWEN_SYSTEM_MD: folder().write('system.md', delivered.replace) };
      const args = delivered.append === null ? launch.args : [...launch.args, '--append-system-prompt', delivered.append];
      return { ...launch, env, args };
    },
    ownPromptEnv: { replace: ['QWEN_SYSTEM_MD'] },
  },
  mcpToolTitle: 'mcp__{server}__{tool}',
  asksBeforeMcpTools: true,
  // 0.24 starts a new session in "auto" (its classifier decides) unless asked otherwise.
  modes: { asking: 'default', selfApproving: ['auto', 'yolo'] },
  saveGraceMs: 1_500,
  // 0.24 defers MCP tools behind its tool_search tool.
  loadsToolsOnDemand: true,
  // 0.24 discovers MCP servers in the background and lets a turn go without those still starting
  // (measured: a server four seconds slow had no tools in the first turn). Its own switch back to
  // discovering them before the session is ready:
  env: { QWEN_CODE_LEGACY_MCP_BLOCKING: '1' },
  ...qwenProcessPerSession,
});
