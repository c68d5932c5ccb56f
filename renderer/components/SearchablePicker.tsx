/**
 * A combobox for a long list of choices (more than a dozen: OpenCode's ~150 models), searchable by
 * name and value: typing filters, the arrow keys, Enter and Escape work as in any combobox
 * (downshift's `useCombobox`). Its accessible name is the option's ("Model"), as a native select's
 * would be; the value shown is the chosen entry's name.
 */
import { useCombobox, type UseComboboxState, type UseComboboxStateChangeOptions } from 'downshift';
import { useMemo, useState } from 'react';
import { saidOf } from './saidOf.js';

/** One entry: its value, its name, what the agent says of it. */
export type PickerEntry = { value: string; name: string; description?: string | undefined };

/** Lists longer than this are searchable; shorter ones stay native selects. */
export const SEARCHABLE_AFTER = 12;

/** Whether `entry` matches what was typed: every word appears in its name or value. */
function matches(entry: PickerEntry, query: string): boolean {
  const haystack = `${entry.name} ${entry.value}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

/**
 * The entries arrived (or the choice changed elsewhere) while the person is in the open picker:
 * the change with what they typed kept, never replaced by the chosen entry's name or added to it.
 * Otherwise undefined. For a combobox's `stateReducer`, ahead of its own rules.
 */
export function keepTyped<Item>(
  state: UseComboboxState<Item>,
  { type, changes }: UseComboboxStateChangeOptions<Item>,
): Partial<UseComboboxState<Item>> | undefined {
  return type === useCombobox.stateChangeTypes.ControlledPropUpdatedSelectedItem && state.isOpen
    ? { ...changes, inputValue: state.inputValue }
    : undefined;
}

/** The picker. */
export function SearchablePicker({
  label,
  entries,
  value,
  onChange,
  describedBy,
}: {
  label: string;
  entries: readonly PickerEntry[];
  value: string;
  onChange: (value: string) => void;
  describedBy?: string | undefined;
}) {
  const [query, setQuery] = useState<string | null>(null);
  const selected = entries.find((entry) => entry.value === value) ?? null;
  const items = useMemo(
    () => (query === null || query === '' ? [...entries] : entries.filter((entry) => matches(entry, query))),
    [entries, query],
  );
  const { isOpen, getInputProps, getMenuProps, getItemProps, getToggleButtonProps, highlightedIndex } = useCombobox<PickerEntry>({
    items,
    selectedItem: selected,
    itemToString: (entry) => entry?.name ?? '',
    itemToKey: (entry) => entry?.value,
    // What is typed highlights its first match, so Enter picks it (the only match, at once).
    stateReducer: (state, action) =>
      keepTyped(state, action) ??
      (action.type === useCombobox.stateChangeTypes.InputChange && action.changes.inputValue
        ? { ...action.changes, highlightedIndex: entries.some((entry) => matches(entry, action.changes.inputValue ?? '')) ? 0 : -1 }
        : action.changes),
    onInputValueChange: ({ inputValue, type }) => {
      // Typing filters; opening, picking and leaving show the chosen entry's name again.
      setQuery(type === useCombobox.stateChangeTypes.InputChange ? inputValue : null);
    },
    onSelectedItemChange: ({ selectedItem }) => {
      if (selectedItem && selectedItem.value !== value) {
        onChange(selectedItem.value);
      }
    },
  });
  return (
    <span className="searchable-picker">
      <span className="agent-picker-field">
        <input
          {...getInputProps({
            'aria-label': label,
            ...(describedBy ? { 'aria-describedby': describedBy } : {}),
            placeholder: `Search ${entries.length} entries`,
            title: selected?.description,
          })}
          className="agent-picker-input"
        />
        <button
          type="button"
          className="agent-picker-toggle"
          {...getToggleButtonProps({ 'aria-label': `All ${label.toLowerCase()} choices (${entries.length})` })}
          tabIndex={-1}
        >
          ▾
        </button>
      </span>
      <ul {...getMenuProps({ 'aria-label': label })} className={isOpen ? 'agent-picker-menu open' : 'agent-picker-menu'}>
        {isOpen && items.length === 0 ? <li className="agent-picker-empty">Nothing matches “{query}”.</li> : null}
        {isOpen
          ? items.map((entry, index) => (
              <li
                key={entry.value}
                {...getItemProps({ item: entry, index, 'aria-label': entry.name })}
                className={['agent-option', highlightedIndex === index ? 'highlighted' : '', entry.value === value ? 'selected' : '']
                  .filter(Boolean)
                  .join(' ')}
              >
                <span className="agent-option-text">
                  <span className="agent-option-name">
                    {entry.name}
                    {entry.name !== entry.value ? <span className="muted"> {entry.value}</span> : null}
                  </span>
                  {saidOf(entry.name, entry.description) ? (
                    <span className="agent-option-description">{saidOf(entry.name, entry.description)}</span>
                  ) : null}
                </span>
              </li>
            ))
          : null}
      </ul>
    </span>
  );
}
