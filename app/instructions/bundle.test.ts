import { describe, expect, it } from 'vitest';
import { BATON_FRAGMENT } from './batonFragment.js';
import { composeBundle, MAX_INSTRUCTION_BYTES, utf8Length } from './bundle.js';
import { levelLabel, planDelivery, type InstructionCapability } from './delivery.js';

describe('composing a bundle', () => {
  it('a later replacement wins; additions join in order with a blank line', () => {
    const bundle = composeBundle([
      { source: 'person', intent: 'replace', text: 'mine replaces' },
      { source: 'person', intent: 'append', text: '  first addition ' },
      { source: 'conversation', intent: 'replace', text: 'the conversation replaces' },
      { source: 'conversation', intent: 'append', text: 'second addition' },
    ]);
    expect(bundle.replace).toBe('the conversation replaces');
    expect(bundle.append).toBe('first addition\n\nsecond addition');
  });

  it('leaves empty parts out', () => {
    const bundle = composeBundle([{ source: 'person', intent: 'append', text: '   ' }]);
    expect(bundle).toMatchObject({ replace: null, append: null, parts: [] });
  });

  it('refuses a bundle past 32 KiB, counted in UTF-8 bytes', () => {
    expect(utf8Length('é€😀')).toBe(2 + 3 + 4);
    expect(() => composeBundle([{ source: 'person', intent: 'append', text: 'é'.repeat(MAX_INSTRUCTION_BYTES / 2) }])).not.toThrow();
    expect(() => composeBundle([{ source: 'person', intent: 'append', text: 'é'.repeat(MAX_INSTRUCTION_BYTES / 2 + 1) }])).toThrow(
      /at most 32 KiB/,
    );
  });
});

describe("Baton's own fragment", () => {
  it('is short, and carries no paths or secrets', () => {
    expect(BATON_FRAGMENT.split('\n').length).toBeLessThanOrEqual(25);
    expect(BATON_FRAGMENT).not.toMatch(/\/|\\|token|key|password/i);
  });
});

describe('planning delivery for one agent', () => {
  const both: InstructionCapability = { replace: { level: 'system', via: 'a file' }, append: { level: 'system', via: 'meta' } };
  const replaceOnly: InstructionCapability = { replace: { level: 'system', via: 'a file' } };
  const commandLine: InstructionCapability = { append: { level: 'system', via: '--append-system-prompt', visibleInProcessList: true } };
  const settings = { off: false, commandLineAccepted: false };
  const bundle = (replace: string | null, append: string | null) => ({ replace, append });

  it('both intents at system level, with the fragment after the addition', () => {
    const plan = planDelivery({ agentName: 'Claude', capability: both, bundle: bundle('R', 'A'), settings, fragment: true });
    expect(plan.levels).toEqual({ replace: { kind: 'system-replaced' }, append: { kind: 'system-added' } });
    expect(plan.delivered).toEqual({ replace: 'R', append: `A\n\n${BATON_FRAGMENT}` });
    expect(plan.fragment).toBe('delivered');
  });

  it('refuses an addition the agent cannot take, saying what it can do instead', () => {
    const plan = planDelivery({ agentName: 'Gemini', capability: replaceOnly, bundle: bundle(null, 'A'), settings, fragment: true });
    expect(plan.refusal).toEqual({ intent: 'append', reason: 'Gemini cannot add to its own prompt; replace it instead' });
    expect(plan.delivered).toBeNull();
    expect(levelLabel(plan.levels.append!)).toBe('refused: Gemini cannot add to its own prompt; replace it instead');
  });

  it('skips the fragment where it cannot go, and puts it after a replacement Baton delivers', () => {
    expect(
      planDelivery({ agentName: 'Gemini', capability: replaceOnly, bundle: bundle(null, null), settings, fragment: true }),
    ).toMatchObject({ fragment: 'skipped', delivered: { replace: null, append: null }, refusal: null });
    expect(
      planDelivery({ agentName: 'Gemini', capability: replaceOnly, bundle: bundle('R', null), settings, fragment: true }).delivered,
    ).toEqual({ replace: `R\n\n${BATON_FRAGMENT}`, append: null });
    expect(
      planDelivery({ agentName: 'Gemini', capability: replaceOnly, bundle: bundle('R', null), settings, fragment: false }).delivered,
    ).toEqual({ replace: 'R', append: null });
  });

  it('a command-line channel needs the person to accept it once', () => {
    const reason = planDelivery({ agentName: 'Qwen', capability: commandLine, bundle: bundle(null, 'A'), settings, fragment: false })
      .refusal?.reason;
    expect(reason).toBe(
      'Qwen takes this only on its command line, where other users of this computer can read it in the process list; allow that for Qwen first',
    );
    // How Baton delivers it is on the card, not in the refusal.
    expect(reason).not.toContain(commandLine.append?.via ?? '--');
    expect(
      planDelivery({
        agentName: 'Qwen',
        capability: commandLine,
        bundle: bundle(null, 'A'),
        settings: { off: false, commandLineAccepted: true },
        fragment: false,
      }).delivered,
    ).toEqual({ replace: null, append: 'A' });
  });

  it("the person's own prompt setting is never doubled", () => {
    const plan = planDelivery({
      agentName: 'Mine',
      capability: both,
      bundle: bundle(null, 'A'),
      settings,
      ownPrompt: { append: '--append-system-prompt in its arguments' },
      fragment: true,
    });
    expect(plan.refusal?.reason).toMatch(/your own --append-system-prompt in its arguments is in force/);
    expect(
      planDelivery({
        agentName: 'Mine',
        capability: both,
        bundle: bundle(null, null),
        settings,
        ownPrompt: { append: 'x' },
        fragment: true,
      }).fragment,
    ).toBe('skipped');
  });

  it('delivery turned off for an agent delivers nothing and refuses nothing', () => {
    const plan = planDelivery({
      agentName: 'Claude',
      capability: both,
      bundle: bundle('R', 'A'),
      settings: { off: true, commandLineAccepted: false },
      fragment: true,
    });
    expect(plan).toMatchObject({ fragment: 'off', delivered: { replace: null, append: null }, refusal: null });
    expect(plan.levels.append?.kind).toBe('off');
  });
});
