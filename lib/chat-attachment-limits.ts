/**
 * How much an employee may attach to a tutor conversation: per file, per message and per
 * conversation. The same numbers bound the upload route, the start-turn command and the page's
 * own checks before it uploads (the browser client imports this file), so the refusal a person
 * meets first is the page's and the server's is the same. Chosen from the reference design's
 * limits (5 MB a file, 5 files and 20 MB a message); a conversation holds at most four messages'
 * worth. Pure data.
 */

export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024;
export const ATTACHMENTS_PER_MESSAGE = 5;
export const MESSAGE_ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024;
export const ATTACHMENTS_PER_CONVERSATION = 20;
export const CONVERSATION_ATTACHMENT_MAX_BYTES = 50 * 1024 * 1024;

/** What the socket event and a refused turn carry when an attached file cannot be read. */
export const ATTACHMENT_FAILED = "ATTACHMENT_FAILED";
