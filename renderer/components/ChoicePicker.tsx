/**
 * A short list of choices (a dozen or fewer: a mode, an effort) as Radix's Select: the trigger is a
 * combobox named like a native select ("Mode") showing the chosen entry's name, the list shows what
 * the agent says of each entry under its name, and the keyboard works as in a select (arrows,
 * Enter, Escape, typing a name's first letters). Longer lists use {@link SearchablePicker}.
 */
import * as Select from '@radix-ui/react-select';
import { Check, ChevronDown } from 'lucide-react';
import { useLayoutEffect, useRef, useState } from 'react';
import { saidOf } from './saidOf.js';
import type { PickerEntry } from './SearchablePicker.js';

/** One entry, with an optional note after its name ("the agent decides without asking you"). */
export type ChoiceEntry = PickerEntry & { note?: string | undefined };

/** The picker. The chosen value is also on the trigger as `data-value`. */
export function ChoicePicker({
  label,
  entries,
  value,
  onChange,
  describedBy,
  title,
}: {
  label: string;
  entries: readonly ChoiceEntry[];
  value: string;
  onChange: (value: string) => void;
  describedBy?: string | undefined;
  title?: string | undefined;
}) {
  const current = entries.find((entry) => entry.value === value);
  // In a modal dialog the list opens inside it: outside, the dialog's top layer would cover it and make it inert.
  const trigger = useRef<HTMLButtonElement>(null);
  const [dialog, setDialog] = useState<HTMLElement | undefined>(undefined);
  useLayoutEffect(() => setDialog(trigger.current?.closest('dialog') ?? undefined), []);
  return (
    <Select.Root value={value} onValueChange={onChange}>
      <Select.Trigger
        ref={trigger}
        className="choice-trigger"
        aria-label={label}
        aria-describedby={describedBy}
        title={title}
        data-value={value}
      >
        <Select.Value>{current?.name ?? value}</Select.Value>
        <Select.Icon className="choice-icon">
          <ChevronDown aria-hidden size={14} />
        </Select.Icon>
      </Select.Trigger>
      <Select.Portal container={dialog}>
        <Select.Content className="choice-content" position="popper" sideOffset={4} collisionPadding={8}>
          <Select.Viewport>
            {entries.map((entry) => (
              <Select.Item key={entry.value} value={entry.value} className="choice-item" data-value={entry.value}>
                <Select.ItemText>{entry.note ? `${entry.name} (${entry.note})` : entry.name}</Select.ItemText>
                <Select.ItemIndicator className="choice-check">
                  <Check aria-hidden size={14} />
                </Select.ItemIndicator>
                {saidOf(entry.name, entry.description) ? (
                  <span className="choice-description">{saidOf(entry.name, entry.description)}</span>
                ) : null}
              </Select.Item>
            ))}
          </Select.Viewport>
        </Select.Content>
      </Select.Portal>
    </Select.Root>
  );
}

/** Radix's Select takes no empty value: a list holding one stays a native select. */
export function fitsChoicePicker(entries: readonly { value: string }[]): boolean {
  return entries.every((entry) => entry.value !== '');
}
