/**
 * The host API contract as a whole: every request's params and result, every pushed event and
 * every transcript event's payload accepts a value made from its own schema, keeps it through a
 * JSON round trip (what both transports do), and refuses values that are not of its shape.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { payloadSchemas } from '../events/schemas.js';
import { pushEvents, requests } from './contract.js';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  additionalProperties?: JsonSchema | boolean;
  default?: unknown;
};

/** Strings the patterns of the contract accept, by pattern. */
const PATTERN_SAMPLES = [
  'sample',
  'a',
  '0123456789abcdef0123456789abcdef01234567',
  'a'.repeat(64),
  'custom:sample',
  'https://example.com/x',
  '1.2.3',
];

/** A value the JSON schema accepts, made of its first choice of everything (required properties and all known ones). */
function sample(schema: JsonSchema): unknown {
  if (schema.const !== undefined) {
    return schema.const;
  }
  if (schema.enum && schema.enum.length > 0) {
    return schema.enum[0];
  }
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice && choice.length > 0) {
    // The first choice that is not null (a nullable value is shown with a value).
    return sample(choice.find((option) => option.type !== 'null') ?? choice[0]!);
  }
  if (schema.allOf && schema.allOf.length > 0) {
    return Object.assign({}, ...schema.allOf.map((part) => sample(part) as object));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : undefined)) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sample(value)]));
    case 'array':
      return schema.prefixItems
        ? schema.prefixItems.map(sample)
        : Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}));
    case 'integer':
      return Math.max(1, Math.ceil(schema.minimum ?? 0), (schema.exclusiveMinimum ?? 0) + 1);
    case 'number':
      return Math.max(1, schema.minimum ?? 0, (schema.exclusiveMinimum ?? 0) + 1);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string': {
      if (schema.format === 'date-time') {
        return '2026-12-03T00:00:00.000Z';
      }
      if (schema.format === 'uri' || schema.format === 'url') {
        return 'https://example.com/x';
      }
      if (schema.pattern) {
        const pattern = new RegExp(schema.pattern);
        return PATTERN_SAMPLES.find((candidate) => pattern.test(candidate)) ?? 'no sample for this pattern';
      }
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    }
    default:
      return 'sample';
  }
}

/** What is wrong with a schema of the contract: a value made from it refused or changed by JSON, or a value of another shape taken. */
function problemsOf(name: string, schema: z.ZodType): string[] {
  const shape = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const problems: string[] = [];
  const parsed = schema.safeParse(sample(shape));
  if (!parsed.success) {
    problems.push(
      `${name}: refuses a value made from its schema (${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')})`,
    );
  } else {
    const again = schema.safeParse(JSON.parse(JSON.stringify(parsed.data)));
    if (!again.success || JSON.stringify(again.data) !== JSON.stringify(parsed.data)) {
      problems.push(`${name}: changes through a JSON round trip`);
    }
  }
  // An open value (anything an agent sent, kept as it came) has no wrong shape.
  const open = shape.type === undefined && !shape.properties && !shape.anyOf && !shape.oneOf && !shape.enum && shape.const === undefined;
  const wrong = shape.type === 'string' ? 42 : shape.type === 'array' ? { not: 'a list' } : 'not an object';
  if (!open && schema.safeParse(wrong).success) {
    problems.push(`${name}: takes ${JSON.stringify(wrong)}`);
  }
  return problems;
}

describe('the host API contract', () => {
  it("every request's params and result take a value made from their schema, keep it through JSON, and refuse another shape", () => {
    expect(Object.keys(requests).length).toBeGreaterThan(60);
    expect(
      Object.entries(requests).flatMap(([method, { params, result }]) => [
        ...problemsOf(`${method} params`, params),
        ...problemsOf(`${method} result`, result),
      ]),
    ).toEqual([]);
  });

  it('so does every pushed event', () => {
    expect(Object.entries(pushEvents).flatMap(([name, schema]) => problemsOf(name, schema))).toEqual([]);
  });

  it("so does every transcript event's payload", () => {
    expect(Object.entries(payloadSchemas).flatMap(([type, schema]) => problemsOf(type, schema))).toEqual([]);
  });

  it('finds what is wrong: a schema whose sample it refuses, and one that takes any shape', () => {
    expect(problemsOf('strict', z.object({ id: z.string().regex(/^never$/) }))).toEqual([
      'strict: refuses a value made from its schema (id: Invalid string: must match pattern /^never$/)',
    ]);
    expect(problemsOf('loose', z.union([z.object({ a: z.string() }), z.string()]))).toEqual(['loose: takes "not an object"']);
  });
});
