import { describe, expect, it } from 'vitest';
import { checkElicitationAnswer, fieldChoices, formIsShowable, type ElicitationSchema } from './elicitation.js';

const schema: ElicitationSchema = {
  properties: {
    name: { type: 'string', title: 'Your name', minLength: 2 },
    color: {
      type: 'string',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    },
    count: { type: 'integer', minimum: 1, maximum: 5 },
    subscribe: { type: 'boolean' },
    tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 1 },
  },
  required: ['name'],
};

describe('elicitation answers', () => {
  it('accepts a valid answer', () => {
    expect(checkElicitationAnswer(schema, { name: 'Ada', color: 'g', count: 3, subscribe: true, tags: ['b'] })).toEqual([]);
  });

  it('names every problem', () => {
    expect(checkElicitationAnswer(schema, { color: 'blue', count: 2.5, subscribe: 'yes', tags: ['a', 'b'], extra: 'x' })).toEqual([
      'Your name is required.',
      'color must be one of: r, g.',
      'count must be a whole number.',
      'subscribe must be yes or no.',
      'Choose at most 1 for tags.',
      'The form has no field "extra".',
    ]);
    expect(checkElicitationAnswer(schema, { name: 'A', count: 9 })).toEqual([
      'Your name must be at least 2 characters.',
      'count must be at most 5.',
    ]);
  });

  it('reads choices from enum, oneOf and multi-select items', () => {
    expect(fieldChoices(schema.properties!.color!)).toEqual([
      { value: 'r', label: 'Red' },
      { value: 'g', label: 'Green' },
    ]);
    expect(fieldChoices(schema.properties!.tags!)).toEqual([
      { value: 'a', label: 'a' },
      { value: 'b', label: 'b' },
    ]);
    expect(fieldChoices(schema.properties!.name!)).toBeUndefined();
  });

  it('a form with a field kind Baton does not know cannot be filled in', () => {
    expect(formIsShowable(schema)).toBe(true);
    expect(formIsShowable({ properties: { x: { type: '_custom' } } })).toBe(false);
  });
});
