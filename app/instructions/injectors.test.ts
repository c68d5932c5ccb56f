import { describe, expect, it } from 'vitest';
import {
  BUILTIN_INJECTORS,
  compileMatch,
  delimitedContext,
  injectorApplies,
  injectorManifestSchema,
  perTurnText,
  redactSecrets,
  type Injector,
} from './injectors.js';

const injector = (overrides: Partial<Injector>): Injector => ({
  name: 'x',
  description: '',
  when: 'every_turn',
  match: null,
  origin: 'data',
  folder: '/f',
  instructions: 'Do X.',
  context: [],
  ignored: [],
  ...overrides,
});

describe('injector timing', () => {
  it('first_turn applies only to the first turn that reaches an agent; every_turn always', () => {
    expect(injectorApplies(injector({ when: 'first_turn' }), { first: true, message: '' })).toBe(true);
    expect(injectorApplies(injector({ when: 'first_turn' }), { first: false, message: '' })).toBe(false);
    expect(injectorApplies(injector({ when: 'every_turn' }), { first: false, message: '' })).toBe(true);
  });

  it('on_input applies where its rule matches the message (case-insensitively), and on every turn without a rule', () => {
    const rule = injector({ when: 'on_input', match: '\\bdeploy\\b' });
    expect(injectorApplies(rule, { first: false, message: 'Please DEPLOY it' })).toBe(true);
    expect(injectorApplies(rule, { first: false, message: 'redeployment' })).toBe(false);
    expect(injectorApplies(injector({ when: 'on_input' }), { first: false, message: 'anything' })).toBe(true);
    expect(() => compileMatch('(')).toThrow();
  });

  it('runs match rules in linear time: a catastrophic backtracking pattern answers at once', () => {
    const rule = injector({ when: 'on_input', match: '^(a+)+$' });
    // A backtracking engine takes about 2^40 steps for this message (hours, far past the test's
    // time-out); RE2 answers in a few microseconds a character.
    expect(injectorApplies(rule, { first: false, message: `${'a'.repeat(40)}!` })).toBe(false);
    expect(injectorApplies(rule, { first: false, message: 'aaaa' })).toBe(true);
    // What RE2 cannot do in linear time is refused as the manifest's problem.
    expect(() => compileMatch('(a)\\1')).toThrow();
  });

  it('gives a turn its own instructions (not every-turn ones, which are in the bundle) and its context files under their names', () => {
    expect(perTurnText(injector({ when: 'every_turn' }), { first: true, message: '' })).toBeNull();
    expect(perTurnText(injector({ when: 'every_turn', context: [{ file: 'a.md', text: 'A\n' }] }), { first: false, message: '' })).toBe(
      '## a.md\n\nA',
    );
    expect(perTurnText(injector({ when: 'first_turn', context: [{ file: 'a.md', text: 'A' }] }), { first: true, message: '' })).toBe(
      'Do X.\n\n## a.md\n\nA',
    );
    expect(perTurnText(injector({ when: 'first_turn' }), { first: false, message: '' })).toBeNull();
  });
});

describe('injector output', () => {
  it('has every known secret redacted, the longest first, and short values left alone', () => {
    expect(redactSecrets('key=abcd1234 and abcd1234-extra, id=ab', ['abcd1234', 'abcd1234-extra', 'ab'])).toBe(
      'key=[secret redacted by Baton] and [secret redacted by Baton], id=ab',
    );
  });

  it('as delimited text is labelled as injected context with its source', () => {
    const text = delimitedContext('baton://injector/x/turn/2', 'BODY');
    expect(text).toMatch(/^<injected-context source="baton:\/\/injector\/x\/turn\/2">/);
    expect(text).toContain('not part of their message');
    expect(text).toMatch(/BODY\n<\/injected-context>$/);
  });

  it('built-in injectors have valid manifests and rules', () => {
    for (const builtin of BUILTIN_INJECTORS) {
      expect(
        injectorManifestSchema.safeParse({
          name: builtin.name,
          description: builtin.description,
          when: builtin.when,
          ...(builtin.match ? { match: builtin.match } : {}),
        }).success,
      ).toBe(true);
      expect(() => compileMatch(builtin.match)).not.toThrow();
    }
  });
});
