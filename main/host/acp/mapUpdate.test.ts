import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { keptInput, mapUpdate } from './mapUpdate.js';

describe('mapUpdate', () => {
  it('maps message and thought chunks', () => {
    expect(mapUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' }, messageId: 'm1' }, 't').drafts).toEqual(
      [{ type: 'message.chunk', payload: { turnId: 't', text: 'Hi', messageId: 'm1' } }],
    );
    expect(mapUpdate({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } }, 't').drafts).toEqual([
      { type: 'thought.chunk', payload: { turnId: 't', text: 'hmm' } },
    ]);
  });

  it('names non-text content instead of dropping it', () => {
    const [draft] = mapUpdate(
      { sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AAA', mimeType: 'image/png' } },
      't',
    ).drafts;
    expect(draft).toEqual({ type: 'message.chunk', payload: { turnId: 't', text: '[image]' } });
  });

  it('maps tool calls with their content, and their updates', () => {
    const call = mapUpdate(
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'x',
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'pending',
        content: [
          { type: 'diff', path: '/w/a.ts', oldText: 'a', newText: 'b' },
          { type: 'content', content: { type: 'text', text: 'note' } },
          { type: 'terminal', terminalId: 'term-1' },
        ],
      },
      't',
    ).drafts[0];
    expect(call).toEqual({
      type: 'tool.call',
      payload: {
        turnId: 't',
        toolCallId: 'x',
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'pending',
        content: [
          { type: 'diff', path: '/w/a.ts', oldText: 'a', newText: 'b' },
          { type: 'text', text: 'note' },
          { type: 'terminal', terminalId: 'term-1' },
        ],
      },
    });
    expect(mapUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'failed' }, 't').drafts).toEqual([
      { type: 'tool.updated', payload: { turnId: 't', toolCallId: 'x', status: 'failed' } },
    ]);
  });

  it('announces a tool call it only hears of through an update', () => {
    const unknown = { isKnownToolCall: () => false };
    expect(
      mapUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'g1', title: 'echo', status: 'in_progress' }, 't', unknown).drafts,
    ).toEqual([{ type: 'tool.call', payload: { turnId: 't', toolCallId: 'g1', title: 'echo', status: 'in_progress' } }]);
  });

  it('maps plans and usage; ignores the echo of the person and not-yet-recorded kinds', () => {
    expect(
      mapUpdate({ sessionUpdate: 'plan', entries: [{ content: 'Read', status: 'pending', priority: 'high' }] }, 't').drafts[0],
    ).toMatchObject({ type: 'plan' });
    expect(mapUpdate({ sessionUpdate: 'usage_update', used: 10, size: 100 }, 't').drafts[0]).toEqual({
      type: 'usage',
      payload: { turnId: 't', used: 10, size: 100 },
    });
    expect(mapUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'me' } }, 't').drafts).toEqual([]);
    expect(mapUpdate({ sessionUpdate: 'available_commands_update', availableCommands: [] }, 't').drafts).toEqual([]);
  });

  it("maps the agents' own shell-output extension to terminal events", () => {
    expect(
      mapUpdate(
        {
          sessionUpdate: 'tool_call',
          toolCallId: 'b1',
          title: 'Terminal',
          kind: 'execute',
          status: 'pending',
          content: [{ type: 'terminal', terminalId: 'b1' }],
          _meta: { terminal_info: { terminal_id: 'b1' } },
        },
        't',
      ).drafts.map((draft) => draft.type),
    ).toEqual(['terminal.started', 'tool.call']);
    // An update that only carries output adds no empty tool update.
    expect(
      mapUpdate(
        { sessionUpdate: 'tool_call_update', toolCallId: 'b1', _meta: { terminal_output: { terminal_id: 'b1', data: 'hi\n' } } },
        't',
      ).drafts,
    ).toEqual([{ type: 'terminal.output', payload: { terminalId: 'b1', text: 'hi\n' } }]);
    expect(
      mapUpdate(
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: 'b1',
          status: 'completed',
          _meta: { terminal_exit: { terminal_id: 'b1', exit_code: 2, signal: null } },
        },
        't',
      ).drafts,
    ).toEqual([
      { type: 'terminal.exited', payload: { terminalId: 'b1', exitCode: 2, signal: null, truncated: false } },
      { type: 'tool.updated', payload: { turnId: 't', toolCallId: 'b1', status: 'completed' } },
    ]);
  });

  it('reports an unknown kind rather than throwing', () => {
    expect(mapUpdate({ sessionUpdate: 'teleport' } as unknown as SessionUpdate, 't')).toEqual({ drafts: [], unknownKind: 'teleport' });
  });

  it("keeps a tool's input (what the person is asked about), and only the size of a huge one", () => {
    const [call] = mapUpdate(
      { sessionUpdate: 'tool_call', toolCallId: 'x', title: 'get-sum', status: 'pending', rawInput: { a: 1, b: 2 } },
      't',
    ).drafts;
    expect(call).toMatchObject({ type: 'tool.call', payload: { rawInput: { a: 1, b: 2 } } });
    expect(keptInput({ content: 'x'.repeat(40_000) })).toEqual({ rawInput: { '(not kept)': '40014 characters of input' } });
    expect(keptInput(undefined)).toEqual({});
  });
});
