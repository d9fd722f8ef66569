/**
 * Sign-in. With the company's identity provider: the person types their work email (or opens a
 * link with `?org=<slug>`), the page finds the provider and offers "Sign in with <provider>" (the
 * one that signs in the email's domain; or, for an organisation with several and no match, each
 * of them to choose from);
 * the provider's page takes the password and the browser comes back signed in (a refresh cookie;
 * no token ever passes through a URL or this page). While dev-login is on (the embedded demo) it
 * also lists the demo users to pick from.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { useT } from "../lib/i18n";

interface DemoUser {
  email: string;
  name: string;
  role: "admin" | "employee";
  department: string | null;
}

interface Provider {
  id: string;
  display_name: string;
  protocol: "oidc" | "saml";
  start_url: string;
}

function CompanySignIn({ returnTo, devLogin }: { returnTo: "/" | "/admin"; devLogin: boolean }) {
  const { t } = useT();
  const org = new URLSearchParams(location.search).get("org");
  const [email, setEmail] = useState("");
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const find = async (query: string): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      setProviders((await api.get<{ providers: Provider[] }>(`/api/v1/auth/providers?${query}`)).providers);
    } catch (caught) {
      setError(describeApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (org) void find(`org=${encodeURIComponent(org)}`);
  }, [org]);

  return (
    <section aria-labelledby="company-sign-in-title">
      <h2 id="company-sign-in-title">{t(devLogin ? "signIn.company.or" : "signIn.company")}</h2>
      {!org && (
        <form
          class="token-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (email.trim()) void find(`email=${encodeURIComponent(email.trim())}`);
          }}
        >
          <label for="work-email">{t("signIn.workEmail")}</label>
          <input id="work-email" type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
          <button type="submit" disabled={busy}>
            {t("signIn.continue")}
          </button>
        </form>
      )}
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {providers && providers.length === 0 && (
        <p class="notice" role="status">
          {t(org ? "signIn.noProvider.org" : "signIn.noProvider.domain")} {t("signIn.askAdmin")}
        </p>
      )}
      {providers && providers.length > 1 && (
        <p class="hint" id="choose-provider">
          {t("signIn.chooseProvider")}
        </p>
      )}
      {providers && providers.length > 0 && (
        <ul class="user-list provider-list">
          {providers.map((provider) => (
            <li key={provider.id}>
              <button
                type="button"
                class="provider-button"
                data-provider={provider.id}
                onClick={() => location.assign(`${provider.start_url}?return_to=${encodeURIComponent(returnTo)}`)}
              >
                <span class="user-name">{t("signIn.with", { provider: provider.display_name })}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function SignIn({ onToken, role }: { onToken: (token: string) => void; role?: "admin" }) {
  const { t } = useT();
  const [users, setUsers] = useState<DemoUser[] | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api
      .get<{ users: DemoUser[] }>("/api/v1/auth/demo-users")
      .then((body) => setUsers(role ? body.users.filter((u) => u.role === role) : body.users))
      .catch((caught) => {
        setUsers(null);
        if (!(caught instanceof ApiError && caught.status === 404)) setError(describeApiError(caught));
      });
  }, [role]);

  const signInAs = async (email: string): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const body = await api.post<{ token: string }>("/api/v1/auth/dev-login", { email });
      onToken(body.token);
    } catch (caught) {
      setError(describeApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{t(role === "admin" ? "signIn.title.admin" : "signIn.title.tutor")}</h1>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {users === undefined && <p aria-live="polite">{t("common.loading")}</p>}
      {users && users.length > 0 && (
        <section aria-labelledby="demo-users-title">
          <h2 id="demo-users-title">{t("signIn.demoUsers")}</h2>
          <p class="hint">{t("signIn.devLoginHint")}</p>
          <ul class="user-list">
            {users.map((user) => (
              <li key={user.email}>
                <button type="button" disabled={busy} onClick={() => void signInAs(user.email)} data-email={user.email}>
                  <span class="user-name">{user.name}</span>
                  <span class="user-meta">
                    {t(user.role === "admin" ? "common.admin" : "common.employee")}
                    {user.department ? ` · ${user.department}` : ""} · {user.email}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {users !== undefined && <CompanySignIn returnTo={role === "admin" ? "/admin" : "/"} devLogin={Boolean(users && users.length > 0)} />}
    </main>
  );
}
