/** Gemini CLI in ACP mode (`gemini --acp`). */
import { builtinAdapter } from './builtinAdapter.js';
import { geminiMissingFile } from './quirks/geminiMissingFile.js';

/** Gemini CLI. */
export const geminiAdapter = builtinAdapter({
  agentId: 'gemini',
  displayName: 'Gemini',
  command: 'gemini',
  args: ['--acp'],
  npmPackages: ['@google/gemini-cli@0.61.0'],
  // Replace: GEMINI_SYSTEM_MD with an absolute path (never "1", which reads .gemini/system.md from
  // the working folder). Gemini adds to its prompt only from the person's own ~/.gemini/GEMINI.md,
  // which Baton does not edit: append is refused.
  instructions: {
    capability: { replace: { level: 'system', via: 'GEMINI_SYSTEM_MD naming a file Baton writes' } },
    project: (launch, delivered, folder) =>
      delivered.replace === null
        ? launch
        : { ...launch, env: { ...launch.env, GEMINI_SYSTEM_MD: folder().write('system.md', delivered.replace) } },
    ownPromptEnv: { replace: ['GEMINI_SYSTEM_MD'] },
  },
  asksBeforeMcpTools: true,
  modes: { asking: 'default', selfApproving: ['yolo'] },
  ...geminiMissingFile,
});
