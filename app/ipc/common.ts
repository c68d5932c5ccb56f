/** Shapes several groups of the host API contract share. */
import { z } from 'zod';
import { conversationSummarySchema } from '../transcript/summary.js';

/** A conversation's id in params. */
export const conversationId = z.string().min(1);
/** A result that is one conversation's summary. */
export const conversationResult = z.object({ conversation: conversationSummarySchema });
