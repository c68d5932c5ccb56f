// @vitest-environment happy-dom
/** A long list of choices: typing filters by every word of name or value, the keyboard picks, nothing matching is said. */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SearchablePicker } from './SearchablePicker.js';

afterEach(cleanup);

const models = Array.from({ length: 20 }, (_, index) => ({ value: `provider/model-${index}`, name: `Model ${index}` })).concat([
  { value: 'openai/gpt-5.4-mini', name: 'GPT 5.4 mini' },
]);

describe('SearchablePicker', () => {
  it('filters as a part of a name is typed, and Enter picks the first match', () => {
    const onChange = vi.fn();
    render(<SearchablePicker label="Model" entries={models} value="provider/model-0" onChange={onChange} />);
    const input = screen.getByRole('combobox', { name: 'Model' });
    expect((input as HTMLInputElement).value).toBe('Model 0');
    fireEvent.change(input, { target: { value: 'mini gpt' } });
    const options = screen.getAllByRole('option');
    expect(options.map((option) => option.getAttribute('aria-label'))).toEqual(['GPT 5.4 mini']);
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onChange).toHaveBeenCalledWith('openai/gpt-5.4-mini');
  });

  it('picks the only match with Enter alone, at once', () => {
    const onChange = vi.fn();
    render(<SearchablePicker label="Model" entries={models} value="provider/model-0" onChange={onChange} />);
    const input = screen.getByRole('combobox', { name: 'Model' });
    fireEvent.change(input, { target: { value: 'g' } });
    fireEvent.change(input, { target: { value: 'gpt' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onChange).toHaveBeenCalledWith('openai/gpt-5.4-mini');
  });

  it('matches the value too, and says when nothing matches', () => {
    render(<SearchablePicker label="Model" entries={models} value="provider/model-0" onChange={() => {}} />);
    const input = screen.getByRole('combobox', { name: 'Model' });
    fireEvent.change(input, { target: { value: 'model-1' } });
    expect(screen.getAllByRole('option').map((option) => option.getAttribute('aria-label'))).toEqual([
      'Model 1',
      ...Array.from({ length: 10 }, (_, index) => `Model ${index + 10}`),
    ]);
    fireEvent.change(input, { target: { value: 'nothing like it' } });
    expect(screen.queryAllByRole('option')).toHaveLength(0);
    expect(screen.getByText('Nothing matches “nothing like it”.')).toBeTruthy();
  });

  it('Escape leaves the chosen entry as it was', () => {
    const onChange = vi.fn();
    render(<SearchablePicker label="Model" entries={models} value="provider/model-3" onChange={onChange} />);
    const input = screen.getByRole('combobox', { name: 'Model' });
    fireEvent.change(input, { target: { value: 'Model 7' } });
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(onChange).not.toHaveBeenCalled();
  });
});
