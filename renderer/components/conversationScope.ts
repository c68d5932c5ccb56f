/**
 * Which conversation an entry of a transcript belongs to when it is not the open one: an attempt's
 * entries are shown inside the conversation that asked, and their answers (permissions, forms) and
 * file lists go to the attempt's own conversation.
 */
import { createContext, useContext } from 'react';

/** The conversation of the entries inside (undefined: the open one). */
export const ConversationScope = createContext<string | undefined>(undefined);

/** The conversation the entry belongs to, when it is not the open one. */
export function useScopedConversation(): string | undefined {
  return useContext(ConversationScope);
}
