/**
 * Elicitation forms: what an answer to an agent's `elicitation/create` form may contain, checked
 * the same way in the page (before sending) and in the host (before the agent gets it).
 */
import { z } from 'zod';
import type { elicitationFieldSchema, elicitationSchemaSchema } from '../events/schemas.js';

/** A form's schema as recorded in the transcript. */
export type ElicitationSchema = z.infer<typeof elicitationSchemaSchema>;
/** One field of a form. */
export type ElicitationField = z.infer<typeof elicitationFieldSchema>;
/** One answered value. */
export type ElicitationValue = string | number | boolean | string[];

/** Values a person may send for a form, checked against the schema below. */
export const elicitationContentSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));

/** The choices of a single- or multi-select field, or undefined for free input. */
export function fieldChoices(field: ElicitationField): Array<{ value: string; label: string }> | undefined {
  if (field.type === 'array') {
    const items = field.items;
    if (items?.anyOf) {
      return items.anyOf.map((option) => ({ value: option.const, label: option.title }));
    }
    return items?.enum?.map((value) => ({ value, label: value }));
  }
  if (field.oneOf) {
    return field.oneOf.map((option) => ({ value: option.const, label: option.title }));
  }
  return field.enum?.map((value) => ({ value, label: value }));
}

/** Field types Baton can show as inputs. */
const SHOWN_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array']);

/** True when every field of the form can be shown (else the form is offered to decline only). */
export function formIsShowable(schema: ElicitationSchema | undefined): boolean {
  return Object.values(schema?.properties ?? {}).every((field) => SHOWN_TYPES.has(field.type));
}

function isSet(value: number | null | undefined): value is number {
  return value !== null && value !== undefined;
}

function fieldName(name: string, field: ElicitationField): string {
  return field.title ?? name;
}

/** Problems with `content` as an answer to `schema`, as sentences; empty when it may be sent. */
export function checkElicitationAnswer(schema: ElicitationSchema | undefined, content: Record<string, ElicitationValue>): string[] {
  const problems: string[] = [];
  const properties = schema?.properties ?? {};
  for (const name of schema?.required ?? []) {
    const value = content[name];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) {
      problems.push(`${fieldName(name, properties[name] ?? { type: 'string' })} is required.`);
    }
  }
  for (const [name, value] of Object.entries(content)) {
    const field = properties[name];
    if (!field) {
      problems.push(`The form has no field "${name}".`);
      continue;
    }
    const label = fieldName(name, field);
    const choices = fieldChoices(field)?.map((choice) => choice.value);
    switch (field.type) {
      case 'string':
        if (typeof value !== 'string') {
          problems.push(`${label} must be text.`);
        } else if (choices && !choices.includes(value)) {
          problems.push(`${label} must be one of: ${choices.join(', ')}.`);
        } else if (isSet(field.minLength) && value.length < field.minLength) {
          problems.push(`${label} must be at least ${field.minLength} characters.`);
        } else if (isSet(field.maxLength) && value.length > field.maxLength) {
          problems.push(`${label} must be at most ${field.maxLength} characters.`);
        } else if (field.format === 'email' && value !== '' && !/^[^\s@]+@[^\s@]+$/.test(value)) {
          problems.push(`${label} must be an email address.`);
        }
        break;
      case 'number':
      case 'integer':
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          problems.push(`${label} must be a number.`);
        } else if (field.type === 'integer' && !Number.isInteger(value)) {
          problems.push(`${label} must be a whole number.`);
        } else if (isSet(field.minimum) && value < field.minimum) {
          problems.push(`${label} must be at least ${field.minimum}.`);
        } else if (isSet(field.maximum) && value > field.maximum) {
          problems.push(`${label} must be at most ${field.maximum}.`);
        }
        break;
      case 'boolean':
        if (typeof value !== 'boolean') {
          problems.push(`${label} must be yes or no.`);
        }
        break;
      case 'array':
        if (!Array.isArray(value)) {
          problems.push(`${label} must be a list of choices.`);
        } else if (choices && value.some((item) => !choices.includes(item))) {
          problems.push(`${label} must be chosen from: ${choices.join(', ')}.`);
        } else if (isSet(field.minItems) && value.length < field.minItems) {
          problems.push(`Choose at least ${field.minItems} for ${label}.`);
        } else if (isSet(field.maxItems) && value.length > field.maxItems) {
          problems.push(`Choose at most ${field.maxItems} for ${label}.`);
        }
        break;
      default:
        problems.push(`${label} has a kind of field Baton cannot fill in (${field.type}).`);
    }
  }
  return problems;
}
