/** Full-text search over the history, run as the person types (the newest query wins). */
import type { Slice } from '../types.js';
import type { SearchHit } from '../../../app/ipc/index.js';

/** Full-text search over the history. */
export type SearchSlice = {
  search: { text: string; agentId: string; from: string; to: string; results: SearchHit[]; searching: boolean };
  setSearch(changes: Partial<Pick<SearchSlice['search'], 'text' | 'agentId' | 'from' | 'to'>>): void;
  clearSearch(): void;
};

const TYPING_PAUSE_MS = 150;

/** Turns a date field (yyyy-mm-dd, local) into an ISO instant; `endOfDay` moves to the next midnight. */
function dayToIso(day: string, endOfDay: boolean): string | undefined {
  if (!day) {
    return undefined;
  }
  const date = new Date(`${day}T00:00:00`);
  if (Number.isNaN(date.getTime())) {
    return undefined;
  }
  if (endOfDay) {
    date.setDate(date.getDate() + 1);
  }
  return date.toISOString();
}

/** The search slice. */
export const searchSlice: Slice<SearchSlice> = (api) => (set, get) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  const run = async (): Promise<void> => {
    const { text, agentId, from, to } = get().search;
    const mine = ++generation;
    if (text.trim() === '') {
      set((state) => ({ search: { ...state.search, results: [], searching: false } }));
      return;
    }
    try {
      const fromIso = dayToIso(from, false);
      const toIso = dayToIso(to, true);
      const { results } = await api.call('searchConversations', {
        text,
        ...(agentId ? { agentId } : {}),
        ...(fromIso ? { from: fromIso } : {}),
        ...(toIso ? { to: toIso } : {}),
      });
      if (mine === generation) {
        set((state) => ({ search: { ...state.search, results, searching: false } }));
      }
    } catch (error) {
      if (mine === generation) {
        set((state) => ({ search: { ...state.search, searching: false } }));
        get().showError(error);
      }
    }
  };

  return {
    search: { text: '', agentId: '', from: '', to: '', results: [], searching: false },
    setSearch(changes) {
      set((state) => ({
        search: { ...state.search, ...changes, searching: true },
        ...(changes.text !== undefined && changes.text.trim() === '' ? { focus: null } : {}),
      }));
      clearTimeout(timer);
      timer = setTimeout(() => void run(), TYPING_PAUSE_MS);
    },
    clearSearch() {
      clearTimeout(timer);
      generation += 1;
      // The mark on the message a hit opened goes with the search.
      set({ search: { text: '', agentId: '', from: '', to: '', results: [], searching: false }, focus: null });
    },
  };
};
