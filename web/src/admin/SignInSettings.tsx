/**
 * The console's sign-in settings: the organisation's identity providers (OpenID Connect or SAML
 * 2.0), several if the company has several ways in (staff on one, contractors on another), each
 * with its own email domains; then the organisation's domains. An organisation with one provider
 * sees its settings at once; with several, the list, and the form of the one chosen.
 */
import { useEffect, useState } from "preact/hooks";
import { ConsolePage } from "../components/ConsolePage";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { t, useT } from "../lib/i18n";
import { PROTOCOL_NAMES, type ProviderView } from "./identity-provider-form";
import { ProviderForm } from "./ProviderForm";
import { SignInDomains } from "./SignInDomains";

const BASE = "/api/v1/admin/identity-providers";

/** What the form below the list shows: nothing, a new provider, or a saved one by id. */
type Editing = null | "new" | string;

function ProviderRow({ view, busy, onEdit, onRemove }: { view: ProviderView; busy: boolean; onEdit: () => void; onRemove: () => void }) {
  return (
    <li data-provider-id={view.id} data-protocol={view.protocol}>
      <span class="provider-name">{view.display_name}</span>
      <span class="provider-meta">
        {PROTOCOL_NAMES[view.protocol]} · {view.allowed_domains.length > 0 ? view.allowed_domains.join(", ") : t("idp.row.noDomains")}
        {view.enabled ? "" : ` · ${t("idp.row.off")}`}
      </span>
      <button type="button" class="link-button" disabled={busy} aria-label={t("idp.editNamed", { name: view.display_name })} onClick={onEdit}>
        {t("common.edit")}
      </button>
      <button type="button" class="link-button" disabled={busy} aria-label={t("idp.removeNamed", { name: view.display_name })} onClick={onRemove}>
        {t("common.remove")}
      </button>
    </li>
  );
}

export function SignInSettings() {
  useT();
  const [providers, setProviders] = useState<ProviderView[] | undefined>(undefined);
  const [editing, setEditing] = useState<Editing>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "alert" | "notice"; text: string } | null>(null);

  useEffect(() => {
    api
      .get<{ identity_providers: ProviderView[] }>(BASE)
      .then((body) => {
        setProviders(body.identity_providers);
        // One provider: its settings at once; none: the form to add the first.
        if (body.identity_providers.length <= 1) setEditing(body.identity_providers[0]?.id ?? "new");
      })
      .catch((error) => setMessage({ kind: "alert", text: describeApiError(error) }));
  }, []);

  const saved = (view: ProviderView, created: boolean): void => {
    setProviders((current) => (created ? [...(current ?? []), view] : (current ?? []).map((p) => (p.id === view.id ? view : p))));
    // A new provider's form opens afresh under its id, so the page says it was added.
    if (created) setMessage({ kind: "notice", text: t("idp.added", { name: view.display_name }) });
    setEditing(view.id);
  };
  const remove = async (view: ProviderView): Promise<void> => {
    if (!confirm(t("idp.confirmRemoveNamed", { name: view.display_name }))) return;
    setBusy(true);
    setMessage(null);
    try {
      await api.del(`${BASE}/${view.id}`);
      setProviders((current) => (current ?? []).filter((p) => p.id !== view.id));
      if (editing === view.id) setEditing(null);
      setMessage({ kind: "notice", text: t("idp.removedNamed", { name: view.display_name }) });
    } catch (error) {
      setMessage({ kind: "alert", text: describeApiError(error) });
    } finally {
      setBusy(false);
    }
  };
  const editedView = providers?.find((p) => p.id === editing) ?? null;

  return (
    <ConsolePage label={t("idp.label")} name="sign-in-settings">
      <h1>{t("nav.signIn")}</h1>
      <p class="hint">{t("idp.intro.protocols")}</p>
      {message && (
        <p class={message.kind} role={message.kind === "alert" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      {providers === undefined ? (
        <p aria-live="polite">{t("common.loading")}</p>
      ) : (
        <section class="identity-providers" aria-labelledby="identity-providers-title">
          <h2 id="identity-providers-title">{t("idp.list.title")}</h2>
          {providers.length === 0 ? (
            <p class="hint">{t("idp.list.empty")}</p>
          ) : (
            <ul class="provider-rows">
              {providers.map((view) => (
                <ProviderRow key={view.id} view={view} busy={busy} onEdit={() => setEditing(view.id)} onRemove={() => void remove(view)} />
              ))}
            </ul>
          )}
          <p class="actions">
            <button type="button" disabled={busy || editing === "new"} onClick={() => setEditing("new")}>
              {t("idp.add")}
            </button>
          </p>
          {editing !== null && (editing === "new" || editedView) && (
            <ProviderForm key={editing} saved={editedView} onSaved={saved} onCancel={providers.length > 0 ? () => setEditing(null) : undefined} />
          )}
        </section>
      )}
      <SignInDomains />
    </ConsolePage>
  );
}
