/**
 * Sign-in. While dev-login is on (embedded demo) it lists the demo users to pick from; otherwise
 * (or by choice) it takes a token pasted from the identity provider. The token stays in this tab.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../lib/api";
import { describeApiError } from "../lib/errors";

interface DemoUser {
  email: string;
  name: string;
  role: "admin" | "employee";
  department: string | null;
}

export function SignIn({ onToken, role }: { onToken: (token: string) => void; role?: "admin" }) {
  const [users, setUsers] = useState<DemoUser[] | null | undefined>(undefined);
  const [pasted, setPasted] = useState("");
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
      <h1 id="sign-in-title">{role === "admin" ? "Admin console" : "Tutor"}: sign in</h1>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {users === undefined && <p aria-live="polite">Loading…</p>}
      {users && users.length > 0 && (
        <section aria-labelledby="demo-users-title">
          <h2 id="demo-users-title">Demo users</h2>
          <p class="hint">Dev login is on, so you can sign in as any demo user. Never leave it on where others can reach the server.</p>
          <ul class="user-list">
            {users.map((user) => (
              <li key={user.email}>
                <button type="button" disabled={busy} onClick={() => void signInAs(user.email)} data-email={user.email}>
                  <span class="user-name">{user.name}</span>
                  <span class="user-meta">
                    {user.role}
                    {user.department ? ` · ${user.department}` : ""} · {user.email}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {users !== undefined && (
        <form
          class="token-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (pasted.trim()) onToken(pasted.trim());
          }}
        >
          <h2>{users && users.length > 0 ? "Or paste a token" : "Paste your token"}</h2>
          <label for="token-input">Access token (JWT from your identity provider)</label>
          <input id="token-input" type="password" autocomplete="off" value={pasted} onInput={(e) => setPasted(e.currentTarget.value)} required />
          <button type="submit">Sign in</button>
        </form>
      )}
    </main>
  );
}
