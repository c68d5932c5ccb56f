import { describe, expect, it } from 'vitest';
import { replayToTurns } from './replayToTurns.js';

describe('replayToTurns', () => {
  it('groups replayed chunks into turns started by the person', () => {
    let next = 0;
    const drafts = replayToTurns(
      [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Hello ' } },
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'there' } },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi!' } },
        { sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'completed', title: 'Read file' },
        { sessionUpdate: 'available_commands_update', availableCommands: [] },
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Thanks' } },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Welcome.' } },
      ],
      { agentId: 'claude', agentName: 'Claude' },
      () => `t${++next}`,
    );
    expect(drafts.map((draft) => draft.type)).toEqual([
      'turn.started',
      'message.chunk',
      'tool.call',
      'turn.ended',
      'turn.started',
      'message.chunk',
      'turn.ended',
    ]);
    expect(drafts[0]).toEqual({
      type: 'turn.started',
      payload: { turnId: 't1', agentId: 'claude', agentName: 'Claude', text: 'Hello there' },
    });
    expect(drafts[2]).toMatchObject({ type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x', status: 'completed' } });
    expect(drafts[4]).toMatchObject({ payload: { turnId: 't2', text: 'Thanks' } });
  });

  it('leaves out messages the agent wrote as if from the person', () => {
    const drafts = replayToTurns(
      [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '<command-name>/model</command-name>' } },
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Real question' } },
      ],
      { agentId: 'a', agentName: 'A' },
      () => 't',
      (text) => text.startsWith('<command-name>'),
    );
    expect(drafts[0]).toMatchObject({ type: 'turn.started', payload: { text: 'Real question' } });
  });

  it('agent content before any message of the person gets a turn of its own', () => {
    const drafts = replayToTurns(
      [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Welcome back.' } }],
      { agentId: 'a', agentName: 'A' },
      () => 'only',
    );
    expect(drafts.map((draft) => draft.type)).toEqual(['turn.started', 'message.chunk', 'turn.ended']);
    expect(drafts[0]).toMatchObject({ payload: { text: '' } });
  });
});
