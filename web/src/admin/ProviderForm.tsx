/**
 * One identity provider's form on the console's Sign-in page, OpenID Connect or SAML 2.0 (the
 * protocol is chosen when the provider is added). For OpenID Connect it shows the redirect URI to
 * register at the provider; for a saved SAML provider, what to give the identity provider: our
 * entity id, ACS URL and a metadata file to download. "Test sign-in" runs the provider's login in
 * a new tab and reports which claims came back and whom they would sign in, signing nobody in.
 */
import { useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { t, useT } from "../lib/i18n";
import { bodyOf, EMPTY_FORM, type Form, formOf, PROTOCOL_NAMES, type ProviderView, serviceProviderValues, unverified } from "./identity-provider-form";

const BASE = "/api/v1/admin/identity-providers";

interface Props {
  /** The saved provider, or null for a new one. */
  saved: ProviderView | null;
  onSaved: (view: ProviderView, created: boolean) => void;
  onCancel?: () => void;
}

function ServiceProviderValues({ view }: { view: ProviderView }) {
  useT();
  const values = serviceProviderValues(view);
  if (!values) return null;
  return (
    <dl class="sp-values">
      <dt>{t("idp.sp.entityId")}</dt>
      <dd>
        <code class="sp-entity-id">{values.entityId}</code>
      </dd>
      <dt>{t("idp.sp.acsUrl")}</dt>
      <dd>
        <code class="sp-acs-url">{values.acsUrl}</code>
      </dd>
      <dt>{t("idp.sp.metadata")}</dt>
      <dd>
        <a class="sp-metadata" href={values.metadataUrl} download>
          {t("idp.sp.downloadMetadata")}
        </a>
      </dd>
    </dl>
  );
}

export function ProviderForm({ saved, onSaved, onCancel }: Props) {
  useT();
  const [form, setForm] = useState<Form>(saved ? formOf(saved) : EMPTY_FORM);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "alert" | "notice"; text: string } | null>(null);
  const saml = form.protocol === "saml";

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
      const body = saved
        ? await api.put<{ identity_provider: ProviderView }>(`${BASE}/${saved.id}`, bodyOf(form))
        : await api.post<{ identity_provider: ProviderView }>(BASE, bodyOf(form));
      setForm(formOf(body.identity_provider));
      setMessage({ kind: "notice", text: t(saml ? "idp.saved.saml" : "idp.saved") });
      onSaved(body.identity_provider, !saved);
    });
  const test = () =>
    run(async () => {
      const { start_url } = await api.post<{ start_url: string }>(`${BASE}/${saved!.id}/test`);
      window.open(start_url, "_blank", "noopener");
    });
  const readMetadataFile = (file: File | undefined) => {
    if (file) void file.text().then((xml) => setForm((current) => ({ ...current, idp_metadata_xml: xml })));
  };

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
  const checkbox = (name: "jit_enabled" | "enabled" | "trust_email" | "allow_idp_initiated", label: string) => (
    <label class="setting-check">
      <input name={name} type="checkbox" checked={form[name]} onChange={(e) => setForm({ ...form, [name]: e.currentTarget.checked })} /> {label}
    </label>
  );

  return (
    <form
      class="settings-form provider-form"
      data-protocol={form.protocol}
      aria-label={saved ? t("idp.editNamed", { name: saved.display_name }) : t("idp.new")}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h3>{saved ? saved.display_name : t("idp.new")}</h3>
      {message && (
        <p class={message.kind} role={message.kind === "alert" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      {saved ? (
        <p>{t("idp.protocol.current", { protocol: PROTOCOL_NAMES[form.protocol] })}</p>
      ) : (
        <fieldset>
          <legend>{t("idp.protocol")}</legend>
          {(["oidc", "saml"] as const).map((protocol) => (
            <label class="setting-check" key={protocol}>
              <input type="radio" name="protocol" value={protocol} checked={form.protocol === protocol} onChange={() => setForm({ ...form, protocol })} />{" "}
              {PROTOCOL_NAMES[protocol]}
            </label>
          ))}
        </fieldset>
      )}
      {saved?.redirect_uri && !saml && (
        <p>
          {t("idp.redirectUri")} <code>{saved.redirect_uri}</code>
        </p>
      )}
      {saved && saml && <ServiceProviderValues view={saved} />}
      {field("display_name", t("idp.displayName"), {
        required: true,
        placeholder: t(saml ? "idp.displayName.placeholder.saml" : "idp.displayName.placeholder"),
      })}
      {!saml && (
        <>
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
        </>
      )}
      {saml && (
        <>
          {field("idp_metadata_url", t("idp.metadataUrl"), {
            placeholder: "https://idp.example.com/FederationMetadata/2007-06/FederationMetadata.xml",
            hint: t("idp.metadataUrl.hint"),
          })}
          <label class="setting">
            <span>{t("idp.metadataFile")}</span>
            <input name="idp_metadata_file" type="file" accept=".xml,application/xml,text/xml" onChange={(e) => readMetadataFile(e.currentTarget.files?.[0])} />
            {form.idp_metadata_xml && <small class="hint">{t("idp.metadataFile.ready")}</small>}
          </label>
          {checkbox("allow_idp_initiated", t("idp.allowIdpInitiated"))}
        </>
      )}
      {field("allowed_domains", t("idp.allowedDomains"), { hint: t("idp.allowedDomains.hint.providers") })}
      {saved && unverified(saved).length > 0 && <p class="notice unverified-domains">{t("idp.unverified", { domains: unverified(saved).join(", ") })}</p>}
      {field("groups_claim", t(saml ? "idp.groupsAttribute" : "idp.groupsClaim"), { placeholder: "groups" })}
      {field("admin_groups", t("idp.adminGroups"), { hint: t("idp.adminGroups.hint") })}
      {field("department_claim", t(saml ? "idp.departmentAttribute" : "idp.departmentClaim"), { placeholder: "department" })}
      {field("email_claim", t(saml ? "idp.emailAttribute" : "idp.emailClaim"), {
        placeholder: "email",
        hint: saml ? undefined : t("idp.emailClaim.hint"),
      })}
      {field("name_claim", t(saml ? "idp.nameAttribute" : "idp.nameClaim"), { placeholder: "name" })}
      {!saml && checkbox("trust_email", t("idp.trustEmail"))}
      {checkbox("jit_enabled", t("idp.jit"))}
      {checkbox("enabled", t("idp.enabled"))}
      <p class="actions">
        <button type="submit" disabled={busy}>
          {t("common.save")}
        </button>
        {saved && !saml && (
          <button type="button" disabled={busy} onClick={() => void test()}>
            {t("idp.test")}
          </button>
        )}
        {onCancel && (
          <button type="button" class="link-button" disabled={busy} onClick={onCancel}>
            {t("common.close")}
          </button>
        )}
      </p>
    </form>
  );
}
