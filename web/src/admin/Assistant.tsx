/** The admin assistant: the same conversation as the tutor, with tool calls as cards and proposed changes as action cards. */
import { useState } from "preact/hooks";
import type { SignedIn } from "../components/Shell";
import { Composer } from "../components/Composer";
import { DismissibleAlert } from "../components/DismissibleAlert";
import { SessionList } from "../components/SessionList";
import { Transcript, type AnswerView } from "../components/Transcript";
import { useConversation } from "../lib/use-conversation";
import { ActionCard } from "./ActionCard";
import { Icon } from "../components/Icon";
import { formatNumber, useT } from "../lib/i18n";

function argumentsText(args: unknown): string {
  const text = typeof args === "string" ? args : JSON.stringify(args);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

export function Assistant({ live }: SignedIn) {
  const { t: tr } = useT();
  const conversation = useConversation(live, "admin");
  const [settled, setSettled] = useState<ReadonlySet<string>>(new Set());
  const [reloaded, setReloaded] = useState<ReadonlySet<string>>(new Set());
  // A decided proposal stops asking for a yes. A proposal streamed in this page has no stored
  // metadata yet, so its session is read again once (which brings the footer to drop).
  const onSettled = (view: AnswerView) => (actionId: string) => {
    if (!settled.has(actionId)) setSettled((all) => new Set([...all, actionId]));
    if (view.live && !view.pendingFooter && !reloaded.has(actionId) && conversation.sessionId) {
      setReloaded((all) => new Set([...all, actionId]));
      void conversation.open(conversation.sessionId);
    }
  };
  const extras = (view: AnswerView) => (
    <>
      {view.tools.length > 0 && (
        <ul class="tool-cards" aria-label={tr("assistant.tools")}>
          {view.tools.map((t) => (
            <li key={t.callId} class={`tool-card ${t.result ? (t.result.ok ? "ok" : "failed") : "running"}`}>
              <code class="tool-name">{t.tool}</code> <span class="tool-args">{argumentsText(t.arguments)}</span>
              <span class="tool-result">
                {t.result ? (
                  t.result.ok ? (
                    <>
                      {" "}
                      <Icon name="check" /> {formatNumber(t.result.ms)} ms
                    </>
                  ) : (
                    <>
                      {" "}
                      <Icon name="cross" /> {t.result.error ?? tr("assistant.toolFailed")}
                    </>
                  )
                ) : (
                  " …"
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      {view.actionId && <ActionCard actionId={view.actionId} pending={view.live?.action} live={live} onSettled={onSettled(view)} />}
    </>
  );
  return (
    <div class="workspace">
      <aside class="side">
        <SessionList
          label={tr("assistant.conversations")}
          sessions={conversation.sessions}
          current={conversation.sessionId}
          onOpen={(id) => void conversation.open(id)}
          onNew={() => void conversation.open(null)}
          onDelete={(s) => {
            if (confirm(tr("assistant.confirmDelete", { title: s.title }))) void conversation.remove(s.id);
          }}
        />
      </aside>
      <main class="chat" aria-label={tr("assistant.label")}>
        <Transcript
          conversation={conversation}
          onSuggestion={(text) => void conversation.send(text)}
          extras={extras}
          settled={settled}
          empty={
            <>
              <h2>{tr("assistant.empty.title")}</h2>
              <p>{tr("assistant.empty.text")}</p>
            </>
          }
        />
        <DismissibleAlert message={conversation.error} onDismiss={conversation.dismissError} />
        <Composer
          onSend={(text) => conversation.send(text)}
          // One admin turn at a time per conversation: the server refuses a second (409 TURN_IN_PROGRESS).
          busy={conversation.sending || Boolean(conversation.streaming)}
          streaming={Boolean(conversation.streaming)}
          onStop={conversation.streaming ? () => void conversation.stop(conversation.streaming!.turnId) : undefined}
          placeholder={tr("assistant.placeholder")}
        />
      </main>
    </div>
  );
}
