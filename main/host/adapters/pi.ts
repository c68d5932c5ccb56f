/** pi through its ACP bridge (`pi-acp`). */
import { builtinAdapter } from './builtinAdapter.js';
import { shellWord } from '../process/shellWord.js';
import { piOneLiveSession } from './quirks/piOneLiveSession.js';

/** pi. It takes no MCP servers, so a binding with tools is refused rather than silently dropped. */
export const piAdapter = builtinAdapter({
  agentId: 'pi',
  displayName: 'pi',
  command: 'pi-acp',
  args: [],
  npmPackages: ['pi-acp@0.0.34', '@earendil-works/pi-coding-agent@1.6.0'],
  // pi-acp forwards no flags or environment to pi, but runs whatever PI_ACP_PI_COMMAND names: a
  // wrapper Baton writes adds --system-prompt / --append-system-prompt (arguments, visible in the
  // process list) and runs the pi the person had.
  instructions: {
    capability: {
      replace: {
        level: 'system',
        via: '--system-prompt, through a wrapper Baton gives pi-acp as PI_ACP_PI_COMMAND',
        visibleInProcessList: true,
      },
      append: {
        level: 'system',
        via: '--append-system-prompt, through a wrapper Baton gives pi-acp as PI_ACP_PI_COMMAND',
        visibleInProcessList: true,
      },
    },
    project: (launch, delivered, folder) => {
      if (delivered.replace === null && delivered.append === null) {
        return launch;
      }
      const dir = folder();
      const flag = (name: string, file: string, text: string | null): string =>
        text === null ? '' : ` ${name} "$(cat ${shellWord(dir.write(file, text))})"`;
      const pi = launch.env.PI_ACP_PI_COMMAND ?? 'pi';
      const script = `#!/bin/sh\nexec ${shellWord(pi)}${flag('--system-prompt', 'system.md', delivered.replace)}${flag('--append-system-prompt', 'append.md', delivered.append)} "$@"\n`;
      return { ...launch, env: { ...launch.env, PI_ACP_PI_COMMAND: dir.write('pi-with-instructions', script, 0o700) } };
    },
  },
  takesMcpServers: false,
  ...piOneLiveSession,
});
