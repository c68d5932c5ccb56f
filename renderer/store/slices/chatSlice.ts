/** The open conversation: loading its transcript, the draft of a new one, sending, stopping, answering permission questions. */
import { applyEnvelopes, emptyBuffered } from '../transcriptBuffer.js';
import { composerKey, type ChatSlice, type Slice } from '../types.js';

/** The chat slice. */
export const chatSlice: Slice<ChatSlice> = (api) => (set, get) => ({
  transcripts: {},
  selection: { kind: 'draft' },
  focus: null,
  draft: { agentId: '', cwd: '' },
  composer: {},
  sending: false,
  newConversation() {
    set({ selection: { kind: 'draft' }, focus: null, error: null });
  },
  async select(conversationId, focusSeq) {
    set({ selection: { kind: 'conversation', conversationId }, focus: focusSeq === undefined ? null : { conversationId, seq: focusSeq }, error: null });
    try {
      const { events, conversation } = await api.call('openConversation', { conversationId });
      set((state) => ({
        transcripts: { ...state.transcripts, [conversationId]: applyEnvelopes(state.transcripts[conversationId] ?? emptyBuffered(conversationId), events) },
      }));
      get().upsertSummary(conversation);
    } catch (error) {
      get().showError(error);
    }
  },
  setDraftAgent(agentId) {
    set((state) => ({ draft: { ...state.draft, agentId } }));
  },
  setDraftCwd(cwd) {
    set((state) => ({ draft: { ...state.draft, cwd } }));
  },
  setComposer(key, text) {
    set((state) => ({ composer: { ...state.composer, [key]: text } }));
  },
  async send() {
    const { selection, draft, composer, sending } = get();
    const text = (composer[composerKey(selection)] ?? '').trim();
    if (!text || sending) {
      return;
    }
    set({ sending: true, error: null });
    try {
      let conversationId: string;
      if (selection.kind === 'draft') {
        const { conversation } = await api.call('newConversation', { agentId: draft.agentId, cwd: draft.cwd.trim() });
        conversationId = conversation.conversationId;
        set((state) => ({ composer: { ...state.composer, [conversationId]: state.composer.draft ?? '', draft: '' } }));
        if (get().view !== 'active') {
          await get().setView('active');
        }
        await get().select(conversationId);
      } else {
        conversationId = selection.conversationId;
      }
      await api.call('sendMessage', { conversationId, text });
      // Cleared only once the host has committed the message.
      set((state) => ({ composer: { ...state.composer, [conversationId]: '' } }));
    } catch (error) {
      get().showError(error);
    } finally {
      set({ sending: false });
    }
  },
  async cancel() {
    const { selection } = get();
    if (selection.kind === 'conversation') {
      await api.call('cancelTurn', { conversationId: selection.conversationId }).catch((error: unknown) => get().showError(error));
    }
  },
  async answerPermission(requestId, optionId) {
    const { selection } = get();
    if (selection.kind === 'conversation') {
      await api.call('answerPermission', { conversationId: selection.conversationId, requestId, optionId }).catch((error: unknown) => get().showError(error));
    }
  },
});
