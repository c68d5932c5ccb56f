/**
 * Standing instructions: the parts a person wrote (their own, a conversation's), each with an
 * intent — replace the agent's built-in system prompt, or add to it — composed once into a
 * bundle that starts, resumes and prompts consume as it is. Pure: the host adds the digest.
 */
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';

/** Replace the agent's built-in prompt, or keep it and add to it. */
export const instructionIntentSchema = z.enum(['append', 'replace']);
/** One of {@link instructionIntentSchema}. */
export type InstructionIntent = z.infer<typeof instructionIntentSchema>;

/**
 * Where a part comes from, in composition order: yours, the trusted project's, the agent's profile, the selected injectors' every-turn
 * instructions, the conversation's.
 */
export const instructionSourceSchema = z.enum(['person', 'project', 'profile', 'injector', 'conversation']);
/** One of {@link instructionSourceSchema}. */
export type InstructionSource = z.infer<typeof instructionSourceSchema>;

/** Text with its intent, as stored (a person's setting, a conversation's event). */
export const instructionTextSchema = z.object({ text: z.string().max(1_000_000), intent: instructionIntentSchema });
/** One of {@link instructionTextSchema}. */
export type InstructionText = z.infer<typeof instructionTextSchema>;

/** One part of a bundle (an injector's names it). */
export type InstructionPart = InstructionText & { source: InstructionSource; name?: string };

/** What one session is given: the effective replacement and addition, and the parts they came from. */
export type InstructionBundle = Readonly<{
  /** The replacement of the agent's prompt: the last replacing part wins. */
  replace: string | null;
  /** The addition: every adding part, in order, a blank line between. */
  append: string | null;
  /** The non-empty parts, in composition order. */
  parts: readonly InstructionPart[];
}>;

/** The largest bundle Baton delivers, in UTF-8 bytes. */
export const MAX_INSTRUCTION_BYTES = 32 * 1024;

/** Human names of the sources, for messages and the preview. */
export const SOURCE_NAMES: Record<InstructionSource, string> = {
  person: 'Your instructions',
  project: "This folder's instructions (.baton/instructions.md)",
  profile: "The agent's profile",
  injector: 'Injector',
  conversation: "This conversation's instructions",
};

/** UTF-8 length of `text` (app/ has no TextEncoder type to lean on). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * Composes the parts in order: a later replacement wins over an earlier one, additions join in
 * order with a blank line between; empty parts are left out. Throws past {@link MAX_INSTRUCTION_BYTES}.
 */
export function composeBundle(parts: ReadonlyArray<InstructionPart>): InstructionBundle {
  const kept = parts.filter((part) => part.text.trim() !== '').map((part) => ({ ...part, text: part.text.trim() }));
  const replace = kept.filter((part) => part.intent === 'replace').at(-1)?.text ?? null;
  const additions = kept.filter((part) => part.intent === 'append').map((part) => part.text);
  const append = additions.length > 0 ? additions.join('\n\n') : null;
  const size = utf8Length(replace ?? '') + utf8Length(append ?? '');
  if (size > MAX_INSTRUCTION_BYTES) {
    throw new InvalidRequestError(
      `Your instructions come to ${Math.ceil(size / 1024)} KiB; Baton delivers at most ${MAX_INSTRUCTION_BYTES / 1024} KiB. Shorten them and try again.`,
    );
  }
  return Object.freeze({ replace, append, parts: Object.freeze(kept) });
}

/** The text the digest is taken over: only what is delivered, in a fixed shape. */
export function digestInput(bundle: InstructionBundle): string {
  return JSON.stringify({ replace: bundle.replace, append: bundle.append });
}
