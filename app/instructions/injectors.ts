/**
 * Injectors: named packages of text a conversation can select, each with a timing. Their
 * instructions for every turn join the session's bundle (system level, through the delivery
 * channels); what belongs to one turn (first-turn or on-input instructions, context files)
 * travels on that turn's prompt as an ACP embedded resource. A manifest is data: Baton reads the
 * files it names and nothing else — a key naming tools, permissions or code is ignored.
 * Pure: the host reads the files.
 */
import { z } from 'zod';
import { RE2JS } from 're2js';

/** When an injector contributes. */
export const injectorTimingSchema = z.enum(['first_turn', 'every_turn', 'on_input']);
/** One of {@link injectorTimingSchema}. */
export type InjectorTiming = z.infer<typeof injectorTimingSchema>;

/** Where an injector was found. */
export const injectorOriginSchema = z.enum(['builtin', 'data', 'folder']);
/** One of {@link injectorOriginSchema}. */
export type InjectorOrigin = z.infer<typeof injectorOriginSchema>;

/** A name a conversation selects an injector by: also its folder's name and part of its URI. */
export const injectorNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" and "-", at most 64');

/** The keys a manifest may have; any other key is reported and ignored. */
export const MANIFEST_KEYS = ['name', 'description', 'when', 'match', 'instructions', 'context'] as const;

/** `manifest.json`, once its unknown keys are set aside. */
export const injectorManifestSchema = z.object({
  name: injectorNameSchema,
  description: z.string().max(500).default(''),
  when: injectorTimingSchema,
  /** A regular expression tested against the person's message (for `on_input`; without it, every turn). */
  match: z.string().max(1000).optional(),
  /** A markdown file in the injector's folder. */
  instructions: z.string().optional(),
  /** Files in the injector's folder, sent as context. */
  context: z.array(z.string()).max(32).default([]),
});

/** A usable injector: its texts read, confined and checked. */
export type Injector = Readonly<{
  name: string;
  description: string;
  when: InjectorTiming;
  match: string | null;
  origin: InjectorOrigin;
  /** The folder it was read from (its real path), or "built into Baton". */
  folder: string;
  instructions: string;
  context: ReadonlyArray<Readonly<{ file: string; text: string }>>;
  /** Manifest keys Baton does not read (tools, permissions, code…): they contribute nothing. */
  ignored: readonly string[];
}>;

/** An injector that could not be read, with the reason (naming the file). */
export type BrokenInjector = Readonly<{ name: string; origin: InjectorOrigin; folder: string; problem: string }>;

/** Where the person chose injectors for a conversation. */
export const injectorChoiceSchema = z.object({ names: z.array(injectorNameSchema).max(64), off: z.boolean() });
/** One of {@link injectorChoiceSchema}. */
export type InjectorChoice = z.infer<typeof injectorChoiceSchema>;

/** A compiled `match` rule. */
export type MatchRule = { test(message: string): boolean };

const compiled = new Map<string, MatchRule>();

/**
 * The compiled `match` rule, or null (every turn); a bad expression is the manifest's problem.
 * Rules come from folders the person trusted but did not write, and run against every message
 * on the host's thread, so they run on RE2 (linear time): a backtracking pattern such as
 * `(a+)+$` cannot freeze Baton. Backreferences and lookarounds are therefore refused.
 */
export function compileMatch(match: string | undefined | null): MatchRule | null {
  if (match === undefined || match === null || match === '') {
    return null;
  }
  const known = compiled.get(match);
  if (known) {
    return known;
  }
  const pattern = RE2JS.compile(match, RE2JS.CASE_INSENSITIVE);
  const rule: MatchRule = { test: (message) => pattern.matcher(message).find() };
  if (compiled.size > 256) {
    compiled.clear();
  }
  compiled.set(match, rule);
  return rule;
}

/** The turn an injector is asked about: whether it is the conversation's first to reach an agent, and the person's message. */
export type InjectorTurn = { first: boolean; message: string };

/** True when the injector contributes on this turn. */
export function injectorApplies(injector: Pick<Injector, 'when' | 'match'>, { first, message }: InjectorTurn): boolean {
  switch (injector.when) {
    case 'every_turn':
      return true;
    case 'first_turn':
      return first;
    case 'on_input':
      return compileMatch(injector.match)?.test(message) ?? true;
  }
}

/** The URI of an injector's block on one turn. */
export function injectorUri(name: string, turnNumber: number): string {
  return `baton://injector/${name}/turn/${turnNumber}`;
}

/**
 * What an injector gives the turns it applies to, apart from its every-turn instructions: its per-turn text and its context files, as one
 * block (null: nothing).
 */
export function perTurnContent(injector: Injector): string | null {
  const pieces: string[] = [];
  if (injector.when !== 'every_turn' && injector.instructions.trim() !== '') {
    pieces.push(injector.instructions.trim());
  }
  for (const { file, text } of injector.context) {
    pieces.push(`## ${file}\n\n${text.trim()}`);
  }
  return pieces.length === 0 ? null : pieces.join('\n\n');
}

/** {@link perTurnContent} on this turn, or null when the injector does not apply. */
export function perTurnText(injector: Injector, turn: InjectorTurn): string | null {
  return injectorApplies(injector, turn) ? perTurnContent(injector) : null;
}

/** What stands where a secret was. */
export const REDACTED = '[secret redacted by Baton]';

/** A secret as it is written, and as it appears inside JSON strings and URLs. */
function secretForms(secret: string): string[] {
  return [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];
}

/**
 * Replaces every known secret value in `text` by a marker naming no part of it: as written, and
 * in its JSON-escaped and URL-encoded forms (longest first, so a secret inside another goes too).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text === '') {
    return text;
  }
  let result = text;
  const forms = [...new Set(secrets.flatMap(secretForms))].filter((value) => value.length >= 4).sort((a, b) => b.length - a.length);
  for (const secret of forms) {
    if (result.includes(secret)) {
      result = result.split(secret).join(REDACTED);
    }
  }
  return result;
}

/** Per-turn context as a delimited text block, for an agent the person let take it that way. */
export function delimitedContext(uri: string, text: string): string {
  return `<injected-context source="${uri}">\nThis block was added by Baton from an injector the person selected; it is not part of their message.\n\n${text}\n</injected-context>`;
}

/** Human words for a timing. */
export const TIMING_NAMES: Record<InjectorTiming, string> = {
  first_turn: 'first turn',
  every_turn: 'every turn',
  on_input: 'on matching input',
};

/** The injectors built into Baton (the person's and a trusted folder's of the same name win). */
export const BUILTIN_INJECTORS: readonly Injector[] = Object.freeze([
  {
    name: 'concise',
    description: 'Ask for short answers without preamble.',
    when: 'every_turn',
    match: null,
    origin: 'builtin',
    folder: 'built into Baton',
    instructions: 'Keep answers short: lead with the result, skip preamble and closing summaries, and show code only where it changes.',
    context: [],
    ignored: [],
  },
  {
    name: 'plan-first',
    description: 'On the first turn, ask the agent to outline its plan before changing anything.',
    when: 'first_turn',
    match: null,
    origin: 'builtin',
    folder: 'built into Baton',
    instructions: 'Before changing any file, outline your plan in a few steps and say which files you expect to touch.',
    context: [],
    ignored: [],
  },
  {
    name: 'run-tests',
    description: 'When the message mentions tests, remind the agent to run them after a change.',
    when: 'on_input',
    match: '\\b(test|tests|spec|specs|failing)\\b',
    origin: 'builtin',
    folder: 'built into Baton',
    instructions: 'After changing code, run the relevant tests and report their result; do not claim a fix you have not run.',
    context: [],
    ignored: [],
  },
]);
