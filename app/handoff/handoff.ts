/**
 * Handing a conversation to another agent. The handoff is built from Baton's own transcript (the
 * person's messages verbatim, the agents' replies, tool calls one line each, the latest plan,
 * files touched, the last error; thinking dropped) and bounded to a budget: the newest turns in
 * full, older ones one line each, the oldest left out first — and it says how many. A delta is
 * the same for an agent that reopened its own session: only what happened since it took part.
 * Pure: the host picks the turns and the budget, and sends the text.
 */
import type { EventPayload } from '../events/index.js';
import type { TranscriptItem, TranscriptState } from '../transcript/state.js';

/** The default budget, in characters, when the target agent has not reported its context size. */
export const DEFAULT_HANDOFF_BUDGET = 12_000;
/** Bounds of a budget made from a reported context size. */
const MIN_BUDGET = 4_000;
const MAX_BUDGET = 200_000;
/** Tool results and summaries are trimmed to this many characters. */
const TOOL_LINE = 200;
const SUMMARY_LINE = 240;

/** One turn as the handoff sees it. */
export type HandoffTurn = {
  number: number;
  agentName: string;
  message: string;
  reply: string;
  /** One line per tool call: its title, status and trimmed result. */
  tools: string[];
  files: string[];
  error: string | undefined;
};

/** What the handoff says, and how much of the conversation went in. */
export type Handoff = { text: string; full: number; summarised: number; omitted: number };

/**
 * The budget for a target: a quarter of its reported context (in tokens, about four characters
 * each, so its size in characters), bounded; else the default.
 */
export function handoffBudget(contextTokens: number | undefined, fallback = DEFAULT_HANDOFF_BUDGET): number {
  if (contextTokens === undefined || !Number.isFinite(contextTokens) || contextTokens <= 0) {
    return fallback;
  }
  return Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, Math.floor(contextTokens)));
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

/** The turns of `state` named by `turnIds`, in order, as the handoff sees them (thinking left out). */
export function handoffTurns(state: TranscriptState, turnIds: readonly string[]): HandoffTurn[] {
  const order = Object.keys(state.turns);
  return turnIds.map((turnId) => {
    const items = state.items.filter((item) => 'turnId' in item && item.turnId === turnId);
    const of = <K extends TranscriptItem['kind']>(kind: K) =>
      items.filter((item): item is Extract<TranscriptItem, { kind: K }> => item.kind === kind);
    const files = new Set<string>();
    const tools = of('tool').map((tool) => {
      const result = tool.content
        .map((content) => {
          if (content.type === 'diff') {
            files.add(content.path);
            return `edited ${content.path}`;
          }
          if (content.type === 'text') {
            return content.text;
          }
          if (content.type === 'terminal') {
            const terminal = state.terminals[content.terminalId];
            return terminal ? `$ ${terminal.command} → ${terminal.output}` : '';
          }
          return content.summary;
        })
        .filter((part) => part.trim() !== '')
        .join('; ');
      return oneLine(`${tool.title} (${tool.status.replace('_', ' ')})${result ? `: ${result}` : ''}`, TOOL_LINE);
    });
    const errors = of('notice').filter((notice) => notice.severity === 'error');
    return {
      number: order.indexOf(turnId) + 1,
      agentName: state.turns[turnId]?.agentName ?? state.agentName,
      message: of('user')
        .map((item) => item.text)
        .join('\n'),
      reply: of('agent')
        .map((item) => item.text)
        .join('\n\n')
        .trim(),
      tools,
      files: [...files],
      error: errors.at(-1)?.text,
    };
  });
}

function fullTurn(turn: HandoffTurn): string {
  const lines = [`## Turn ${turn.number} (${turn.agentName})`, '', '**The person wrote:**', '', turn.message.trim(), ''];
  if (turn.tools.length > 0) {
    lines.push('**Tools:**', ...turn.tools.map((tool) => `- ${tool}`), '');
  }
  lines.push(`**${turn.agentName} replied:**`, '', turn.reply || '(no reply)', '');
  if (turn.error) {
    lines.push(`**The turn failed:** ${turn.error}`, '');
  }
  return lines.join('\n');
}

function briefTurn(turn: HandoffTurn): string {
  return oneLine(
    `- Turn ${turn.number} (${turn.agentName}): the person wrote “${oneLine(turn.message, 100)}”; ${turn.reply ? `reply: ${turn.reply}` : 'no reply'}`,
    SUMMARY_LINE,
  );
}

/**
 * Builds the handoff (or the delta) for `targetName` within `budget` characters: the newest
 * turns in full, then older ones one line each, then the oldest left out.
 */
export function buildHandoff(options: {
  kind: 'handoff' | 'delta';
  targetName: string;
  turns: readonly HandoffTurn[];
  plan: EventPayload<'plan'>['entries'] | undefined;
  budget: number;
}): Handoff {
  const { kind, targetName, turns, plan, budget } = options;
  const agents = [...new Set(turns.map((turn) => turn.agentName).filter((name) => name !== targetName))];
  const header =
    kind === 'handoff'
      ? `# The conversation so far\n\nBaton is handing this conversation to you, ${targetName}${agents.length > 0 ? `, from ${agents.join(' and ')}` : ''}. Continue from where it stopped: do not redo finished work. The person's messages are quoted as they wrote them; the replies are the agents' own.\n`
      : `# Since you last took part\n\nWhile you were away, this conversation went on with ${agents.length > 0 ? agents.join(' and ') : 'other agents'}. Here is what happened since your last reply; continue from there.\n`;
  const files = [...new Set(turns.flatMap((turn) => turn.files))];
  const lastError = turns.at(-1)?.error;
  const tail: string[] = [];
  if (plan && plan.length > 0) {
    tail.push(
      '## The latest plan',
      '',
      ...plan.map((entry) => `- [${entry.status === 'completed' ? 'x' : ' '}] ${entry.content} (${entry.status})`),
      '',
    );
  }
  if (files.length > 0) {
    tail.push('## Files touched', '', ...files.map((file) => `- ${file}`), '');
  }
  if (lastError) {
    tail.push('## The last error', '', lastError, '');
  }
  const footer = tail.join('\n');
  const note = (omitted: number, summarised: number): string =>
    omitted > 0 || summarised > 0
      ? `\n_${[omitted > 0 ? `${omitted} earlier turn${omitted === 1 ? ' was' : 's were'} left out` : '', summarised > 0 ? `${summarised} ${summarised === 1 ? 'is' : 'are'} summarised in one line` : ''].filter(Boolean).join('; ')} to keep this within ${budget} characters._\n`
      : '';
  // Reserve room for the note at its longest.
  const fixed = header.length + footer.length + note(turns.length, turns.length).length + 4;
  let room = budget - fixed;
  const full: string[] = [];
  let index = turns.length - 1;
  for (; index >= 0; index -= 1) {
    const text = fullTurn(turns[index]!);
    if (text.length + 1 > room) {
      break;
    }
    full.unshift(text);
    room -= text.length + 1;
  }
  // Not even the newest turn fits: it goes in shortened, rather than nothing at all.
  if (full.length === 0 && index >= 0 && room > 200) {
    const text = fullTurn(turns[index]!);
    full.unshift(`${text.slice(0, room - 40)}\n…(shortened to fit)\n`);
    room = 0;
    index -= 1;
  }
  const brief: string[] = [];
  for (; index >= 0; index -= 1) {
    const line = briefTurn(turns[index]!);
    if (line.length + 1 > room) {
      break;
    }
    brief.unshift(line);
    room -= line.length + 1;
  }
  const omitted = index + 1;
  const parts = [header, note(omitted, brief.length)];
  if (brief.length > 0) {
    parts.push('## Earlier turns, in brief\n', brief.join('\n'), '');
  }
  parts.push(...full, footer);
  const text = parts
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { text: text.length <= budget ? text : text.slice(0, budget), full: full.length, summarised: brief.length, omitted };
}

/** The URI of a handoff block. */
export function handoffUri(conversationId: string, turnNumber: number): string {
  return `baton://conversation/${conversationId}/handoff/${turnNumber}`;
}

/** A handoff as a delimited text block, for an agent without embedded context. */
export function delimitedHandoff(uri: string, text: string): string {
  return `<conversation-handoff source="${uri}">\nBaton added this block so you can pick up the conversation; it is not part of the person's message.\n\n${text}\n</conversation-handoff>`;
}
