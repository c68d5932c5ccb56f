import { describe, expect, it } from 'vitest';
import { sessionOptions } from './sessionOptions.js';

describe('session options from what the agent reports', () => {
  it('keeps what the agent says of each mode and value, from modes and from config options', () => {
    const fromModes = sessionOptions(
      {
        currentModeId: 'read-only',
        availableModes: [
          { id: 'read-only', name: 'Read-only', description: 'Requires approval to edit files and access the internet.' },
          { id: 'agent', name: 'Auto review', description: null },
        ],
      },
      [],
    );
    expect(fromModes[0]?.options).toEqual([
      { value: 'read-only', name: 'Read-only', description: 'Requires approval to edit files and access the internet.' },
      { value: 'agent', name: 'Auto review' },
    ]);
    const fromConfig = sessionOptions(null, [
      {
        id: 'mode',
        name: 'Mode',
        category: 'mode',
        type: 'select',
        currentValue: 'default',
        options: [
          { value: 'default', name: 'Manual', description: '  Always ask before making changes ' },
          { value: 'plan', name: 'Plan', description: 'x'.repeat(600) },
        ],
      },
    ]);
    expect(fromConfig[0]?.options[0]).toEqual({ value: 'default', name: 'Manual', description: 'Always ask before making changes' });
    expect(fromConfig[0]?.options[1]?.description).toHaveLength(500);
  });
});
