/**
 * The frame both pages share: on load, the session from the refresh cookie if there is one (a
 * reload stays signed in), else sign-in; then `GET /api/v1/me`, one live socket, a header (who,
 * connection, sign out) and a plain banner when the offline model answers.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, whenUnauthorized } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { type MessageId, Msg, t, useT } from "../lib/i18n";
import { LanguageSwitch, loadSignedInLanguage, useSignedInLanguage } from "../lib/i18n/language-choice";
import { endSession, mayHaveSession, refreshSession } from "../lib/session";
import { openSocket, type ConnectionState, type LiveSocket } from "../lib/socket";
import { tokenStore } from "../lib/token-store";
import type { Me } from "../lib/types";
import { SignIn } from "./SignIn";

export interface SignedIn {
  me: Me;
  live: LiveSocket;
}

const CONNECTION_LABELS = {
  connected: "shell.connection.live",
  connecting: "shell.connection.reconnecting",
  offline: "shell.connection.offline",
} as const satisfies Record<ConnectionState, string>;

export function Shell({
  title,
  role,
  nav,
  children,
}: {
  /** The page's name in the top bar and the window title. */
  title: MessageId;
  role?: "admin";
  nav?: ComponentChildren;
  children: (signedIn: SignedIn) => ComponentChildren;
}) {
  // "checking": on load, a single sign-on session may still be alive in the refresh cookie.
  const [phase, setPhase] = useState<"checking" | "signed-out" | "signed-in">(tokenStore.get() ? "signed-in" : mayHaveSession() ? "checking" : "signed-out");
  /** Bumped at each sign-in, so the frame loads `me` and opens its socket once per session, not per refreshed token. */
  const [session, setSession] = useState(0);
  const [me, setMe] = useState<Me | null>(null);
  const [live, setLive] = useState<LiveSocket | null>(null);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  const [notice, setNotice] = useState<string | null>(null);
  useT();
  useEffect(() => {
    document.title = t(title);
  });
  useSignedInLanguage(me, async (language) => {
    await api.patch("/api/v1/me", { page_locale: language });
  });

  /** The session ended without the person asking (expired, deactivated): back to sign-in with why. */
  const signedOut = (message: string | null = null): void => {
    tokenStore.clear();
    setPhase("signed-out");
    setMe(null);
    setNotice(message);
  };

  /** The person asked: end the session at our server and, where the provider supports it, at the provider. */
  const signOut = async (): Promise<void> => {
    const providerLogout = await endSession(role === "admin" ? "/admin" : "/");
    signedOut();
    if (providerLogout) location.assign(providerLogout);
  };

  useEffect(() => whenUnauthorized(() => signedOut(t("shell.expired"))), []);

  useEffect(() => {
    if (phase !== "checking") return;
    void refreshSession().then((token) => {
      if (!token) return setPhase("signed-out");
      setPhase("signed-in");
      setSession((n) => n + 1);
    });
  }, [phase]);

  useEffect(() => {
    if (phase !== "signed-in") return;
    let cancelled = false;
    api
      .get<Me>("/api/v1/me")
      .then(async (body) => {
        await loadSignedInLanguage(body);
        if (!cancelled) setMe(body);
      })
      .catch((error) => !cancelled && signedOut(describeApiError(error)));
    const socket = openSocket((message) => signedOut(message));
    const stop = socket.onState(setConnection);
    setLive(socket);
    return () => {
      cancelled = true;
      stop();
      socket.close();
      setLive(null);
    };
  }, [phase, session]);

  if (phase === "checking")
    return (
      <p class="loading" aria-live="polite">
        {t("common.loading")}
      </p>
    );
  if (phase === "signed-out") {
    return (
      <>
        <p class="sign-in-language">
          <LanguageSwitch />
        </p>
        {notice && (
          <p class="alert" role="alert">
            {notice}
          </p>
        )}
        <SignIn
          role={role}
          onToken={(value) => {
            tokenStore.set(value, { persist: true });
            setNotice(null);
            setPhase("signed-in");
            setSession((n) => n + 1);
          }}
        />
      </>
    );
  }
  if (!me || !live)
    return (
      <p class="loading" aria-live="polite">
        {t("common.loading")}
      </p>
    );
  if (role && me.user.role !== role) {
    return (
      <main class="sign-in">
        <h1>{t(title)}</h1>
        <p role="alert">{t("shell.adminsOnly", { name: me.user.name, role: me.user.role })}</p>
        <p>
          <Msg
            id="shell.openTutorOrSwitch"
            values={{
              tutor: (chunks) => <a href="/">{chunks}</a>,
              other: (chunks) => (
                <button type="button" onClick={() => void signOut()}>
                  {chunks}
                </button>
              ),
            }}
          />
        </p>
      </main>
    );
  }

  return (
    <div class="app">
      <header class="topbar">
        <span class="brand">{t(title)}</span>
        {nav}
        <span class={`connection ${connection}`} role="status" aria-live="polite">
          {t(CONNECTION_LABELS[connection])}
        </span>
        <span class="who">
          {me.user.name}
          {me.organisation.name ? ` · ${me.organisation.name}` : ""}
        </span>
        <LanguageSwitch />
        <button type="button" class="link-button" onClick={() => void signOut()}>
          {t("shell.signOut")}
        </button>
      </header>
      {me.model.offline && (
        <p class="banner offline-model" role="note">
          <Msg id="shell.offlineModel" values={{ strong: (chunks) => <strong>{chunks}</strong>, model: <code>{me.model.name}</code> }} />
        </p>
      )}
      {children({ me, live })}
    </div>
  );
}
