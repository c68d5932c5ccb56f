/** OpenCode in ACP mode (`opencode acp`). */
import { builtinAdapter } from './builtinAdapter.js';
import { opencodeStartsAlone } from './quirks/opencodeStartsAlone.js';

/** OpenCode. */
export const opencodeAdapter = builtinAdapter({
  agentId: 'opencode',
  displayName: 'OpenCode',
  command: 'opencode',
  args: ['acp'],
  npmPackages: ['opencode-ai@1.18.33'],
  // Both through OPENCODE_CONFIG_CONTENT, which OpenCode merges over its config files: append as an
  // instructions file, replace as the prompt of the "build" agent (the one its ACP mode runs).
  instructions: {
    capability: {
      append: { level: 'system', via: 'instructions: [a file Baton writes] in OPENCODE_CONFIG_CONTENT' },
      replace: { level: 'system', via: 'agent.build.prompt in OPENCODE_CONFIG_CONTENT' },
    },
    project: (launch, delivered, folder) => {
      if (delivered.replace === null && delivered.append === null) {
        return launch;
      }
      const config = {
        ...(delivered.append === null ? {} : { instructions: [folder().write('instructions.md', delivered.append)] }),
        ...(delivered.replace === null ? {} : { agent: { build: { prompt: delivered.replace } } }),
      };
      return { ...launch, env: { ...launch.env, OPENCODE_CONFIG_CONTENT: JSON.stringify(config) } };
    },
    ownPromptEnv: { append: ['OPENCODE_CONFIG_CONTENT'], replace: ['OPENCODE_CONFIG_CONTENT'] },
  },
  asksBeforeMcpTools: false,
  ...opencodeStartsAlone,
});
