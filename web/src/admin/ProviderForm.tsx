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
import { bodyOf, EMPTY_FORM, type Form, formOf, type ProviderView, serviceProviderValues, unverified } from "./identity-provider-form";

const BASE = "/api/v1/admin/identity-providers";

interface Props {
  /** The saved provider, or null for a new one. */
  saved: ProviderView | null;
  onSaved: (view: ProviderView, created: boolean) => void;
  onCancel?: () => void;
}

function ServiceProviderValues({ view }: { view: ProviderView }) {
  const values = serviceProviderValues(view, location.origin);
  return (
    <dl class="sp-values">
      <dt>Entity ID (audience)</dt>
      <dd>
        <code class="sp-entity-id">{values.entityId}</code>
      </dd>
      <dt>Assertion Consumer Service (ACS) URL</dt>
      <dd>
        <code class="sp-acs-url">{values.acsUrl}</code>
      </dd>
      <dt>Metadata</dt>
      <dd>
        <a class="sp-metadata" href={values.metadataUrl} download>
          Download our SAML metadata
        </a>
      </dd>
    </dl>
  );
}

export function ProviderForm({ saved, onSaved, onCancel }: Props) {
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
      setMessage({ kind: "notice", text: saml ? "Saved." : "Saved. The issuer answered its discovery document." });
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
      aria-label={saved ? `Edit ${saved.display_name}` : "New identity provider"}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h3>{saved ? saved.display_name : "New identity provider"}</h3>
      {message && (
        <p class={message.kind} role={message.kind === "alert" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      {saved ? (
        <p>Protocol: {saml ? "SAML 2.0" : "OpenID Connect"}</p>
      ) : (
        <fieldset>
          <legend>Protocol</legend>
          {(["oidc", "saml"] as const).map((protocol) => (
            <label class="setting-check" key={protocol}>
              <input type="radio" name="protocol" value={protocol} checked={form.protocol === protocol} onChange={() => setForm({ ...form, protocol })} />{" "}
              {protocol === "oidc" ? "OpenID Connect" : "SAML 2.0"}
            </label>
          ))}
        </fieldset>
      )}
      {saved?.redirect_uri && !saml && (
        <p>
          Redirect URI: <code>{saved.redirect_uri}</code>
        </p>
      )}
      {saved && saml && <ServiceProviderValues view={saved} />}
      {field("display_name", "Name on the sign-in button", { required: true, placeholder: saml ? "Contoso ADFS" : "Contoso Entra ID" })}
      {!saml && (
        <>
          {field("issuer", "Issuer URL", { required: true, placeholder: "https://login.example.com/realms/acme" })}
          {field("client_id", "Client ID", { required: true })}
          <label class="setting">
            <span>Client secret</span>
            <input
              name="client_secret"
              type="password"
              value={form.client_secret}
              placeholder={saved?.client_secret_set ? "Stored (leave empty to keep it)" : ""}
              autocomplete="new-password"
              onInput={(e) => setForm({ ...form, client_secret: e.currentTarget.value })}
            />
            <small class="hint">Stored encrypted and never shown again. Give it again when you change the issuer or client ID.</small>
          </label>
        </>
      )}
      {saml && (
        <>
          {field("idp_metadata_url", "Identity provider metadata URL", {
            placeholder: "https://idp.example.com/FederationMetadata/2007-06/FederationMetadata.xml",
            hint: "Or upload the metadata file below.",
          })}
          <label class="setting">
            <span>Identity provider metadata file</span>
            <input name="idp_metadata_file" type="file" accept=".xml,application/xml,text/xml" onChange={(e) => readMetadataFile(e.currentTarget.files?.[0])} />
            {form.idp_metadata_xml && <small class="hint">A metadata file is ready to be saved.</small>}
          </label>
          {checkbox("allow_idp_initiated", "Allow sign-in started at the identity provider")}
        </>
      )}
      {field("allowed_domains", "Allowed email domains", {
        hint: "Comma-separated, e.g. example.com, example.co.uk. Each signs people in once verified (Domains, below), through one enabled provider at most.",
      })}
      {saved && unverified(saved).length > 0 && (
        <p class="notice unverified-domains">Not verified yet, so they sign nobody in: {unverified(saved).join(", ")}.</p>
      )}
      {field("groups_claim", saml ? "Groups attribute" : "Groups claim", { placeholder: "groups" })}
      {field("admin_groups", "Admin groups", { hint: "Members of any of these groups are admins; empty: roles are managed here." })}
      {field("department_claim", saml ? "Department attribute" : "Department claim", { placeholder: "department" })}
      {field("email_claim", saml ? "Email attribute" : "Email claim", {
        placeholder: "email",
        hint: saml ? undefined : "Entra ID without a mail attribute: preferred_username or upn.",
      })}
      {field("name_claim", saml ? "Name attribute" : "Name claim", { placeholder: "name" })}
      {!saml && checkbox("trust_email", "The provider vouches for the email claim without email_verified (Entra ID)")}
      {checkbox("jit_enabled", "Create people at their first sign-in (just in time)")}
      {checkbox("enabled", "Sign-in with this provider is on")}
      <p class="actions">
        <button type="submit" disabled={busy}>
          Save
        </button>
        {saved && !saml && (
          <button type="button" disabled={busy} onClick={() => void test()}>
            Test sign-in
          </button>
        )}
        {onCancel && (
          <button type="button" class="link-button" disabled={busy} onClick={onCancel}>
            Close
          </button>
        )}
      </p>
    </form>
  );
}
