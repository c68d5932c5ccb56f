/** Codex through Zed's ACP adapter (`codex-acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** Codex. */
export const codexAdapter = builtinAdapter({
  agentId: 'codex',
  displayName: 'Codex',
  command: 'codex-acp',
  args: [],
  npmPackages: ['@zed-industries/codex-acp@0.16.0'],
  // Replace: model_instructions_file, read by each new process. Codex has no system-level append
  // (developer_instructions lands as a developer message, frozen into a session at creation).
  instructions: {
    capability: { replace: { level: 'system', via: 'model_instructions_file (a file Baton writes), set at launch' } },
    project: (launch, delivered, folder) =>
      delivered.replace === null ? launch : { ...launch, args: [...launch.args, '-c', `model_instructions_file=${JSON.stringify(folder().write('instructions.md', delivered.replace))}`] },
  },
  asksBeforeMcpTools: false,
  // Newer adapters drop a client server whose name collides with one in the person's own Codex
  // config unless this is set: Baton's choice must reach Codex as it is.
  env: { DISABLE_MCP_CONFIG_FILTERING: 'true' },
});
