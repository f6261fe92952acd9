import type { WriteContext } from '../write/context.js';

/** What a Files API call needs: the write pipeline's context (session, locks, history, after-write hooks). */
export type FilesContext = WriteContext;
