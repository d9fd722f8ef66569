/**
 * The sign-in page's Domains section: the email domains the organisation claims and whether it
 * proved them. Only a verified domain finds the provider on the sign-in page and creates people
 * at their first sign-in; a pending one does nothing. Adding a domain shows the TXT record to
 * publish at the company's DNS host (not at the identity provider); "Verify" looks it up now.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { t, useT } from "../lib/i18n";

interface DomainView {
  id: string;
  domain: string;
  status: "pending" | "verified";
  method: "dns" | "operator" | null;
  verified_at: string | null;
  txt_record: { name: string; type: "TXT"; value: string };
}

const BASE = "/api/v1/admin/identity-provider/domains";

function standing(domain: DomainView): string {
  if (domain.status === "pending") return t("domains.pending");
  return t(domain.method === "operator" ? "domains.verified.operator" : "domains.verified.dns");
}

export function SignInDomains() {
  useT();
  const [domains, setDomains] = useState<DomainView[] | undefined>(undefined);
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "alert" | "notice"; text: string } | null>(null);

  const reload = async (): Promise<void> => setDomains((await api.get<{ domains: DomainView[] }>(BASE)).domains);

  useEffect(() => {
    reload().catch((error) => setMessage({ kind: "alert", text: describeApiError(error) }));
  }, []);

  const run = async (work: () => Promise<string>): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      const done = await work();
      setMessage({ kind: "notice", text: done });
    } catch (error) {
      setMessage({ kind: "alert", text: describeApiError(error) });
    } finally {
      setBusy(false);
      await reload().catch(() => undefined);
    }
  };

  const add = () =>
    run(async () => {
      const { domain } = await api.post<{ domain: DomainView }>(BASE, { domain: typed.trim() });
      setTyped("");
      return t("domains.added", { domain: domain.domain });
    });
  const verify = (domain: DomainView) =>
    run(async () => {
      await api.post(`${BASE}/${domain.id}/verify`);
      return t("domains.isVerified", { domain: domain.domain });
    });
  const remove = (domain: DomainView) =>
    run(async () => {
      if (!confirm(t("domains.confirmRemove", { domain: domain.domain }))) return t("domains.nothingRemoved");
      await api.del(`${BASE}/${domain.id}`);
      return t("domains.removed", { domain: domain.domain });
    });

  return (
    <section class="sign-in-domains" aria-labelledby="sign-in-domains-title">
      <h2 id="sign-in-domains-title">{t("domains.title")}</h2>
      <p class="hint">{t("domains.intro")}</p>
      {message && (
        <p class={message.kind} role={message.kind === "alert" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      <form
        class="actions"
        onSubmit={(event) => {
          event.preventDefault();
          void add();
        }}
      >
        <label class="setting">
          <span>{t("domains.emailDomain")}</span>
          <input
            name="new_domain"
            type="text"
            value={typed}
            placeholder="example.com"
            autocomplete="off"
            required
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          {t("domains.add")}
        </button>
      </form>
      {domains === undefined ? (
        <p aria-live="polite">{t("common.loading")}</p>
      ) : domains.length === 0 ? (
        <p class="hint">{t("domains.empty")}</p>
      ) : (
        <ul class="domain-list">
          {domains.map((domain) => (
            <li key={domain.id} class="domain" data-domain={domain.domain} data-status={domain.status}>
              <strong>{domain.domain}</strong> <span class="badge domain-status">{standing(domain)}</span>
              {domain.status === "pending" && (
                <dl class="txt-record">
                  <dt>{t("domains.recordName")}</dt>
                  <dd>
                    <code class="txt-name">{domain.txt_record.name}</code>
                  </dd>
                  <dt>{t("domains.type")}</dt>
                  <dd>TXT</dd>
                  <dt>{t("domains.value")}</dt>
                  <dd>
                    <code class="txt-value">{domain.txt_record.value}</code>
                  </dd>
                </dl>
              )}
              <p class="actions">
                {domain.status === "pending" && (
                  <button type="button" disabled={busy} onClick={() => void verify(domain)}>
                    {t("domains.verify", { domain: domain.domain })}
                  </button>
                )}
                <button type="button" class="link-button" disabled={busy} onClick={() => void remove(domain)}>
                  {t("domains.remove", { domain: domain.domain })}
                </button>
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
