/** Copies text to the clipboard and says so for a moment ("Copied"), for copy buttons. */
import { useState } from 'react';

/** `[copied, copy]`: `copied` is true for 1.5 s after `copy(text)` succeeded. */
export function useCopy(): [boolean, (text: string) => void] {
  const [copied, setCopied] = useState(false);
  const copy = (text: string): void => {
    void navigator.clipboard
      ?.writeText(text)
      .then(() => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      })
      .catch(() => setCopied(false));
  };
  return [copied, copy];
}
