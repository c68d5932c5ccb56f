/** Starting an agent that cannot start: the cause leads the message, not the broken pipe it leaves. */
import { describe, expect, it } from 'vitest';
import { LocalMachine } from '../machine/LocalMachine.js';
import { AgentConnection } from './AgentConnection.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';

describe('an agent that exits before the handshake', () => {
  it('is reported with its exit code and the last line of its error output', async () => {
    const start = AgentConnection.start({
      machine: new LocalMachine({ PATH: '' }),
      agentName: 'Broken',
      launch: {
        command: process.execPath,
        args: ['-e', "process.stderr.write('loading config\\nfatal: config missing API_URL\\n'); process.exit(3)"],
        env: { PATH: process.env.PATH ?? '' },
        cwd: tempDir('broken-agent'),
      },
      handlers: { session: () => undefined },
    });
    await expect(start).rejects.toMatchObject({
      code: 'AgentFailedToStart',
      message: 'Broken failed to start: it exited (exit code 3) before answering: fatal: config missing API_URL',
      details: { stderrTail: expect.stringContaining('fatal: config missing API_URL') },
    });
  });
});
