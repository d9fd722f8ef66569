/**
 * The wording by which the bundled offline model (offline-model/) tells the product's prompts
 * apart and reads them. It has no model behind it: it recognises a task by a phrase and finds
 * the question, the sources and the turns by their labels. Both sides build on these constants,
 * so changing a prompt's wording here changes what the offline model looks for, and
 * test/unit/lib/prompt-markers.test.ts builds each real prompt and checks the offline model still
 * answers it with the right task.
 */

/** The labels the intent prompt asks the model to reply with (queues/payloads.ts `INTENTS`). */
export const INTENT_LABELS = ["in_course", "cross_course", "progress", "chitchat", "off_topic"] as const;

/** Opens the conversation-summary prompt (workers/tutor/prompts.ts `summaryPrompt`). */
export const SUMMARY_TASK = "Summarize the conversation";

/** The module-selection prompt (workers/tutor/retrieval/page-index.ts) asks for this. */
export const MODULE_SELECTION_TASK = "module number";
/** Each outline line of that prompt: `- Module 2: Title — summary`. */
export const MODULE_LABEL = "Module";

/** Line labels, each written `Label: value` on a line of its own. */
export const LABELS = {
  /** The learner's question, after the sources block and in the module-selection prompt. */
  question: "Question",
  /** The intent prompt's message and the course the employee is in ("None" outside one). */
  employeeMessage: "Employee message",
  course: "Course",
  /** A summary transcript's two speakers (workers/turns/history.ts `transcript`). */
  employeeTurn: "Employee",
  tutorTurn: "Tutor",
  /** The same two speakers of an admin session's transcript. */
  adminTurn: "Admin",
  assistantTurn: "Assistant",
  /**
   * The tutor's system prompt names the language to answer in by its ISO 639-1 code inside its
   * language sentence, `(answer language "fr")`, so a recital of the prompt is still one sentence to withhold.
   */
  answerLanguage: "answer language",
} as const;

/** The delimiters around the tutor's numbered sources (`[1] Title > Section` blocks). */
export const SOURCES_OPEN = "<sources>";
export const SOURCES_CLOSE = "</sources>";

/** The tutor's bottom rung says it answers from this; the offline model then answers generically. */
export const GENERAL_KNOWLEDGE = "general knowledge";

/**
 * The admin assistant's system prompt names a proposal still waiting for the admin's yes or no
 * as `<PENDING_PROPOSAL> "<preview>". …` (workers/admin/prompts.ts); the offline model then
 * answers a question about it by saying what a yes would run.
 */
export const PENDING_PROPOSAL = "A proposal is waiting for the admin's answer:";
