/**
 * Integration keys: the organisation's API keys for its own systems (an LMS sync, an HR export, a
 * document mirror). Creating one asks for a name, its scopes and an optional expiry date; the key
 * is shown once, here, with a copy button (only its hash is stored, so a reload shows its last
 * characters only). The list says what each key may do, when it was last used and whether it
 * still works; revoking asks first, and the key is refused from then on. See docs/integrations.md.
 */
import { useEffect, useState } from "preact/hooks";
import { INTEGRATION_SCOPES, type IntegrationScope } from "../../../lib/integration-scopes";
import type { IntegrationKeyBody, ListedIntegrationKeyBody } from "../../../server/routes/integration-keys/schema";
import { ConsolePage } from "../components/ConsolePage";
import { CopyField } from "../components/CopyField";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { formatMoment, type MessageId, t, useT } from "../lib/i18n";

const when = (iso: string | null): string => (iso ? formatMoment(iso) : t("common.never"));

/** What each scope lets a key do, in the reader's language (the API's own descriptions are English: lib/integration-scopes.ts). */
const SCOPE_DESCRIPTIONS: Record<IntegrationScope, MessageId> = {
  "catalog:write": "keys.scope.catalogWrite",
  "documents:write": "keys.scope.documentsWrite",
  "usage:read": "keys.scope.usageRead",
  "people:read": "keys.scope.peopleRead",
};

function statusOf(key: ListedIntegrationKeyBody): string {
  if (key.revoked_at) return t("keys.revokedAt", { when: when(key.revoked_at) });
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return t("keys.expired");
  // A key lives no longer than its creator's admin role: say why it stopped, and that it still counts.
  if (!key.creator_is_admin) return t("keys.creatorNotAdmin");
  return t("common.active");
}

/** The end of the chosen day where the admin is: a key "until 31 March" works all that day. */
const endOfDay = (date: string): string => new Date(`${date}T23:59:59`).toISOString();

export function IntegrationKeys() {
  useT();
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
    <ConsolePage label={t("nav.integrationKeys")} name="integration-keys">
      <h1>{t("nav.integrationKeys")}</h1>
      <p class="hint">{t("keys.intro")}</p>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {created && (
        <div class="notice new-token" role="status">
          <CopyField label={t("keys.new")} value={created.key} />
          <p>
            {t("keys.copyNow", { name: created.name })}{" "}
            <button type="button" class="link-button" onClick={() => setCreated(null)}>
              {t("common.done")}
            </button>
          </p>
        </div>
      )}
      <form
        class="settings-form"
        aria-label={t("keys.create.label")}
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <h2>{t("keys.create.title")}</h2>
        <label class="setting">
          <span>{t("common.name")}</span>
          <input
            name="name"
            type="text"
            value={name}
            required
            maxLength={100}
            placeholder={t("keys.name.placeholder")}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <fieldset class="setting">
          <legend>{t("keys.scopes")}</legend>
          {INTEGRATION_SCOPES.map((scope) => (
            <label class="setting-check" key={scope}>
              <input type="checkbox" name="scopes" value={scope} checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.currentTarget.checked)} />{" "}
              <code>{scope}</code> <small class="hint">{t(SCOPE_DESCRIPTIONS[scope])}</small>
            </label>
          ))}
        </fieldset>
        <label class="setting">
          <span>{t("keys.expires.optional")}</span>
          <input name="expires" type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
          <small class="hint">{t("keys.expires.hint")}</small>
        </label>
        <p class="actions">
          <button type="submit" disabled={busy || scopes.length === 0 || name.trim() === ""}>
            {t("keys.create.submit")}
          </button>
        </p>
      </form>
      <section aria-label={t("keys.list")}>
        <h2>{t("keys.list")}</h2>
        {keys === null ? (
          <p aria-live="polite">{t("common.loading")}</p>
        ) : keys.length === 0 ? (
          <p class="hint">{t("keys.empty")}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>{t("common.name")}</th>
                <th>{t("common.key")}</th>
                <th>{t("keys.scopes")}</th>
                <th>{t("keys.lastUsed")}</th>
                <th>{t("keys.expires")}</th>
                <th>{t("common.status")}</th>
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
                      <span class="revoke-confirm" role="group" aria-label={t("keys.revokeQuestion", { name: key.name })}>
                        {t("keys.revokeWarning")}{" "}
                        <button type="button" class="danger" disabled={busy} onClick={() => void revoke(key)}>
                          {t("keys.revokeNow")}
                        </button>{" "}
                        <button type="button" onClick={() => setRevoking(null)}>
                          {t("common.cancel")}
                        </button>
                      </span>
                    ) : (
                      <button type="button" class="danger" aria-label={t("keys.revokeName", { name: key.name })} onClick={() => setRevoking(key.id)}>
                        {t("keys.revoke")}
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
