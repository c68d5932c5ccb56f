/**
 * A list of files left as they are unless ticked (files the person changed since a point, or that
 * changed outside any turn), each with its checkbox and its change: used where Baton would write
 * over what someone else changed (Rewind, Keep this attempt).
 */
import type { ReactNode } from 'react';
import { Tick } from './Tick.js';

/** The heading, the hint, and one ticked-or-not entry per file; nothing when there are no files. */
export function TickedFiles<F extends { path: string }>({
  title,
  hint,
  files,
  ticked,
  tick,
  itemName,
  boxLabel,
  view,
}: {
  title: string;
  hint: string;
  files: readonly F[];
  ticked: readonly string[];
  tick: (path: string, on: boolean) => void;
  /** The entry's accessible name. */
  itemName: (file: F) => string;
  /** What ticking it does, in words ("Overwrite a.txt (restored)"). */
  boxLabel: (file: F) => ReactNode;
  view: (file: F) => ReactNode;
}) {
  if (files.length === 0) {
    return null;
  }
  return (
    <>
      <h3>{title}</h3>
      <p className="hint">{hint}</p>
      <ul className="rewind-files" aria-label={title}>
        {files.map((file) => (
          <li key={file.path} aria-label={itemName(file)}>
            <Tick checked={ticked.includes(file.path)} onChange={(checked) => tick(file.path, checked)}>
              {boxLabel(file)}
            </Tick>
            {view(file)}
          </li>
        ))}
      </ul>
    </>
  );
}
