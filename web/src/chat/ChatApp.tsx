/** The employee's tutor: sessions on the side, the conversation, the course context and the message box. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { useT } from "../lib/i18n";
import type { SignedIn } from "../components/Shell";
import { AllowanceNotice, useAllowance } from "../components/AllowanceNotice";
import { Composer } from "../components/Composer";
import { DismissibleAlert } from "../components/DismissibleAlert";
import { SessionList } from "../components/SessionList";
import { Transcript } from "../components/Transcript";
import { useAttachments } from "../lib/use-attachments";
import { useConversation } from "../lib/use-conversation";
import type { PickableCourse } from "../lib/types";
import { ContextPicker, type ChatContext } from "./ContextPicker";

export function ChatApp({ live, me }: SignedIn) {
  const { t } = useT();
  const conversation = useConversation(live, "tutor");
  const allowance = useAllowance(conversation.error);
  const [courses, setCourses] = useState<PickableCourse[]>([]);
  const [context, setContext] = useState<ChatContext>({});
  const [showSessions, setShowSessions] = useState(false);
  const [courseError, setCourseError] = useState<string | null>(null);

  useEffect(() => {
    api
      .get<{ courses: PickableCourse[] }>("/api/v1/learning/courses")
      .then((body) => setCourses(body.courses))
      .catch((error) => setCourseError(describeApiError(error)));
  }, []);

  // A session keeps the context it was started with.
  useEffect(() => {
    const session = conversation.sessions.find((s) => s.id === conversation.sessionId);
    if (session)
      setContext(
        session.context?.course_id
          ? { course_id: session.context.course_id, ...(session.context.lesson_id ? { lesson_id: session.context.lesson_id } : {}) }
          : {},
      );
  }, [conversation.sessionId, conversation.sessions.length]);

  const openSession = (id: string | null): void => {
    setShowSessions(false);
    if (id === null) setContext({});
    void conversation.open(id);
  };
  const attachments = useAttachments(live, conversation.sessionId, conversation.open);
  const send = async (text: string): Promise<boolean> => {
    const sent = await conversation.send(text, context, attachments.ready());
    if (sent) attachments.clear();
    return sent;
  };

  return (
    <div class={`workspace ${showSessions ? "sessions-open" : ""}`}>
      <button type="button" class="toggle-sessions" aria-expanded={showSessions} aria-controls="session-panel" onClick={() => setShowSessions(!showSessions)}>
        {t("chat.conversations")}
      </button>
      <aside id="session-panel" class="side">
        <SessionList
          label={t("chat.yourConversations")}
          sessions={conversation.sessions}
          current={conversation.sessionId}
          onOpen={openSession}
          onNew={() => openSession(null)}
          onDelete={(s) => {
            if (confirm(t("chat.confirmDelete", { title: s.title }))) void conversation.remove(s.id);
          }}
        />
      </aside>
      <main class="chat" aria-label={t("chat.label")}>
        <ContextPicker courses={courses} value={context} onChange={setContext} />
        {courseError && <p class="notice">{courseError}</p>}
        <Transcript
          conversation={conversation}
          onSuggestion={(text) => void send(text)}
          empty={
            <>
              <h1>{t("chat.empty.title")}</h1>
              <p>{t("chat.empty.text")}</p>
            </>
          }
        />
        <AllowanceNotice allowance={allowance} admin={me.user.role === "admin"} />
        <DismissibleAlert message={conversation.error} onDismiss={conversation.dismissError} />
        <Composer
          onSend={send}
          busy={conversation.sending}
          streaming={Boolean(conversation.streaming)}
          onStop={conversation.streaming ? () => void conversation.stop(conversation.streaming!.turnId) : undefined}
          placeholder={t("chat.placeholder")}
          attachments={attachments}
        />
      </main>
    </div>
  );
}
