/**
 * Export formats of a conversation: JSONL (one stored envelope per line, lossless, importable)
 * and Markdown (for people, made from the same reduced transcript the screen shows).
 */
import { fidelityBadge, fidelityDetail } from './fidelity.js';
import { TIMING_NAMES } from '../instructions/injectors.js';
import { InvalidRequestError } from '../errors.js';
import { envelopeSchema, isUnknownEvent, parseEnvelope, type Envelope, type TranscriptEvent, type UnknownEvent } from '../events/index.js';
import type { AttachmentRecord } from '../prompt/attachments.js';
import { reduceAll } from './reduce.js';
import { isSetAside, rewindFilesText } from './rewinds.js';
import { emptyTranscript, type AttemptView, type TranscriptItem, type TranscriptState } from './state.js';
import type { ConversationSummary } from './summary.js';

/** One envelope per line, exactly as stored. */
export function toJsonl(envelopes: readonly Envelope[]): string {
  return envelopes.map((envelope) => JSON.stringify(envelope)).join('\n') + '\n';
}

/** Reads a JSONL transcript; a bad line is reported with its number. */
export function parseJsonl(text: string): Envelope[] {
  return Array.from(readJsonl(text), (record) => record.envelope);
}

/** One line of a JSONL transcript: the envelope exactly as written (to be stored), and the event it holds. */
export type JsonlRecord = { envelope: Envelope; event: TranscriptEvent | UnknownEvent };

/**
 * Reads a JSONL transcript one line at a time, each line read and checked once (an import hands
 * both the envelope and its event to the store, which reads none again, and keeps neither after
 * storing it). A bad line is reported with its number; a file with no events is refused.
 */
export function* readJsonl(text: string): Generator<JsonlRecord, void, undefined> {
  let start = 0;
  let number = 0;
  let found = false;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end);
    start = end + 1;
    number += 1;
    if (line.trim() === '') {
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new InvalidRequestError(`Line ${number} of the transcript is not JSON.`);
    }
    const parsed = parseEnvelope(json);
    if (!parsed.ok) {
      // Said as what is wrong: not an event at all, or an event whose payload is broken.
      const envelope = envelopeSchema.safeParse(json);
      throw new InvalidRequestError(
        envelope.success
          ? `Line ${number} of the transcript has a broken event: ${parsed.reason}.`
          : `Line ${number} of the transcript is not a Baton event: ${envelope.error.issues[0]?.message ?? 'invalid'}.`,
      );
    }
    const { conversationId, seq, at, v, type, payload } = json as Envelope;
    found = true;
    yield { envelope: { conversationId, seq, at, v, type, payload }, event: parsed.event };
  }
  if (!found) {
    throw new InvalidRequestError('The transcript file has no events.');
  }
}

/** A file name made from the title. */
export function exportFileName(summary: ConversationSummary, extension: 'md' | 'jsonl'): string {
  const base =
    (summary.title || 'conversation')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'conversation';
  return `${base}.${extension}`;
}

/** One attempt's line under its message: its agent, where it ran, and how it ended. */
function attemptLine(attempt: AttemptView, item: Extract<TranscriptItem, { kind: 'attempts' }>): string {
  const where = attempt.kind === 'worktree' ? `worktree on ${attempt.branch ?? 'its branch'}` : 'a copy of the folder';
  const ending =
    item.kept?.attemptId === attempt.attemptId
      ? ' — kept'
      : attempt.state === 'failed'
        ? ` — could not start: ${attempt.reason ?? ''}`
        : attempt.continuedAs
          ? ' — continued as a branch'
          : '';
  return `Attempt by **${attempt.agentName}** (${where})${ending}`;
}

/** The events of a stored transcript that this build can read. */
function readableEvents(envelopes: readonly Envelope[]): TranscriptEvent[] {
  return envelopes.flatMap((envelope) => {
    const parsed = parseEnvelope(envelope);
    return parsed.ok && !isUnknownEvent(parsed.event) ? [parsed.event] : [];
  });
}

/**
 * The conversation as Markdown: who said what, tool calls and notices, in order. With the
 * envelopes of its attempts (by conversation), each attempt's own turns follow its message.
 */
export function toMarkdown(
  summary: ConversationSummary,
  envelopes: readonly Envelope[],
  attempts: ReadonlyMap<string, readonly Envelope[]> = new Map(),
): string {
  const events = readableEvents(envelopes);
  const state = reduceAll(emptyTranscript(summary.conversationId), events);
  const agents = summary.agents.map((agent) => agent.agentName).join(', ');
  const lines = [`# ${summary.title || 'Conversation'}`, '', `_${agents} · ${summary.cwd} · started ${summary.createdAt}_`, ''];
  if (summary.branchedFrom) {
    lines.push(`_Branched from ${summary.branchedFrom.title}_`, '');
  }
  for (const item of state.items) {
    if (isSetAside(state, item)) {
      continue;
    }
    lines.push(...markdownOf(item, state.terminals), '');
    if (item.kind === 'attempts') {
      for (const attempt of item.attempts) {
        lines.push(...attemptMarkdown(attempt, attempts.get(attempt.conversationId)));
      }
    }
    if (item.kind === 'rewind') {
      // What the rewind set aside is kept: shown folded under its marker.
      const aside = state.items.filter((candidate) => candidate.turnId !== undefined && state.setAside[candidate.turnId] === item.rewindId);
      if (aside.length > 0) {
        lines.push(
          '<details><summary>Set aside by this rewind (not handed to any agent)</summary>',
          '',
          ...aside.flatMap((candidate) => [...markdownOf(candidate, state.terminals), '']),
          '</details>',
          '',
        );
      }
    }
  }
  return (
    lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() + '\n'
  );
}

/** An attempt's own turns (after the history it was given), folded under its agent's name. */
function attemptMarkdown(attempt: AttemptView, envelopes: readonly Envelope[] | undefined): string[] {
  if (!envelopes) {
    return [];
  }
  const events = readableEvents(envelopes);
  const from = events.find((event) => event.type === 'conversation.attempt');
  const fromSeq = from?.type === 'conversation.attempt' ? from.payload.fromSeq : 0;
  const state = reduceAll(emptyTranscript(attempt.conversationId), events);
  const own = state.items.filter(
    (item) => item.turnId !== undefined && (state.turns[item.turnId] ? startedAfter(events, item.turnId, fromSeq) : false),
  );
  return [
    `<details><summary>Attempt by ${attempt.agentName}</summary>`,
    '',
    ...own.flatMap((item) => [...markdownOf(item, state.terminals), '']),
    '</details>',
    '',
  ];
}

/** True when the turn was started after `seq` (an attempt's own turn, not the history it was given). */
function startedAfter(events: readonly TranscriptEvent[], turnId: string, seq: number): boolean {
  return events.some((event) => event.type === 'turn.started' && event.payload.turnId === turnId && event.seq > seq);
}

/** One attachment of the person's message: its name, where it is (a file of the folder) or its type and size. */
function attachmentLine(record: AttachmentRecord): string {
  const facts = [record.uri, record.mimeType, record.size === undefined ? undefined : `${record.size.toLocaleString('en')} bytes`]
    .filter(Boolean)
    .join(', ');
  return `- ${record.type === 'image' ? 'Image' : 'File'} **${record.name}**${facts ? ` (${facts})` : ''}`;
}

function quote(text: string): string[] {
  return text.split('\n').map((line) => `> ${line}`);
}

/** A terminal shown by a tool call, as a fenced block with its command and how it ended. */
function terminalMarkdown(
  content: Extract<TranscriptItem, { kind: 'tool' }>['content'][number],
  terminals: TranscriptState['terminals'],
  title: string,
): string[] {
  const terminal = content.type === 'terminal' ? terminals[content.terminalId] : undefined;
  if (!terminal) {
    return [];
  }
  const ending = terminal.exit
    ? terminal.exit.signal
      ? `killed by ${terminal.exit.signal}`
      : `exit code ${terminal.exit.exitCode ?? 'unknown'}`
    : 'did not finish';
  const fence = '`'.repeat(Math.max(3, ...[...terminal.output.matchAll(/`+/g)].map((match) => match[0].length + 1)));
  return [
    '',
    `  ${fence}console`,
    `  $ ${terminal.command || title}`,
    ...terminal.output
      .trimEnd()
      .split('\n')
      .map((line) => `  ${line}`),
    `  ${fence}`,
    `  _${ending}${terminal.truncated ? '; output shortened' : ''}_`,
  ];
}

function markdownOf(item: TranscriptItem, terminals: TranscriptState['terminals']): string[] {
  switch (item.kind) {
    case 'user':
      return [
        '## You',
        '',
        item.text,
        ...(item.attachments && item.attachments.length > 0 ? ['', 'Attached:', ...item.attachments.map(attachmentLine)] : []),
      ];
    case 'agent':
      return [`## ${item.agentName}`, '', item.text];
    case 'thought':
      return ['<details><summary>Thinking</summary>', '', item.text, '', '</details>'];
    case 'handoff': {
      const marker = item.fromAgentName
        ? `Switched from ${item.fromAgentName} to ${item.toAgentName}`
        : `${item.toAgentName} was caught up`;
      if (!item.prepared) {
        return [`---`, '', `_${marker}_`];
      }
      const detail = fidelityDetail(item.prepared);
      return [
        '---',
        '',
        `_${marker}: ${fidelityBadge(item.prepared.fidelity)}${detail ? ` (${detail})` : ''}_`,
        ...(item.prepared.text
          ? [
              '',
              `<details><summary>What ${item.toAgentName} was given (not typed by you)</summary>`,
              '',
              item.prepared.text,
              '',
              `_sha256 ${item.prepared.sha256}_`,
              '',
              '</details>',
            ]
          : []),
      ];
    }
    case 'injected':
      return [
        `<details><summary>Injected context: ${item.injector} (${TIMING_NAMES[item.timing]}, ${item.level}; not typed by you)</summary>`,
        '',
        item.text,
        '',
        `_sha256 ${item.sha256}_`,
        '',
        '</details>',
      ];
    case 'tool':
      return [
        `- Tool: **${item.title}** (${item.status.replace('_', ' ')})`,
        ...item.content.flatMap((content) => terminalMarkdown(content, terminals, item.title)),
      ];
    case 'elicitation':
      return [
        `- Input asked: **${item.request.message}** — ${item.answer ? `${item.answer.action}${item.answer.by === 'person' ? '' : ` (${item.answer.by.replace('-', ' ')})`}` : 'not answered'}`,
      ];
    case 'plan':
      return ['Plan:', ...item.entries.map((entry) => `- [${entry.status === 'completed' ? 'x' : ' '}] ${entry.content}`)];
    case 'subagent':
      return [
        `<details><summary>Subagent: ${item.title ?? item.subagentId}${item.state ? ` (${item.state.replace('_', ' ')})` : ''}</summary>`,
        ...(item.description ? ['', item.description] : []),
        ...item.items.flatMap((inner) => ['', ...markdownOf(inner, terminals)]),
        '',
        '</details>',
      ];
    case 'permission': {
      const chosen = item.options.find((option) => option.optionId === item.decision?.optionId);
      return [
        `- Permission asked: **${item.title}** — ${chosen ? `answered “${chosen.name}”` : 'not answered'}${item.revoked ? ` (revoked ${item.revoked.at})` : ''}`,
      ];
    }
    case 'attempts':
      return ['## You, to several agents', '', item.text, '', ...item.attempts.map((attempt) => `- ${attemptLine(attempt, item)}`)];
    case 'rewind':
      return [
        '---',
        '',
        `_Rewound to ${item.pointAt}: ${item.setAside.length} turn${item.setAside.length === 1 ? '' : 's'} set aside. ${rewindFilesText(item)}_`,
      ];
    case 'notice':
      return quote(`${item.severity === 'error' ? 'Error' : item.severity === 'warning' ? 'Warning' : 'Note'}: ${item.text}`);
  }
}
