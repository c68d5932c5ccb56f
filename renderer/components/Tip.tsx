/**
 * A tooltip (Radix Tooltip): shown on hover and on keyboard focus, announced as the trigger's
 * description, dismissed with Escape. The one way Baton shows a hint for a control.
 */
import * as Tooltip from '@radix-ui/react-tooltip';
import type { ReactElement, ReactNode } from 'react';

/** Wraps one focusable element (it becomes the trigger). */
export function Tip({ text, children }: { text: string | undefined; children: ReactElement }) {
  if (!text) {
    return children;
  }
  return (
    <Tooltip.Root>
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="tip" sideOffset={4} collisionPadding={8}>
          {text}
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  );
}

/** Once, around the window: how long a pointer rests before a tip shows. */
export function TipProvider({ children }: { children: ReactNode }) {
  return <Tooltip.Provider delayDuration={400}>{children}</Tooltip.Provider>;
}
