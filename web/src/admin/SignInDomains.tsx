/**
 * The sign-in page's Domains section: the email domains the organisation claims and whether it
 * proved them. Only a verified domain finds the provider on the sign-in page and creates people
 * at their first sign-in; a pending one does nothing. Adding a domain shows the TXT record to
 * publish at the company's DNS host (not at the identity provider); "Verify" looks it up now.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";

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
  if (domain.status === "pending") return "Pending: publish the TXT record, then verify";
  return domain.method === "operator" ? "Verified (approved by the platform operator)" : "Verified (DNS)";
}

export function SignInDomains() {
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
      return `${domain.domain} added. Publish its TXT record at your DNS host, then press Verify.`;
    });
  const verify = (domain: DomainView) =>
    run(async () => {
      await api.post(`${BASE}/${domain.id}/verify`);
      return `${domain.domain} is verified.`;
    });
  const remove = (domain: DomainView) =>
    run(async () => {
      if (!confirm(`Remove ${domain.domain}? Its people can no longer sign in by it here until it is verified again.`)) return "Nothing removed.";
      await api.del(`${BASE}/${domain.id}`);
      return `${domain.domain} removed.`;
    });

  return (
    <section class="sign-in-domains" aria-labelledby="sign-in-domains-title">
      <h2 id="sign-in-domains-title">Domains</h2>
      <p class="hint">
        Your provider signs people in only for email domains your organisation has verified. Add a domain, publish the TXT record shown at the company's DNS
        host (where the domain's records are managed, not at Entra ID, Okta, Google or Keycloak), then press Verify. Public mail domains (gmail.com…) cannot be
        added.
      </p>
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
          <span>Email domain</span>
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
          Add domain
        </button>
      </form>
      {domains === undefined ? (
        <p aria-live="polite">Loading…</p>
      ) : domains.length === 0 ? (
        <p class="hint">No domain yet.</p>
      ) : (
        <ul class="domain-list">
          {domains.map((domain) => (
            <li key={domain.id} class="domain" data-domain={domain.domain} data-status={domain.status}>
              <strong>{domain.domain}</strong> <span class="badge domain-status">{standing(domain)}</span>
              {domain.status === "pending" && (
                <dl class="txt-record">
                  <dt>Record name</dt>
                  <dd>
                    <code class="txt-name">{domain.txt_record.name}</code>
                  </dd>
                  <dt>Type</dt>
                  <dd>TXT</dd>
                  <dt>Value</dt>
                  <dd>
                    <code class="txt-value">{domain.txt_record.value}</code>
                  </dd>
                </dl>
              )}
              <p class="actions">
                {domain.status === "pending" && (
                  <button type="button" disabled={busy} onClick={() => void verify(domain)}>
                    Verify {domain.domain}
                  </button>
                )}
                <button type="button" class="link-button" disabled={busy} onClick={() => void remove(domain)}>
                  Remove {domain.domain}
                </button>
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
