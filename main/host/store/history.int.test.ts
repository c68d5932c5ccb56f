/**
 * History on real SQLite files: migration from schema 1, search, lifecycle, export/import, damaged files, a second instance, a full disk.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, openSync, writeSync, closeSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, fakeAgentProcesses, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { SYNTHETIC_MODEL_OPTION, syntheticTranscript } from '../../../e2e/fixtures/syntheticTranscript.js';
import { DataDirInUseError, StoreError } from '../../../app/errors.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import { parseEnvelope } from '../../../app/events/index.js';
import { emptyTranscript, reduceAll, tailTranscript } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';
import { LOCK_FILE } from './DataDirLock.js';
import { EventStore } from './EventStore.js';
import { migrations } from './migrations.js';
import { DATABASE_FILE } from './openDatabase.js';

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const hosts: Host[] = [];
function openHost(dataDir: string, options: Partial<ConstructorParameters<typeof Host>[0]> = {}): Host {
  const host = new Host({ dataDir, env: definedEnv(process.env), ...options });
  hosts.push(host);
  return host;
}
afterEach(async () => {
  for (const host of hosts.splice(0)) {
    await host.dispose();
  }
});

async function chat(host: Host, text: string, cwd = tempDir('work')): Promise<string> {
  const { conversationId } = host.conversations.create(FAKE_AGENT_ID, cwd);
  await host.turns.send(conversationId, text);
  await host.turns.idle();
  return conversationId;
}

describe('migration', () => {
  it('opens a database written by schema 1 and builds the new projections from its log', () => {
    const dir = tempDir('schema1');
    const db = new Database(path.join(dir, DATABASE_FILE));
    migrations[0]!(db);
    db.pragma('user_version = 1');
    const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, 1, ?, ?)');
    insert.run(
      'old',
      1,
      '2025-01-01T00:00:00.000Z',
      'conversation.created',
      JSON.stringify({ title: '', agentId: 'claude', agentName: 'Claude', cwd: '/w' }),
    );
    insert.run(
      'old',
      2,
      '2025-01-01T00:00:01.000Z',
      'turn.started',
      JSON.stringify({ turnId: 't', agentId: 'claude', agentName: 'Claude', text: 'How do lighthouses rotate?' }),
    );
    insert.run('old', 3, '2025-01-01T00:00:02.000Z', 'message.chunk', JSON.stringify({ turnId: 't', text: 'With a clockwork mechanism.' }));
    insert.run('old', 4, '2025-01-01T00:00:03.000Z', 'turn.ended', JSON.stringify({ turnId: 't', outcome: 'completed' }));
    insert.run(
      'old',
      5,
      '2025-01-01T00:00:04.000Z',
      'session.bound',
      JSON.stringify({ agentId: 'claude', sessionId: 'claude-session-1', how: 'new' }),
    );
    // Schema 1's catalog row had fewer fields.
    db.prepare('INSERT INTO conversations VALUES (?, ?, ?, ?)').run(
      'old',
      4,
      '2025-01-01T00:00:03.000Z',
      JSON.stringify({ conversationId: 'old', title: 'x' }),
    );
    db.close();

    const store = new EventStore(dir);
    try {
      expect(store.getSummary('old')).toMatchObject({
        title: 'How do lighthouses rotate?',
        turnCount: 1,
        lifecycle: 'active',
        agents: [{ agentId: 'claude' }],
      });
      expect(store.search({ text: 'clockwork mechanism' })).toMatchObject([{ conversationId: 'old', seq: 3, role: 'agent' }]);
      expect(store.readEvents('old').events).toHaveLength(5);
      // Schema 3's projection: the agent session it is bound to.
      expect(store.sessionsBoundTo('claude')).toEqual(new Map([['claude-session-1', 'old']]));
    } finally {
      store.close();
    }
  });
});

describe('search', () => {
  it('finds words anywhere in the history, filters by agent and date, and skips deleted conversations', async () => {
    const dir = tempDir('search');
    registerFakeAgent(dir);
    const host = openHost(dir);
    const first = await chat(host, 'tell me about the velvet hammer');
    const second = await chat(host, 'velvet curtains in theatres');
    const results = host.store.search({ text: 'velvet' });
    expect(results.map((hit) => hit.conversationId).sort()).toEqual([first, first, second, second].sort());
    const hammer = host.store.search({ text: 'velvet hamm' });
    expect(hammer.every((hit) => hit.conversationId === first)).toBe(true);
    expect(hammer.find((hit) => hit.role === 'agent')?.snippet).toContain('\u0002hammer\u0003');
    expect(host.store.search({ text: 'velvet', agentId: 'claude' })).toEqual([]);
    expect(host.store.search({ text: 'velvet', agentId: FAKE_AGENT_ID })).toHaveLength(4);
    expect(host.store.search({ text: 'velvet', from: '2999-01-01' })).toEqual([]);
    expect(host.store.search({ text: 'velvet', to: '2000-01-01' })).toEqual([]);
    // Query syntax typed by a person is text, not an FTS expression.
    expect(host.store.search({ text: 'velvet" OR NEAR(' })).toEqual([]);
    await host.history.delete(second);
    expect(new Set(host.store.search({ text: 'velvet' }).map((hit) => hit.conversationId))).toEqual(new Set([first]));
  });
});

describe('reading the history starts no agent', () => {
  it('opening, listing, searching and exporting after a restart leave no agent process', async () => {
    const dir = tempDir('noagent');
    registerFakeAgent(dir);
    const first = openHost(dir);
    const id = await chat(first, 'quiet please');
    await first.dispose();
    hosts.splice(hosts.indexOf(first), 1);
    const host = openHost(dir);
    expect(await host.handle('listConversations', {})).toMatchObject({ ok: true });
    expect(await host.handle('openConversation', { conversationId: id })).toMatchObject({ ok: true });
    expect(await host.handle('searchConversations', { text: 'quiet' })).toMatchObject({
      ok: true,
      result: { results: [{ conversationId: id }, { conversationId: id }] },
    });
    expect(await host.handle('exportConversation', { conversationId: id, format: 'markdown' })).toMatchObject({ ok: true });
    expect(fakeAgentProcesses(dir)).toEqual([]);
  });
});

describe('reading long transcripts', () => {
  it('opens the last turns, reaches back to a given message, and reads short ones whole', () => {
    const host = openHost(tempDir('tail'));
    const long = host.history.import(syntheticTranscript({ turns: 120 }));
    const tail = host.store.readTail(long.conversationId, 50);
    // Turn i starts at seq 2 + 5i; the 50th-last of 120 is turn 70.
    expect(tail.firstSeq).toBe(2 + 5 * 70);
    expect(tail.envelopes[0]).toMatchObject({ type: 'turn.started', payload: { text: 'question 70' } });
    expect(tail.envelopes.at(-1)?.seq).toBe(long.lastSeq);
    const around = host.store.readTail(long.conversationId, 50, 2 + 5 * 3 + 2);
    expect(around.envelopes[0]).toMatchObject({ type: 'turn.started', payload: { text: 'question 3' } });
    const short = host.history.import(syntheticTranscript({ turns: 50 }));
    expect(host.store.readTail(short.conversationId, 50).firstSeq).toBe(1);
  });

  it('reads a long tail in pages that join up to the same events', async () => {
    const host = openHost(tempDir('pages'));
    const long = host.history.import(syntheticTranscript({ turns: 120 }));
    const whole = host.store.readTail(long.conversationId, 100).envelopes;
    const first = await host.handle('openConversation', { conversationId: long.conversationId, turns: 100, maxEvents: 120 });
    if (!first.ok) {
      throw new Error(JSON.stringify(first.error));
    }
    const opened = first.result as { events: Array<{ seq: number }>; firstSeq: number; nextSeq: number | null };
    expect(opened.events).toHaveLength(120);
    expect(opened.firstSeq).toBe(whole[0]!.seq);
    const seqs = opened.events.map((event) => event.seq);
    for (let next = opened.nextSeq; next !== null;) {
      const page = await host.handle('readConversationEvents', { conversationId: long.conversationId, fromSeq: next, limit: 120 });
      if (!page.ok) {
        throw new Error(JSON.stringify(page.error));
      }
      const result = page.result as { events: Array<{ seq: number }>; nextSeq: number | null };
      expect(result.events.length).toBeLessThanOrEqual(120);
      seqs.push(...result.events.map((event) => event.seq));
      next = result.nextSeq;
    }
    expect(seqs).toEqual(whole.map((envelope) => envelope.seq));
    // Without a limit, one answer holds them all; a page past the end is empty.
    expect(host.store.readTail(long.conversationId, 100).nextSeq).toBeNull();
    expect(host.store.readPage(long.conversationId, long.lastSeq + 1, 10)).toEqual({ envelopes: [], nextSeq: null });
  });
});

describe('rebuild', () => {
  it('rebuilding the projections from the log reproduces them exactly', async () => {
    const dir = tempDir('rebuild');
    registerFakeAgent(dir);
    const host = openHost(dir);
    const first = await chat(host, 'alpha bravo charlie');
    await chat(host, 'delta echo foxtrot');
    host.history.rename(first, 'Renamed');
    await host.history.delete(first);
    const snapshot = () => ({
      active: host.store.listSummaries({ lifecycle: 'active' }),
      deleted: host.store.listSummaries({ lifecycle: 'deleted' }),
      search: host.store.search({ text: 'echo' }),
      searchDeleted: host.store.search({ text: 'bravo' }),
      contexts: [first].map((id) => host.store.getContext(id)),
    });
    const before = snapshot();
    expect(host.store.rebuildProjections()).toMatchObject({ conversations: 2 });
    expect(snapshot()).toEqual(before);
  });
});

describe('a long conversation opened at its tail', () => {
  it('comes with the context set in turn 1 (session, options, choices, commands), also after a migration from schema 3', async () => {
    const dir = tempDir('tail');
    const host = openHost(dir);
    const { conversationId } = host.history.import(syntheticTranscript({ turns: 200, sessionInTurn1: true }));
    const { firstSeq, envelopes } = host.store.readTail(conversationId, 50);
    expect(firstSeq).toBeGreaterThan(100);
    const check = (context: ReturnType<EventStore['getContext']>) => {
      const tail = reduceAll(
        tailTranscript(context, firstSeq),
        envelopes.map((envelope) => parseEnvelope(envelope)).flatMap((parsed) => (parsed.ok ? [parsed.event] : [])),
      );
      expect(tail.session).toMatchObject({ sessionId: 'synthetic-session-1' });
      expect(tail.sessionOptions).toEqual([SYNTHETIC_MODEL_OPTION]);
      expect(tail.chosenOptions).toEqual({ model: 'deep' });
      expect(tail.commands.map((command) => command.name)).toEqual(['review']);
      expect(tail.sessionTitle).toBe('A long synthetic session');
      expect(tail.items.filter((item) => item.kind === 'user')).toHaveLength(50);
    };
    check(host.store.getContext(conversationId));
    // An older file gains the projection from its log.
    await host.dispose();
    hosts.splice(hosts.indexOf(host), 1);
    const db = new Database(path.join(dir, DATABASE_FILE));
    db.exec(
      'DROP TABLE conversation_context; DROP TABLE settings; DROP TABLE mcp_servers; DROP TABLE secrets; DROP TABLE toolboxes; DROP TABLE search_pending',
    );
    db.pragma('user_version = 3');
    db.close();
    const reopened = openHost(dir);
    check(reopened.store.getContext(conversationId));
  });
});

describe('lifecycle', () => {
  it('renames, archives, deletes with undo, and purges for good', async () => {
    const dir = tempDir('life');
    registerFakeAgent(dir);
    const host = openHost(dir);
    const removed: string[] = [];
    host.subscribe((event: PushEvent) => event.name === 'conversationRemoved' && removed.push(event.payload.conversationId));
    const id = await chat(host, 'hello there');
    const list = (lifecycle: 'active' | 'archived' | 'deleted') =>
      host.store.listSummaries({ lifecycle }).conversations.map((c) => c.conversationId);

    expect(host.history.rename(id, '  Greetings  ').title).toBe('Greetings');
    host.history.setArchived(id, true);
    expect(list('active')).toEqual([]);
    expect(list('archived')).toEqual([id]);
    host.history.setArchived(id, false);
    await host.history.delete(id);
    expect(list('active')).toEqual([]);
    expect(list('deleted')).toEqual([id]);
    expect(host.store.getSummary(id).deletedAt).not.toBeNull();
    await expect(host.handle('sendMessage', { conversationId: id, text: 'x' })).resolves.toMatchObject({
      ok: false,
      error: { code: 'InvalidRequest' },
    });
    host.history.restore(id);
    expect(list('active')).toEqual([id]);
    expect(host.store.readEvents(id).events.length).toBeGreaterThan(5);

    await expect(host.history.purge(id)).rejects.toThrow('delete it first');
    await host.history.delete(id);
    await host.history.purge(id);
    expect(removed).toEqual([id]);
    expect(host.store.readEnvelopes(id)).toEqual([]);
    expect(host.store.search({ text: 'hello' })).toEqual([]);
    expect(list('deleted')).toEqual([]);
  });

  it('pages the list by last activity', async () => {
    const dir = tempDir('pages');
    registerFakeAgent(dir);
    const host = openHost(dir);
    const ids = [];
    for (let index = 0; index < 5; index += 1) {
      ids.push(host.conversations.create(FAKE_AGENT_ID, tempDir('w')).conversationId);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const first = host.store.listSummaries({ limit: 2 });
    expect(first.conversations.map((c) => c.conversationId)).toEqual([ids[4], ids[3]]);
    const second = host.store.listSummaries({ limit: 2, before: first.nextCursor! });
    const third = host.store.listSummaries({ limit: 2, before: second.nextCursor! });
    expect([...second.conversations, ...third.conversations].map((c) => c.conversationId)).toEqual([ids[2], ids[1], ids[0]]);
    expect(third.nextCursor).toBeNull();
  });
});

describe('export and import', () => {
  it('a JSONL export imports as a new conversation equal event for event', async () => {
    const dir = tempDir('export');
    registerFakeAgent(dir);
    const host = openHost(dir);
    const { conversationId: id } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    await host.turns.send(id, 'ask permission about exports');
    // Nobody answers: the turn waits for the person; cancelling it withdraws the question.
    await expect.poll(() => host.store.readEvents(id).events.some((event) => event.type === 'permission.requested')).toBe(true);
    await host.turns.cancel(id);
    await host.turns.idle();
    const exported = host.history.export(id, 'jsonl');
    expect(exported.fileName).toMatch(/\.jsonl$/);
    const imported = host.history.import(exported.content);
    expect(imported.conversationId).not.toBe(id);
    const strip = (envelopes: ReturnType<typeof host.store.readEnvelopes>) => envelopes.map(({ conversationId: _id, ...rest }) => rest);
    // Event for event, then the copy's own title.
    const copy = strip(host.store.readEnvelopes(imported.conversationId));
    expect(copy.slice(0, -1)).toEqual(strip(host.store.readEnvelopes(id)));
    expect(copy.at(-1)).toMatchObject({
      type: 'conversation.renamed',
      payload: { title: `${host.store.getSummary(id).title} (imported)` },
    });
    expect(imported).toMatchObject({ title: `${host.store.getSummary(id).title} (imported)`, turnCount: 1 });
    const markdown = host.history.export(id, 'markdown').content;
    expect(markdown).toContain('## You\n\nask permission about exports');
    expect(markdown).toContain('Permission asked: **Write notes.txt**');
  });

  it('refuses a damaged file with the line that is wrong, and stores nothing', () => {
    const host = openHost(tempDir('import'));
    expect(() => host.history.import('{"not":"an event"}\n')).toThrow(/Line 1/);
    expect(() => host.history.import('not json')).toThrow(/Line 1 of the transcript is not JSON/);
    expect(host.store.listSummaries().conversations).toEqual([]);
  });
});

describe('damaged or busy data folders', () => {
  it('refuses a database that fails quick_check and leaves it byte-identical', () => {
    const dir = tempDir('corrupt');
    const store = new EventStore(dir);
    for (let index = 0; index < 200; index += 1) {
      store.append(`c${index}`, 0, [
        { type: 'conversation.created', payload: { title: `t${index} ${'x'.repeat(300)}`, agentId: 'a', agentName: 'A', cwd: '/' } },
      ]);
    }
    store.close();
    const file = path.join(dir, DATABASE_FILE);
    // Scribble over the middle of the file: pages of the tables, not the header.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, Math.floor(statSync(file).size / 2 / 4096) * 4096);
    closeSync(fd);
    const before = sha(file);
    expect(() => new EventStore(dir)).toThrow(StoreError);
    expect(() => new EventStore(dir)).toThrow(/left exactly as it was/);
    expect(sha(file)).toBe(before);
  });

  it('refuses a second instance on the same data folder, and ignores a stale pid file', async () => {
    const dir = tempDir('lock');
    const first = openHost(dir);
    expect(() => new Host({ dataDir: dir, env: {} })).toThrow(DataDirInUseError);
    await first.dispose();
    hosts.splice(hosts.indexOf(first), 1);
    // A pid file naming this very process, as a lock guessed from pids would have trusted.
    writeFileSync(
      path.join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, hostname: (await import('node:os')).hostname(), startedAt: 'then' }),
    );
    expect(() => openHost(dir)).not.toThrow();
  });

  it('a full disk fails the turn with a readable error and keeps what was written before', async () => {
    const dir = tempDir('full');
    registerFakeAgent(dir);
    const setup = openHost(dir);
    const id = await chat(setup, 'hello before the disk fills');
    await setup.dispose();
    hosts.splice(hosts.indexOf(setup), 1);
    const db = new Database(path.join(dir, DATABASE_FILE));
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.close();
    const before = sha(path.join(dir, DATABASE_FILE));
    expect(before).toBeTruthy();

    const host = openHost(dir, { storeOptions: { pragmas: [`max_page_count = ${pages + 40}`] } });
    const pushed: PushEvent[] = [];
    host.subscribe((event) => pushed.push(event));
    const { turnId } = await host.turns.send(id, 'now something long');
    await host.turns.idle();
    const hostError = pushed.find((event) => event.name === 'hostError');
    const state = reduceAll(emptyTranscript(id), host.store.readEvents(id).events);
    const ended = state.turns[turnId]?.status;
    // Either the failure itself was recorded, or (no room even for that) it was reported to the windows.
    expect(ended === 'failed' || hostError !== undefined).toBe(true);
    const error =
      ended === 'failed'
        ? state.items.findLast((item) => item.kind === 'notice')
        : hostError?.name === 'hostError'
          ? hostError.payload
          : undefined;
    expect(JSON.stringify(error)).toContain('full');
    expect(state.items[0]).toMatchObject({ kind: 'user', text: 'hello before the disk fills' });
    expect(state.items[1]).toMatchObject({ kind: 'agent', text: 'Fake reply: hello before the disk fills' });
  });
});
