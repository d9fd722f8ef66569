/**
 * The deterministic offline model: the product's default when no LLM is configured, and the test
 * double's fallback. It recognises each kind of request by stable phrases in the app's prompts and
 * answers with heuristics — never refusing, never inventing a citation, same input → same output.
 */
import { hashedEmbeddingModel, hashedEmbeddings } from "./hashed-embeddings";
import { type Source, extractQuestion, extractiveAnswer, genericAnswer, parseSources, rankSentences } from "./offline-answer";
import {
  classifyIntent,
  isIntentPrompt,
  isModuleSelectionPrompt,
  isSummaryPrompt,
  jsonReply,
  selectModules,
  summariseConversation,
  wantsJson,
} from "./offline-tasks";
import { summariseToolResults, toolCallFor } from "./offline-tools";
import type { ChatMessage, ChatReply, ChatRequest, Responder } from "./responder";
import type { Language } from "../lib/language";
import { detectLanguage } from "../lib/language-detection";
import { messagesFor } from "../lib/messages";
import { GENERAL_KNOWLEDGE, LABELS, PENDING_PROPOSAL } from "../lib/prompt-markers";
import { sensitiveTopicOf } from "../lib/sensitive-topics";
import { messageText, splitSentences } from "./text";

/** Instructions live in system messages and the last user message; older turns are only history. */
function instructionText(messages: ChatMessage[]): { instructions: string; lastUser: string; system: string } {
  const lastUser = messageText([...messages].reverse().find((message) => message.role === "user"));
  const system = messages.filter((message) => message.role === "system" || message.role === "developer").map((message) => messageText(message));
  return { instructions: [...system, lastUser].join("\n"), lastUser, system: system.join("\n") };
}

interface Grounding {
  sources: Source[];
  question: string;
}

/** Sources come in the last user message (the tutor's context block), else in a system message. */
function groundingFor(messages: ChatMessage[], lastUser: string): Grounding {
  let sources = parseSources(lastUser);
  if (sources.length === 0) {
    sources = parseSources(
      messages
        .filter((message) => message.role === "system")
        .map((message) => messageText(message))
        .join("\n"),
    );
  }
  return { sources, question: extractQuestion(lastUser) };
}

/** `(answer language "fr")` in the tutor's system prompt: the product's choice, its fallbacks included. */
const ANSWER_LANGUAGE = new RegExp(`\\(${LABELS.answerLanguage} "([a-z]{2})"\\)`);

/** The language the prompt asks for, else the question's own. */
function answerLanguage(system: string, question: string): Language {
  return ANSWER_LANGUAGE.exec(system)?.[1] ?? detectLanguage(question);
}

/**
 * The tutor answer: extractive over `[n]` sources when there are any, generic and uncited
 * otherwise. A question on health, disability or neurodivergence first gets the catalog's
 * supportive reply (no diagnosis, HR or a professional), as the tutor's prompt asks a real model to.
 */
function answerFor({ sources, question }: Grounding, instructions: string, system: string): string {
  const language = answerLanguage(system, question);
  const support = sensitiveTopicOf(question) ? messagesFor(language).sensitiveTopic : undefined;
  if (support && sources.length === 0) return support;
  const lower = instructions.toLowerCase();
  const answer =
    sources.length > 0
      ? extractiveAnswer(sources, question, language)
      : genericAnswer(question, lower.includes(GENERAL_KNOWLEDGE) || lower.includes("conocimiento general"), language);
  return support ? `${support}\n\n${answer}` : answer;
}

/** Sentences a JSON value may be drawn from: source sentences by relevance, else the user's own text. */
function materialFor({ sources, question }: Grounding, lastUser: string): string[] {
  if (sources.length > 0) return rankSentences(sources, question).map((candidate) => candidate.sentence);
  return splitSentences(lastUser).filter((sentence) => !/^\s*json keys\s*:/i.test(sentence));
}

/** The preview of a proposal the admin prompt says is still waiting (only system text is read, never the admin's own message). */
function pendingPreview(messages: ChatMessage[]): string | undefined {
  for (const message of messages) {
    if (message.role !== "system" && message.role !== "developer") continue;
    const line = messageText(message)
      .split("\n")
      .find((candidate) => candidate.startsWith(PENDING_PROPOSAL));
    const preview = line?.slice(PENDING_PROPOSAL.length).match(/^\s*"(.*)"\.\s/)?.[1];
    if (preview !== undefined) return preview;
  }
  return undefined;
}

/** A question asked while a proposal waits: what a yes would run, and that nothing has yet. */
function explainPending(preview: string, language: Language): string {
  return language === "es"
    ? `Todavía no se ha ejecutado nada. Si confirmas, haré exactamente esto: ${preview} Verás el progreso aquí. Si respondes «no», no cambia nada.`
    : `Nothing has run yet. If you confirm, I will do exactly this: ${preview} You will see the progress here. If you reply “no”, nothing changes.`;
}

export function offlineReply(request: ChatRequest): ChatReply {
  const { messages } = request;
  const { instructions, lastUser, system } = instructionText(messages);
  if (isIntentPrompt(instructions)) return { content: classifyIntent(instructions, lastUser) };
  if (isModuleSelectionPrompt(instructions)) return { content: selectModules(instructions) };
  if (isSummaryPrompt(instructions)) return { content: summariseConversation(instructions) };

  const last = messages[messages.length - 1];
  if (request.tools && request.tools.length > 0) {
    if (last?.role === "tool") return { content: summariseToolResults(messages) };
    if (last?.role === "user") {
      const call = toolCallFor(request.tools, lastUser);
      if (call) return { toolCalls: [call] };
      const pending = pendingPreview(messages);
      if (pending !== undefined) return { content: explainPending(pending, detectLanguage(lastUser)) };
    }
  }

  const grounding = groundingFor(messages, lastUser);
  const answer = answerFor(grounding, instructions, system);
  const format = request.response_format;
  if (wantsJson(instructions, format?.type)) {
    const schema = format?.type === "json_schema" ? format.json_schema?.schema : undefined;
    return { content: jsonReply(instructions, answer, materialFor(grounding, lastUser), schema) };
  }
  return { content: answer };
}

export function createOfflineResponder(): Responder {
  return {
    reply: offlineReply,
    embed: (texts, dimensions) => hashedEmbeddings(texts, dimensions),
    embeddingModel: hashedEmbeddingModel,
  };
}
