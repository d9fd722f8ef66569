/**
 * Integration keys: the organisation's API keys for its own systems (an LMS sync, an HR export, a
 * document mirror). Creating one asks for a name, its scopes and an optional expiry date; the key
 * is shown once, here, with a copy button (only its hash is stored, so a reload shows its last
 * characters only). The list says what each key may do, when it was last used and whether it
 * still works; revoking asks first, and the key is refused from then on. See docs/integrations.md.
 */
import { useEffect, useState } from "preact/hooks";
import { INTEGRATION_SCOPE_DESCRIPTIONS, INTEGRATION_SCOPES, type IntegrationScope } from "../../../lib/integration-scopes";
import type { IntegrationKeyBody, ListedIntegrationKeyBody } from "../../../server/routes/integration-keys/schema";
import { ConsolePage } from "../components/ConsolePage";
import { CopyField } from "../components/CopyField";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";

const when = (iso: string | null, never = "never"): string => (iso ? new Date(iso).toLocaleString() : never);

function statusOf(key: ListedIntegrationKeyBody): string {
  if (key.revoked_at) return `Revoked ${when(key.revoked_at)}`;
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return "Expired";
  // A key lives no longer than its creator's admin role: say why it stopped, and that it still counts.
  if (!key.creator_is_admin) return "Refused: its creator is no longer an admin (revoke it)";
  return "Active";
}

/** The end of the chosen day where the admin is: a key "until 31 March" works all that day. */
const endOfDay = (date: string): string => new Date(`${date}T23:59:59`).toISOString();

export function IntegrationKeys() {
  const [keys, setKeys] = useState<ListedIntegrationKeyBody[] | null>(null);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<IntegrationScope[]>([]);
  const [expires, setExpires] = useState("");
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = (): Promise<void> =>
    api
      .get<{ integration_keys: ListedIntegrationKeyBody[] }>("/api/v1/admin/integration-keys")
      .then((body) => setKeys(body.integration_keys))
      .catch((caught) => setError(describeApiError(caught)));
  useEffect(() => void load(), []);

  const run = async (change: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await change();
      await load();
    } catch (caught) {
      setError(describeApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const create = () =>
    run(async () => {
      const body = await api.post<{ key: string; integration_key: IntegrationKeyBody }>("/api/v1/admin/integration-keys", {
        name,
        scopes,
        ...(expires ? { expires_at: endOfDay(expires) } : {}),
      });
      setCreated({ key: body.key, name: body.integration_key.name });
      setName("");
      setScopes([]);
      setExpires("");
    });
  const revoke = (key: IntegrationKeyBody) =>
    run(async () => {
      setRevoking(null);
      await api.del(`/api/v1/admin/integration-keys/${key.id}`);
    });
  const toggle = (scope: IntegrationScope, on: boolean) => setScopes(INTEGRATION_SCOPES.filter((s) => (s === scope ? on : scopes.includes(s))));

  return (
    <ConsolePage label="Integration keys" name="integration-keys">
      <h1>Integration keys</h1>
      <p class="hint">
        Keys let your own systems (a learning platform, an HR system, a document mirror) call the integration API. A key opens the integration endpoints only,
        with the scopes you give it, never chat or the assistant.
      </p>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {created && (
        <div class="notice new-token" role="status">
          <CopyField label="New integration key" value={created.key} />
          <p>
            Copy the key for “{created.name}” now: you will not see it again. Only its last four characters are kept to tell it apart.{" "}
            <button type="button" class="link-button" onClick={() => setCreated(null)}>
              Done
            </button>
          </p>
        </div>
      )}
      <form
        class="settings-form"
        aria-label="Create an integration key"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <h2>Create a key</h2>
        <label class="setting">
          <span>Name</span>
          <input name="name" type="text" value={name} required maxLength={100} placeholder="LMS nightly sync" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <fieldset class="setting">
          <legend>Scopes</legend>
          {INTEGRATION_SCOPES.map((scope) => (
            <label class="setting-check" key={scope}>
              <input type="checkbox" name="scopes" value={scope} checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.currentTarget.checked)} />{" "}
              <code>{scope}</code> <small class="hint">{INTEGRATION_SCOPE_DESCRIPTIONS[scope]}</small>
            </label>
          ))}
        </fieldset>
        <label class="setting">
          <span>Expires (optional)</span>
          <input name="expires" type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
          <small class="hint">The key works until the end of that day; leave empty for a key that does not expire.</small>
        </label>
        <p class="actions">
          <button type="submit" disabled={busy || scopes.length === 0 || name.trim() === ""}>
            Create key
          </button>
        </p>
      </form>
      <section aria-label="Keys">
        <h2>Keys</h2>
        {keys === null ? (
          <p aria-live="polite">Loading…</p>
        ) : keys.length === 0 ? (
          <p class="hint">No keys yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Scopes</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>…{key.hint}</code>
                  </td>
                  <td>{key.scopes.join(", ")}</td>
                  <td>{when(key.last_used_at)}</td>
                  <td>{when(key.expires_at)}</td>
                  <td class="key-status">{statusOf(key)}</td>
                  <td>
                    {key.revoked_at ? null : revoking === key.id ? (
                      <span class="revoke-confirm" role="group" aria-label={`Revoke ${key.name}?`}>
                        Requests with it are refused at once.{" "}
                        <button type="button" class="danger" disabled={busy} onClick={() => void revoke(key)}>
                          Revoke now
                        </button>{" "}
                        <button type="button" onClick={() => setRevoking(null)}>
                          Cancel
                        </button>
                      </span>
                    ) : (
                      <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => setRevoking(key.id)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </ConsolePage>
  );
}
