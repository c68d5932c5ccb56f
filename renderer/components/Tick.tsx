/**
 * A checkbox in the app's design: Radix's Checkbox (a button with role "checkbox" and
 * aria-checked) inside its label, so the label names it and a click on the label ticks it, as with
 * a native checkbox. `label` names it where the visible text says more than its name.
 */
import * as Checkbox from '@radix-ui/react-checkbox';
import { Check } from 'lucide-react';
import type { ReactNode } from 'react';

export function Tick({
  checked,
  onChange,
  children,
  label,
  disabled,
  describedBy,
  className,
  title,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  children?: ReactNode;
  label?: string | undefined;
  disabled?: boolean | undefined;
  describedBy?: string | undefined;
  className?: string | undefined;
  title?: string | undefined;
}) {
  return (
    <label className={className ? `tick-label ${className}` : 'tick-label'} title={title}>
      <Checkbox.Root
        className="tick"
        checked={checked}
        disabled={disabled}
        aria-label={label}
        aria-describedby={describedBy}
        onCheckedChange={(state) => onChange(state === true)}
      >
        <Checkbox.Indicator className="tick-mark">
          <Check aria-hidden size={12} strokeWidth={3} />
        </Checkbox.Indicator>
      </Checkbox.Root>
      {children}
    </label>
  );
}
