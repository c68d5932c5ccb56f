/** Codex through the ACP adapter `codex-acp` (`@agentclientprotocol`, formerly `@zed-industries`). */
import { builtinAdapter } from './builtinAdapter.js';
import { codexSingleProcess } from './quirks/codexSingleProcess.js';

/** Codex. */
export const codexAdapter = builtinAdapter({
  agentId: 'codex',
  displayName: 'Codex',
  command: 'codex-acp',
  args: [],
  npmPackages: ['@agentclientprotocol/codex-acp@2.6.0'],
  // Append: the ACP standard systemPrompt (2.6 advertises append only), which Codex puts in its
  // developer instructions. Replace: model_instructions_file, read by each new process.
  instructions: {
    standard: { level: 'developer', lands: "Codex's developer instructions: above the conversation, below Codex's own prompt", expected: { append: true, override: false } },
    capability: { replace: { level: 'system', via: 'model_instructions_file (a file Baton writes), set at launch' } },
    project: (launch, delivered, folder) =>
      delivered.replace === null ? launch : { ...launch, args: [...launch.args, '-c', `model_instructions_file=${JSON.stringify(folder().write('instructions.md', delivered.replace))}`] },
  },
  asksBeforeMcpTools: false,
  // 2.6 starts in "agent" (Auto review: a reviewer model approves what it judges safe).
  modes: { asking: 'read-only', selfApproving: ['agent', 'agent-full-access'] },
  ...codexSingleProcess,
  // Newer adapters drop a client server whose name collides with one in the person's own Codex
  // config unless this is set: Baton's choice must reach Codex as it is.
  env: { DISABLE_MCP_CONFIG_FILTERING: 'true' },
});
