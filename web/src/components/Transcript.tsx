/**
 * The messages of one session: stored history first, then what this page sent and what is
 * streaming. Each assistant answer shows its grounding badge, text, citations and (on the last
 * one) suggestion chips; admin turns add their tool cards and action card through `extras`.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { describeTurnError } from "../lib/errors";
import { formatBytes, t, useT } from "../lib/i18n";
import type { LiveTurn } from "../lib/live-turn";
import type { Conversation } from "../lib/use-conversation";
import type { Citation, GivenSource, Rung, SentFile, StoredMessage, ToolCall, TurnError } from "../lib/types";
import { groundingOrigin } from "../lib/grounding-origin";
import { Citations, RungBadge, Suggestions, citationAnchor } from "./AnswerParts";
import { FeedbackThumbs, useSessionFeedback } from "./FeedbackThumbs";
import { PassageViewer, citedIndex } from "./PassageViewer";
import { Markdown } from "./Markdown";
import { ReasoningDisclosure } from "./ReasoningDisclosure";

export interface AnswerView {
  turnId: string;
  text: string;
  /** A live turn's thinking (reasoning models); stored answers have none. */
  reasoning?: string;
  rung?: Rung;
  /** What the answer was given (whose material it stands on while it cites nothing). */
  sources: GivenSource[];
  citations: Citation[];
  suggestions: string[];
  status: "streaming" | "done" | "failed" | "cancelled";
  error?: TurnError;
  tools: ToolCall[];
  actionId?: string | null;
  live?: LiveTurn;
  /** The stored answer (history, or a live turn once done). */
  messageId?: string;
  /** Admin proposals: the "nothing has changed yet" footer the server appended, dropped once the action is decided. */
  pendingFooter?: string;
}

function fromStored(message: StoredMessage): AnswerView {
  const meta = message.metadata ?? {};
  return {
    turnId: message.turn_id,
    text: message.content,
    rung: meta.rung,
    sources: meta.sources ?? [],
    citations: meta.citations ?? [],
    suggestions: meta.suggestions ?? [],
    status: message.status === "cancelled" ? "cancelled" : message.status === "failed" ? "failed" : "done",
    tools: (meta.tool_calls ?? []).map((call, i) => ({
      callId: `${message.id}-${i}`,
      tool: call.name,
      arguments: call.arguments,
      result: { ok: call.ok, resultBytes: call.result_bytes ?? 0, ms: call.ms ?? 0, error: call.error },
    })),
    actionId: meta.action_id ?? null,
    messageId: message.id,
    pendingFooter: typeof meta.pending_footer === "string" ? meta.pending_footer : undefined,
  };
}

/** The answer as it reads now: a proposal whose action was decided no longer asks for a yes. */
function currentText(view: AnswerView, settled: ReadonlySet<string>): string {
  const footer = view.pendingFooter;
  if (!footer || !view.actionId || !settled.has(view.actionId) || !view.text.endsWith(footer)) return view.text;
  return view.text.slice(0, -footer.length);
}

const NONE_SETTLED: ReadonlySet<string> = new Set();

function fromLive(turn: LiveTurn): AnswerView {
  return { ...turn, live: turn };
}

/** A question, with the files that went with it. */
function UserBubble({ text, files }: { text: string; files: SentFile[] }) {
  return (
    <li class="msg user">
      <span class="sr-only">{t("transcript.youSaid")} </span>
      <p class="user-text">{text}</p>
      {files.length > 0 && (
        <ul class="sent-files" aria-label={t("attachments.sent")}>
          {files.map((file) => (
            <li key={file.id} class="sent-file" data-status={file.status}>
              <span class="sent-file-name">{file.filename}</span> <span class="sent-file-size">{formatBytes(file.size_bytes)}</span>{" "}
              <span class="sent-file-state">{t(`attachments.status.${file.status}`)}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function AssistantBubble({
  view,
  last,
  onSuggestion,
  extras,
  busy,
  feedback,
  settled,
}: {
  settled: ReadonlySet<string>;
  view: AnswerView;
  last: boolean;
  onSuggestion: (text: string) => void;
  extras?: (view: AnswerView) => ComponentChildren;
  busy: boolean;
  feedback: ReturnType<typeof useSessionFeedback>;
}) {
  useT();
  const indices = new Set(view.citations.map((c) => c.index));
  const [opened, setOpened] = useState<number | null>(null);
  const openable = view.status === "done" && view.messageId ? setOpened : undefined;
  // A [n] marker is a link (keyboard users reach and press it like any link); its click also opens the passage.
  const bubble = useRef<HTMLLIElement>(null);
  useEffect(() => {
    const element = bubble.current;
    if (!element || !openable) return;
    const onClick = (event: MouseEvent): void => {
      const index = citedIndex(event.target, view.turnId);
      if (index !== null && indices.has(index)) setOpened(index);
    };
    element.addEventListener("click", onClick);
    return () => element.removeEventListener("click", onClick);
  }, [openable, view.turnId, view.citations.length]);
  return (
    <li ref={bubble} class={`msg assistant ${view.status}`} data-turn-id={view.turnId} aria-busy={view.status === "streaming"}>
      <div class="answer-head">
        <span class="sr-only">{t("transcript.answer")} </span>
        {view.rung && <RungBadge rung={view.rung} origin={groundingOrigin(view.citations, view.sources)} />}
        {view.status === "streaming" && !view.text && !view.reasoning && <span class="thinking">{t("transcript.thinking")}</span>}
        {view.status === "cancelled" && <span class="badge stopped">{t("transcript.stopped")}</span>}
      </div>
      {extras?.(view)}
      <ReasoningDisclosure text={view.reasoning} thinking={view.status === "streaming" && !view.text} />
      {view.text && (
        <Markdown class="markdown answer-text" text={currentText(view, settled)} linking={{ indices, anchorFor: (i) => citationAnchor(view.turnId, i) }} />
      )}
      {view.error && (
        <p class={view.error.willRetry ? "notice" : "alert"} role={view.error.willRetry ? "status" : "alert"}>
          {describeTurnError(view.error)}
        </p>
      )}
      <Citations turnId={view.turnId} citations={view.citations} onOpen={openable} />
      {opened !== null && view.messageId && <PassageViewer messageId={view.messageId} index={opened} onClose={() => setOpened(null)} />}
      {view.status === "done" && view.messageId && (
        <FeedbackThumbs messageId={view.messageId} rating={feedback.ratings[view.messageId]} onRated={(rating) => feedback.remember(view.messageId!, rating)} />
      )}
      {last && view.status === "done" && <Suggestions suggestions={view.suggestions} onPick={onSuggestion} disabled={busy} />}
    </li>
  );
}

export function Transcript({
  conversation,
  onSuggestion,
  extras,
  empty,
  settled = NONE_SETTLED,
}: {
  /** Ids of actions no longer pending (admin assistant). */
  settled?: ReadonlySet<string>;
  conversation: Conversation;
  onSuggestion: (text: string) => void;
  extras?: (view: AnswerView) => ComponentChildren;
  empty: ComponentChildren;
}) {
  useT();
  const { history, outgoing, live } = conversation;
  const feedback = useSessionFeedback(conversation.sessionId);
  const rows: Array<{ key: string; user?: string; files?: SentFile[]; answer?: AnswerView }> = [];
  const storedUserTurns = new Set(history.filter((m) => m.role === "user").map((m) => m.turn_id));
  const storedAnswers = new Set(history.filter((m) => m.role === "assistant").map((m) => m.turn_id));
  for (const message of history) {
    if (message.role === "user") rows.push({ key: message.id, user: message.content, files: message.attachments ?? [] });
    else rows.push({ key: message.id, answer: fromStored(message) });
  }
  const shown = new Set<string>();
  for (const entry of outgoing) {
    if (entry.text && !(entry.turnId && storedUserTurns.has(entry.turnId))) rows.push({ key: entry.key, user: entry.text, files: entry.files ?? [] });
    const turn = entry.turnId ? live[entry.turnId] : undefined;
    if (entry.turnId && !storedAnswers.has(entry.turnId)) {
      shown.add(entry.turnId);
      rows.push({
        key: `${entry.key}-answer`,
        answer: turn ? fromLive(turn) : { turnId: entry.turnId, text: "", sources: [], citations: [], suggestions: [], status: "streaming", tools: [] },
      });
    }
  }
  for (const turn of Object.values(live)) {
    if (!shown.has(turn.turnId) && !storedAnswers.has(turn.turnId)) rows.push({ key: `live-${turn.turnId}`, answer: fromLive(turn) });
  }
  const lastAnswer = [...rows].reverse().find((r) => r.answer)?.answer;

  const end = useRef<HTMLDivElement>(null);
  const lastText = lastAnswer ? `${lastAnswer.turnId}:${lastAnswer.text.length}:${lastAnswer.status}` : "";
  useEffect(() => end.current?.scrollIntoView({ block: "end" }), [rows.length, lastText]);

  return (
    <div class="transcript">
      {conversation.hasMore && (
        <button type="button" class="load-earlier" onClick={() => void conversation.loadEarlier()}>
          {t("transcript.loadEarlier")}
        </button>
      )}
      {rows.length === 0 && !conversation.loading ? <div class="empty">{empty}</div> : null}
      <ol class="messages" aria-live="polite" aria-label={t("transcript.label")}>
        {rows.map((row) =>
          row.user !== undefined ? (
            <UserBubble key={row.key} text={row.user} files={row.files ?? []} />
          ) : (
            <AssistantBubble
              key={row.key}
              view={row.answer!}
              last={row.answer === lastAnswer}
              onSuggestion={onSuggestion}
              extras={extras}
              busy={conversation.sending || Boolean(conversation.streaming)}
              feedback={feedback}
              settled={settled}
            />
          ),
        )}
      </ol>
      <div ref={end} />
    </div>
  );
}
