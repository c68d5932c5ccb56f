/**
 * Instructions through a real ACP child process (the fake agent): Baton's extension on
 * session/new for an agent that advertises it, a refusal for one that does not, the person's own
 * flags never doubled, the digest recorded on every turn, and a changed bundle applied from the
 * next turn on a new session.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { BATON_FRAGMENT } from '../../../app/instructions/batonFragment.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});

function open(options: Parameters<typeof registerFakeAgent>[1] = {}, env = definedEnv(process.env)): Host {
  const dataDir = tempDir('session-instructions');
  registerFakeAgent(dataDir, options);
  const host = new Host({ dataDir, env });
  hosts.push(host);
  return host;
}

function transcript(host: Host, conversationId: string): TranscriptState {
  return reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
}

/** Sends `text`, waits, and returns the agent's reply and the turn's recorded digest. */
async function ask(
  host: Host,
  conversationId: string,
  text: string,
): Promise<{ reply: string; sha256: string | undefined; state: TranscriptState }> {
  const { turnId } = await host.turns.send(conversationId, text);
  await host.turns.idle();
  const state = transcript(host, conversationId);
  const reply = state.items
    .filter((item) => item.kind === 'agent' && item.turnId === turnId)
    .map((item) => (item.kind === 'agent' ? item.text : ''))
    .join('');
  const started = host.store
    .readEvents(conversationId)
    .events.find((event) => event.type === 'turn.started' && event.payload.turnId === turnId);
  return { reply, sha256: started?.type === 'turn.started' ? started.payload.instructionsSha256 : undefined, state };
}

const deliveredOf = (reply: string): unknown => JSON.parse(reply.replace(/^Instructions: /, ''));

describe("instructions for an agent that advertises Baton's extension", () => {
  it("gets the bundle on session/new: the replacement, then the additions and Baton's note", async () => {
    const host = open({ sessionInstructions: true });
    host.instructions.setPerson({ text: 'Answer in French.', intent: 'append' });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', {
      text: 'You are a careful reviewer.',
      intent: 'replace',
    });
    const { reply } = await ask(host, conversationId, 'instructions?');
    expect(deliveredOf(reply)).toEqual({ replace: 'You are a careful reviewer.', append: `Answer in French.\n\n${BATON_FRAGMENT}` });
  });

  it("BATON_NO_SYSTEM_PROMPT_APPEND=1 leaves Baton's note out", async () => {
    const host = open({ sessionInstructions: true }, { ...definedEnv(process.env), BATON_NO_SYSTEM_PROMPT_APPEND: '1' });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', { text: 'Be brief.', intent: 'append' });
    expect(deliveredOf((await ask(host, conversationId, 'instructions?')).reply)).toEqual({ replace: null, append: 'Be brief.' });
  });

  it.each([
    '--append-system-prompt=mine',
    '--append-system-prompt',
    '--append-system-prompt-file=/tmp/mine.md',
    '--append-system-prompt-file',
  ])("never adds a second prompt over the person's own %s: that part is refused, a replacement still goes", async (flag) => {
    const host = open({ sessionInstructions: true, extraArgs: flag.includes('=') ? [flag] : [flag, 'mine'] });
    const refused = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', { text: 'Add this.', intent: 'append' });
    const { state } = await ask(host, refused.conversationId, 'instructions?');
    expect(state.items.at(-1)).toMatchObject({
      kind: 'notice',
      severity: 'error',
      error: { code: 'UnsupportedInput', message: expect.stringContaining(`your own ${flag.split('=')[0]} in its arguments is in force`) },
    });

    const replaced = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', { text: 'Replace with this.', intent: 'replace' });
    // Baton's own note is not added either: the person's own addition is in force.
    expect(deliveredOf((await ask(host, replaced.conversationId, 'instructions?')).reply)).toEqual({
      replace: `Replace with this.\n\n${BATON_FRAGMENT}`,
      append: null,
    });
  });

  it('records the digest on every turn; it changes only when an instruction changes, and the next turn runs under the new bundle', async () => {
    const host = open({ sessionInstructions: true });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', { text: 'First rules.', intent: 'append' });
    const first = await ask(host, conversationId, 'instructions?');
    const second = await ask(host, conversationId, 'hello again');
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(second.sha256).toBe(first.sha256);
    host.conversations.setInstructions(conversationId, { text: 'Second rules.', intent: 'append' });
    const third = await ask(host, conversationId, 'instructions?');
    expect(third.sha256).not.toBe(first.sha256);
    expect(deliveredOf(third.reply)).toMatchObject({ append: expect.stringMatching(/^Second rules\./) });
    host.conversations.setInstructions(conversationId, { text: 'First rules.', intent: 'append' });
    expect((await ask(host, conversationId, 'back to the first')).sha256).toBe(first.sha256);
    // The person's own instructions count too.
    host.instructions.setPerson({ text: 'Mine.', intent: 'append' });
    expect((await ask(host, conversationId, 'with mine')).sha256).not.toBe(first.sha256);
  });
});

describe('instructions for an agent that does not advertise a channel', () => {
  it('are refused before a session starts; without any, the agent works', async () => {
    const host = open();
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', { text: 'Be brief.', intent: 'append' });
    const { state } = await ask(host, conversationId, 'instructions?');
    expect(state.items.at(-1)).toMatchObject({
      kind: 'notice',
      severity: 'error',
      error: { code: 'UnsupportedInput', details: { agentName: 'Fake', input: 'instructions to add to its prompt' } },
    });
    expect(state.session).toBeNull();

    const plain = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    expect((await ask(host, plain.conversationId, 'instructions?')).reply).toBe('Instructions: null');
  });

  it('delivery turned off for the agent: it runs with only its own prompt', async () => {
    const host = open({ sessionInstructions: true });
    host.instructions.setAgent(FAKE_AGENT_ID, { off: true, commandLineAccepted: false });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', { text: 'Be brief.', intent: 'append' });
    expect((await ask(host, conversationId, 'instructions?')).reply).toBe('Instructions: null');
  });
});

describe("an agent's profile", () => {
  it('joins the bundle after your instructions; each change is a new revision, recorded on the turns that use it', async () => {
    const host = open({ sessionInstructions: true });
    host.instructions.setPerson({ text: 'Yours first.', intent: 'append' });
    expect(host.instructions.setProfile(FAKE_AGENT_ID, { text: 'Profile one.', intent: 'append' }).revision).toBe(1);
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const first = await ask(host, conversationId, 'instructions?');
    expect(deliveredOf(first.reply)).toEqual({ replace: null, append: `Yours first.\n\nProfile one.\n\n${BATON_FRAGMENT}` });
    expect(host.instructions.setProfile(FAKE_AGENT_ID, { text: 'Profile two.', intent: 'append' }).revision).toBe(2);
    // Saving the same text again makes no new revision.
    expect(host.instructions.setProfile(FAKE_AGENT_ID, { text: 'Profile two.', intent: 'append' }).revision).toBe(2);
    const second = await ask(host, conversationId, 'instructions?');
    expect(deliveredOf(second.reply)).toMatchObject({ append: expect.stringContaining('Profile two.') });
    const revisions = host.store
      .readEvents(conversationId)
      .events.flatMap((event) =>
        event.type === 'turn.started' ? [event.payload.instructionSources?.find((source) => source.source === 'profile')?.revision] : [],
      );
    expect(revisions).toEqual([1, 2]);
  });
});
