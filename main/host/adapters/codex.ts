/** Codex through the ACP adapter `codex-acp` (`@agentclientprotocol`, formerly `@zed-industries`). */
import { builtinAdapter } from './builtinAdapter.js';
import { codexSingleProcess } from './quirks/codexSingleProcess.js';

/** The person's own CODEX_CONFIG, when it is a JSON object. */
function ownCodexConfig(text: string | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Codex. */
export const codexAdapter = builtinAdapter({
  agentId: 'codex',
  displayName: 'Codex',
  command: 'codex-acp',
  args: [],
  oldestSupported: '2.6.0',
  npmPackages: ['@agentclientprotocol/codex-acp@2.6.0'],
  // Append: the ACP standard systemPrompt (2.6 advertises append only), which Codex puts in its
  // developer instructions. Replace: model_instructions_file, read by each new process.
  instructions: {
    standard: {
      level: 'developer',
      lands: "Codex's developer instructions: above the conversation, below Codex's own prompt",
      expected: { append: true, override: false },
    },
    capability: { replace: { level: 'system', via: 'model_instructions_file (a file Baton writes), set at launch through CODEX_CONFIG' } },
    // codex-acp 2.x takes Codex config as JSON in CODEX_CONFIG (its command line is not read): the
    // person's own CODEX_CONFIG is kept, with model_instructions_file added.
    project: (launch, delivered, folder) => {
      if (delivered.replace === null) {
        return launch;
      }
      const file = folder().write('instructions.md', delivered.replace);
      return {
        ...launch,
        env: { ...launch.env, CODEX_CONFIG: JSON.stringify({ ...ownCodexConfig(launch.env.CODEX_CONFIG), model_instructions_file: file }) },
      };
    },
  },
  mcpToolTitle: '{server}/{tool}',
  asksBeforeMcpTools: false,
  // 2.6 starts in "agent" (Auto review: a reviewer model approves what it judges safe).
  modes: { asking: 'read-only', selfApproving: ['agent', 'agent-full-access'] },
  ...codexSingleProcess,
  // Newer adapters drop a client server whose name collides with one in the person's own Codex
  // config unless this is set: Baton's choice must reach Codex as it is.
  env: { DISABLE_MCP_CONFIG_FILTERING: 'true' },
  // codex-acp 2.6 answers session/new while the servers still start, and Codex gives a server one
  // second before a turn goes without its tools: on a busy machine the first turn had none. Asked
  // this way, codex-acp answers once each server is ready or has failed (a failure is reported).
  toolboxSessionMeta: { mcpStartupAwaitTimeoutMs: 30_000 },
});
