/**
 * Suggestions tied to a text field (commands after /, files after @, folders): the listbox that
 * shows them, and the hook that asks the host for them. The field keeps its own role and points
 * at the list with aria-controls and aria-activedescendant (`<prefix>-<index>`).
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';

/** Listbox "<label>" with id `<prefix>-suggestions`; the highlighted option is the active one. */
export function SuggestionList({
  prefix,
  label,
  className,
  options,
  highlight,
  choose,
}: {
  prefix: string;
  label: string;
  className?: string;
  options: ReadonlyArray<{ key: string; content: ReactNode }>;
  highlight: number;
  choose: (index: number) => void;
}) {
  return (
    <ul
      className={className ? `command-suggestions ${className}` : 'command-suggestions'}
      id={`${prefix}-suggestions`}
      role="listbox"
      aria-label={label}
    >
      {options.map((option, index) => (
        <li
          key={option.key}
          id={`${prefix}-${index}`}
          role="option"
          aria-selected={index === highlight}
          className={index === highlight ? 'highlighted' : undefined}
          // The field keeps focus: a click chooses without blurring it.
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => choose(index)}
        >
          {option.content}
        </li>
      ))}
    </ul>
  );
}

/**
 * What `ask` answers for `key`, asked 80 ms after `key` last changed (typing does not send a
 * request per key); the newest question's answer wins, a failure gives nothing. With `key`
 * undefined nothing is asked and the list is empty.
 */
export function useAsked(key: string | undefined, ask: () => Promise<string[]>): string[] {
  const [answer, setAnswer] = useState<string[]>([]);
  const latest = useRef(ask);
  latest.current = ask;
  useEffect(() => {
    if (key === undefined) {
      setAnswer([]);
      return;
    }
    let newest = true;
    const timer = setTimeout(() => {
      latest.current().then(
        (values) => newest && setAnswer(values),
        () => newest && setAnswer([]),
      );
    }, 80);
    return () => {
      newest = false;
      clearTimeout(timer);
    };
  }, [key]);
  return key === undefined ? [] : answer;
}
