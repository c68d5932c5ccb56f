/**
 * Maps one ACP `session/update` to Baton transcript event drafts. Nearly pure: no I/O, no state
 * beyond its arguments. Update kinds Baton does not record yet map to nothing; kinds it does not
 * know at all are reported through `unknownKind` so the caller can log them, never crash.
 */
import type {
  ContentBlock,
  SessionUpdate,
  ToolCall,
  ToolCallContent,
  ToolCallStatus,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk/unstable';
import type { EventDraft, EventPayload } from '../../../app/events/index.js';

type ToolContent = NonNullable<EventPayload<'tool.call'>['content']>[number];

/** Result of mapping one update. */
export type MappedUpdate = { drafts: EventDraft[]; unknownKind?: string };

/** What the mapper needs to know about the session so far. */
export type MapContext = {
  /** True for tool calls already announced in this session. */
  isKnownToolCall(toolCallId: string): boolean;
};

const NO_CONTEXT: MapContext = { isKnownToolCall: () => true };

/**
 * Maps an update received during turn `turnId`. An update for a tool call never announced
 * (Gemini reports some only through updates) becomes its announcement, so it is not lost.
 */
export function mapUpdate(update: SessionUpdate, turnId: string, context: MapContext = NO_CONTEXT): MappedUpdate {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk': {
      const text = contentText(update.content);
      return {
        drafts: [
          {
            type: 'message.chunk',
            payload: { turnId, text, ...(update.messageId ? { messageId: update.messageId } : {}) },
          },
        ],
      };
    }
    case 'agent_thought_chunk':
      return { drafts: [{ type: 'thought.chunk', payload: { turnId, text: contentText(update.content) } }] };
    case 'tool_call':
      return { drafts: [...agentTerminalDrafts(turnId, update), toolCallDraft(turnId, update)] };
    case 'tool_call_update': {
      const terminal = agentTerminalDrafts(turnId, update);
      if (!context.isKnownToolCall(update.toolCallId)) {
        return { drafts: [...terminal, toolCallDraft(turnId, update)] };
      }
      const changed = update.title || update.status || update.content || update.rawInput !== undefined;
      return {
        drafts: [
          ...terminal,
          ...(changed || terminal.length === 0
            ? [
                {
                  type: 'tool.updated' as const,
                  payload: {
                    turnId,
                    toolCallId: update.toolCallId,
                    ...(update.title ? { title: update.title } : {}),
                    ...(update.status ? { status: toolStatus(update.status) } : {}),
                    ...(update.content ? { content: update.content.map(toolContent) } : {}),
                    ...keptInput(update.rawInput),
                  },
                },
              ]
            : []),
        ],
      };
    }
    case 'plan':
      return {
        drafts: [
          {
            type: 'plan',
            payload: { turnId, entries: update.entries.map(({ content, status, priority }) => ({ content, status, priority })) },
          },
        ],
      };
    case 'usage_update':
      return {
        drafts: [
          {
            type: 'usage',
            payload: {
              turnId,
              used: update.used,
              size: update.size,
              ...(update.cost ? { cost: { amount: update.cost.amount, currency: update.cost.currency } } : {}),
            },
          },
        ],
      };
    case 'notice':
      return {
        drafts: [
          {
            type: 'notice',
            payload: {
              turnId,
              severity: update.severity === 'error' ? 'error' : update.severity === 'warning' ? 'warning' : 'info',
              text: update.description ? `${update.title}: ${update.description}` : update.title,
            },
          },
        ],
      };
    // The person's own message is already in the transcript as `turn.started`.
    case 'user_message_chunk':
    // Session-level facts, recorded by LiveSession whether or not a turn runs.
    case 'available_commands_update':
    case 'current_mode_update':
    case 'config_option_update':
    case 'session_info_update':
    // The agent compacting its own context changes nothing in Baton's transcript.
    case 'compaction_update':
    case 'compaction_summary_chunk':
      return { drafts: [] };
    default:
      return { drafts: [], unknownKind: String((update as { sessionUpdate?: unknown }).sessionUpdate) };
  }
}

/**
 * The shell-output extension Claude Code and Codex send when a client advertises
 * `_meta.terminal_output`: `terminal_info` (a command started; its output is shown as the
 * tool call's terminal), `terminal_output` (more output) and `terminal_exit`. Recorded as
 * Baton's own `terminal.*` events, so these commands show like client terminals.
 */
function agentTerminalDrafts(turnId: string, call: ToolCall | ToolCallUpdate): EventDraft[] {
  const meta = (call._meta ?? {}) as Record<string, unknown>;
  const drafts: EventDraft[] = [];
  const info = meta.terminal_info as { terminal_id?: unknown } | undefined;
  if (info && typeof info.terminal_id === 'string') {
    // The command is the tool call's title, which the agent may still change: left empty here, shown from the tool call.
    drafts.push({ type: 'terminal.started', payload: { turnId, terminalId: info.terminal_id, command: '', cwd: '' } });
  }
  const output = meta.terminal_output as { terminal_id?: unknown; data?: unknown } | undefined;
  if (output && typeof output.terminal_id === 'string' && typeof output.data === 'string' && output.data !== '') {
    drafts.push({ type: 'terminal.output', payload: { terminalId: output.terminal_id, text: output.data } });
  }
  const exit = meta.terminal_exit as { terminal_id?: unknown; exit_code?: unknown; signal?: unknown } | undefined;
  if (exit && typeof exit.terminal_id === 'string') {
    drafts.push({
      type: 'terminal.exited',
      payload: {
        terminalId: exit.terminal_id,
        exitCode: typeof exit.exit_code === 'number' && Number.isInteger(exit.exit_code) ? exit.exit_code : null,
        signal: typeof exit.signal === 'string' ? exit.signal : null,
        truncated: false,
      },
    });
  }
  return drafts;
}

/** The announcement of a tool call, from a `tool_call` or from an update about one not announced yet. */
function toolCallDraft(turnId: string, call: ToolCall | ToolCallUpdate): EventDraft {
  return {
    type: 'tool.call',
    payload: {
      turnId,
      toolCallId: call.toolCallId,
      title: call.title ?? 'Tool call',
      ...(call.kind ? { kind: call.kind } : {}),
      status: toolStatus(call.status ?? 'pending'),
      ...(call.content ? { content: call.content.map(toolContent) } : {}),
      ...keptInput(call.rawInput),
    },
  };
}

/** A tool's input is kept up to this many characters (as JSON); a larger one is kept as its size. */
const MAX_INPUT_CHARS = 32_768;

/** The tool input to record, if the agent gave one: as it is, or its size when it is too large. */
export function keptInput(rawInput: unknown): { rawInput?: unknown } {
  if (rawInput === undefined || rawInput === null) {
    return {};
  }
  const json = JSON.stringify(rawInput) ?? '';
  return json.length <= MAX_INPUT_CHARS ? { rawInput } : { rawInput: { '(not kept)': `${json.length} characters of input` } };
}

/** Text of a content block; non-text blocks are named, not dropped. */
export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return '[image]';
    case 'audio':
      return '[audio]';
    case 'resource_link':
      return `[${block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
    default:
      return '';
  }
}

function toolStatus(status: ToolCallStatus): EventPayload<'tool.call'>['status'] {
  return status;
}

/** One piece of an ACP tool call's content as Baton records it. */
export function toolContent(content: ToolCallContent): ToolContent {
  switch (content.type) {
    case 'content':
      return content.content.type === 'text'
        ? { type: 'text', text: content.content.text }
        : { type: 'other', summary: contentText(content.content) };
    case 'diff':
      return { type: 'diff', path: content.path, oldText: content.oldText ?? null, newText: content.newText };
    case 'terminal':
      return { type: 'terminal', terminalId: content.terminalId };
    default:
      return { type: 'other', summary: 'unsupported tool content' };
  }
}
