/** Leasing a process on another machine: instructions that travel in a file on this computer are refused there, with why. */
import { describe, expect, it } from 'vitest';
import { UnsupportedInputError } from '../../../app/errors.js';
import { codexAdapter } from '../adapters/codex.js';
import type { Machine } from '../machine/Machine.js';
import { AgentProcesses } from './AgentProcesses.js';
import { leaseFor } from './leaseFor.js';

describe('leaseFor on another machine', () => {
  it('refuses a launch that needs files written on this computer, naming the agent and the machine', async () => {
    const pool = new AgentProcesses();
    const elsewhere = { id: 'ssh:build', name: 'build' } as Machine;
    const launch = { command: '/usr/bin/codex-acp', args: [], env: {}, cwd: '/work' };
    const leased = leaseFor({
      adapter: codexAdapter,
      executable: '/usr/bin/codex-acp',
      baseEnv: {},
      pool,
      machine: elsewhere,
      sessionFilesDir: '/tmp',
      binding: {
        launch: {
          own: launch,
          digest: 'with-a-file',
          materialize: (folder) => ({ ...launch, env: { CODEX_CONFIG: folder().write('instructions.md', 'x') } }),
        },
      },
    });
    await expect(leased).rejects.toBeInstanceOf(UnsupportedInputError);
    await expect(leased).rejects.toThrow(/Codex cannot take your instructions: on build they would travel in a file on this computer/);
    await pool.dispose();
  });
});
