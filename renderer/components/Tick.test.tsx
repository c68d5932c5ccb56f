// @vitest-environment happy-dom
/** The app's checkbox: named by its label (or `label`), ticked by a click on it or on its label, never when disabled. */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Tick } from './Tick.js';

afterEach(cleanup);

function Ticked({ onChange, disabled }: { onChange: (checked: boolean) => void; disabled?: boolean }) {
  const [checked, setChecked] = useState(false);
  return (
    <Tick
      checked={checked}
      disabled={disabled}
      onChange={(next) => {
        setChecked(next);
        onChange(next);
      }}
    >
      Run each in its own container
    </Tick>
  );
}

describe('Tick', () => {
  it('is a checkbox named by its label; a click on the box or on the words ticks and unticks it', () => {
    const onChange = vi.fn();
    render(<Ticked onChange={onChange} />);
    const box = screen.getByRole('checkbox', { name: 'Run each in its own container' });
    expect(box.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(box);
    expect(box.getAttribute('aria-checked')).toBe('true');
    fireEvent.click(screen.getByText('Run each in its own container'));
    expect(box.getAttribute('aria-checked')).toBe('false');
    expect(onChange.mock.calls).toEqual([[true], [false]]);
  });

  it('takes a name of its own where the words shown say more, and does nothing while disabled', () => {
    const onChange = vi.fn();
    render(
      <Tick checked={false} label="github" disabled onChange={onChange}>
        <strong>github</strong> http · https://mcp.example.com
      </Tick>,
    );
    const box = screen.getByRole('checkbox', { name: 'github' });
    fireEvent.click(box);
    expect(onChange).not.toHaveBeenCalled();
    expect((box as HTMLButtonElement).disabled).toBe(true);
  });
});
