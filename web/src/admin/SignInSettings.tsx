/**
 * The console's sign-in settings: the organisation's identity provider (OpenID Connect). The
 * client secret is write-only: the page only learns whether one is stored, and leaving the field
 * empty keeps it. "Test sign-in" runs the provider's login in a new tab and reports which claims
 * came back and whom they would sign in, without signing anyone in.
 */
import { useEffect, useState } from "preact/hooks";
import { ConsolePage } from "../components/ConsolePage";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { t, useT } from "../lib/i18n";
import { SignInDomains } from "./SignInDomains";

interface ProviderView {
  display_name: string;
  issuer: string;
  client_id: string;
  client_secret_set: boolean;
  allowed_domains: string[];
  allowed_domain_status: Record<string, "verified" | "pending" | "not_claimed">;
  claim_mapping: { email?: string; name?: string; department?: string; groups?: string; admin_groups?: string[]; trust_email?: boolean };
  jit_enabled: boolean;
  enabled: boolean;
  redirect_uri: string;
}

interface Form {
  display_name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  allowed_domains: string;
  groups_claim: string;
  admin_groups: string;
  department_claim: string;
  email_claim: string;
  name_claim: string;
  trust_email: boolean;
  jit_enabled: boolean;
  enabled: boolean;
}

const EMPTY: Form = {
  display_name: "",
  issuer: "",
  client_id: "",
  client_secret: "",
  allowed_domains: "",
  groups_claim: "",
  admin_groups: "",
  department_claim: "",
  email_claim: "",
  name_claim: "",
  trust_email: false,
  jit_enabled: false,
  enabled: true,
};

const list = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

const unverified = (view: ProviderView): string[] => view.allowed_domains.filter((domain) => view.allowed_domain_status[domain] !== "verified");

function formOf(view: ProviderView): Form {
  return {
    display_name: view.display_name,
    issuer: view.issuer,
    client_id: view.client_id,
    client_secret: "",
    allowed_domains: view.allowed_domains.join(", "),
    groups_claim: view.claim_mapping.groups ?? "",
    admin_groups: (view.claim_mapping.admin_groups ?? []).join(", "),
    department_claim: view.claim_mapping.department ?? "",
    email_claim: view.claim_mapping.email ?? "",
    name_claim: view.claim_mapping.name ?? "",
    trust_email: view.claim_mapping.trust_email ?? false,
    jit_enabled: view.jit_enabled,
    enabled: view.enabled,
  };
}

function bodyOf(form: Form): Record<string, unknown> {
  const mapping: Record<string, unknown> = {};
  if (form.groups_claim.trim()) mapping.groups = form.groups_claim.trim();
  if (form.department_claim.trim()) mapping.department = form.department_claim.trim();
  if (list(form.admin_groups).length > 0) mapping.admin_groups = list(form.admin_groups);
  if (form.email_claim.trim()) mapping.email = form.email_claim.trim();
  if (form.name_claim.trim()) mapping.name = form.name_claim.trim();
  if (form.trust_email) mapping.trust_email = true;
  return {
    display_name: form.display_name,
    issuer: form.issuer.trim(),
    client_id: form.client_id.trim(),
    // Empty keeps the stored secret: the page never has it to send back.
    ...(form.client_secret ? { client_secret: form.client_secret } : {}),
    allowed_domains: list(form.allowed_domains),
    claim_mapping: mapping,
    jit_enabled: form.jit_enabled,
    enabled: form.enabled,
  };
}

export function SignInSettings() {
  useT();
  const [saved, setSaved] = useState<ProviderView | null | undefined>(undefined);
  const [form, setForm] = useState<Form>(EMPTY);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "alert" | "notice"; text: string } | null>(null);

  const show = (view: ProviderView | null): void => {
    setSaved(view);
    setForm(view ? formOf(view) : EMPTY);
  };

  useEffect(() => {
    api
      .get<{ identity_provider: ProviderView | null }>("/api/v1/admin/identity-provider")
      .then((body) => show(body.identity_provider))
      .catch((error) => setMessage({ kind: "alert", text: describeApiError(error) }));
  }, []);

  const run = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
    } catch (error) {
      setMessage({ kind: "alert", text: describeApiError(error) });
    } finally {
      setBusy(false);
    }
  };

  const save = () =>
    run(async () => {
      const body = await api.put<{ identity_provider: ProviderView }>("/api/v1/admin/identity-provider", bodyOf(form));
      show(body.identity_provider);
      setMessage({ kind: "notice", text: t("idp.saved") });
    });
  const remove = () =>
    run(async () => {
      if (!confirm(t("idp.confirmRemove"))) return;
      await api.del("/api/v1/admin/identity-provider");
      show(null);
      setMessage({ kind: "notice", text: t("idp.removed") });
    });
  const test = () =>
    run(async () => {
      const { start_url } = await api.post<{ start_url: string }>("/api/v1/admin/identity-provider/test");
      window.open(start_url, "_blank", "noopener");
    });

  const field = (name: keyof Form, label: string, options: { hint?: string; placeholder?: string; required?: boolean } = {}) => (
    <label class="setting">
      <span>{label}</span>
      <input
        name={name}
        type="text"
        value={String(form[name])}
        placeholder={options.placeholder}
        required={options.required}
        autocomplete="off"
        onInput={(e) => setForm({ ...form, [name]: e.currentTarget.value })}
      />
      {options.hint && <small class="hint">{options.hint}</small>}
    </label>
  );
  const checkbox = (name: "jit_enabled" | "enabled" | "trust_email", label: string) => (
    <label class="setting-check">
      <input name={name} type="checkbox" checked={form[name]} onChange={(e) => setForm({ ...form, [name]: e.currentTarget.checked })} /> {label}
    </label>
  );

  return (
    <ConsolePage label={t("idp.label")} name="sign-in-settings">
      <h1>{t("nav.signIn")}</h1>
      <p class="hint">{t("idp.intro")}</p>
      {message && (
        <p class={message.kind} role={message.kind === "alert" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      {saved === undefined ? (
        <p aria-live="polite">{t("common.loading")}</p>
      ) : (
        <form
          class="settings-form"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          {saved && (
            <p>
              {t("idp.redirectUri")} <code>{saved.redirect_uri}</code>
            </p>
          )}
          {field("display_name", t("idp.displayName"), { required: true, placeholder: t("idp.displayName.placeholder") })}
          {field("issuer", t("idp.issuer"), { required: true, placeholder: "https://login.example.com/realms/acme" })}
          {field("client_id", t("idp.clientId"), { required: true })}
          <label class="setting">
            <span>{t("idp.clientSecret")}</span>
            <input
              name="client_secret"
              type="password"
              value={form.client_secret}
              placeholder={saved?.client_secret_set ? t("idp.clientSecret.stored") : ""}
              autocomplete="new-password"
              onInput={(e) => setForm({ ...form, client_secret: e.currentTarget.value })}
            />
            <small class="hint">{t("idp.clientSecret.hint")}</small>
          </label>
          {field("allowed_domains", t("idp.allowedDomains"), { hint: t("idp.allowedDomains.hint") })}
          {saved && unverified(saved).length > 0 && <p class="notice unverified-domains">{t("idp.unverified", { domains: unverified(saved).join(", ") })}</p>}
          {field("groups_claim", t("idp.groupsClaim"), { placeholder: "groups" })}
          {field("admin_groups", t("idp.adminGroups"), { hint: t("idp.adminGroups.hint") })}
          {field("department_claim", t("idp.departmentClaim"), { placeholder: "department" })}
          {field("email_claim", t("idp.emailClaim"), { placeholder: "email", hint: t("idp.emailClaim.hint") })}
          {field("name_claim", t("idp.nameClaim"), { placeholder: "name" })}
          {checkbox("trust_email", t("idp.trustEmail"))}
          {checkbox("jit_enabled", t("idp.jit"))}
          {checkbox("enabled", t("idp.enabled"))}
          <p class="actions">
            <button type="submit" disabled={busy}>
              {t("common.save")}
            </button>
            {saved && (
              <>
                <button type="button" disabled={busy} onClick={() => void test()}>
                  {t("idp.test")}
                </button>
                <button type="button" class="link-button" disabled={busy} onClick={() => void remove()}>
                  {t("common.remove")}
                </button>
              </>
            )}
          </p>
        </form>
      )}
      <SignInDomains />
    </ConsolePage>
  );
}
