/**
 * Provisioning (SCIM 2.0): what to enter in the identity system (the base URL and the token),
 * the token's status, creating or rotating it (the new token is shown once, here, with a copy
 * button; a reload no longer shows it), revoking it, and what each provisioned group means here.
 */
import { useEffect, useState } from "preact/hooks";
import type { IssuedScimToken, ScimGroupSummary, ScimSettings } from "../../../server/routes/scim/admin-schema";
import { ConsolePage } from "../components/ConsolePage";
import { CopyField } from "../components/CopyField";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { formatMoment, type MessageId, Msg, t, useT } from "../lib/i18n";

type Mapping = ScimGroupSummary["mapping"];

const MAPPINGS: ReadonlyArray<{ value: string; mapping: Mapping; label: MessageId }> = [
  { value: "", mapping: null, label: "scim.mapping.nothing" },
  { value: "department", mapping: "department", label: "scim.mapping.department" },
  { value: "admin", mapping: "admin", label: "scim.mapping.admin" },
];

const when = (iso: string | null): string => (iso ? formatMoment(iso) : t("common.never"));

export function Provisioning() {
  useT();
  const [settings, setSettings] = useState<ScimSettings | null>(null);
  const [issued, setIssued] = useState<IssuedScimToken | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = (): Promise<void> =>
    api
      .get<ScimSettings>("/api/v1/admin/scim")
      .then(setSettings)
      .catch((caught) => setError(describeApiError(caught)));
  useEffect(() => void load(), []);

  const run = async (change: () => Promise<void>): Promise<void> => {
    setError(null);
    try {
      await change();
      await load();
    } catch (caught) {
      setError(describeApiError(caught));
    }
  };
  const createToken = () =>
    run(async () => {
      setConfirming(false);
      setIssued(await api.post<IssuedScimToken>("/api/v1/admin/scim/token"));
    });
  const revokeToken = () =>
    run(async () => {
      setIssued(null);
      await api.del("/api/v1/admin/scim/token");
    });
  const map = (group: ScimGroupSummary, mapping: Mapping) => run(() => api.put(`/api/v1/admin/scim/groups/${group.id}/mapping`, { mapping }));

  const token = settings?.token ?? null;
  return (
    <ConsolePage label={t("nav.provisioning")} name="provisioning">
      <h1>{t("scim.title")}</h1>
      <p class="hint">{t("scim.intro")}</p>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {settings && (
        <>
          <CopyField label={t("scim.baseUrl")} value={settings.base_url} />
          <section aria-label={t("scim.token.label")}>
            <h2>{t("scim.token")}</h2>
            {issued && (
              <div class="notice new-token" role="status">
                <CopyField label={t("scim.token.new")} value={issued.token} />
                <p>
                  {t("scim.token.copyNow")}
                  {issued.rotated ? ` ${t("scim.token.previousGone")}` : ""}
                </p>
              </div>
            )}
            <p class="token-status">
              {token ? (
                <Msg id="scim.token.exists" values={{ hint: <code>{token.hint}</code>, created: when(token.created_at), used: when(token.last_used_at) }} />
              ) : (
                t("scim.token.none")
              )}
            </p>
            {confirming ? (
              <p>
                {t("scim.token.rotateWarning")}{" "}
                <button type="button" onClick={() => void createToken()}>
                  {t("scim.token.rotateNow")}
                </button>{" "}
                <button type="button" onClick={() => setConfirming(false)}>
                  {t("common.cancel")}
                </button>
              </p>
            ) : (
              <p>
                <button type="button" onClick={() => (token ? setConfirming(true) : void createToken())}>
                  {t(token ? "scim.token.rotate" : "scim.token.create")}
                </button>{" "}
                {token && (
                  <button type="button" class="danger" onClick={() => void revokeToken()}>
                    {t("scim.token.revoke")}
                  </button>
                )}
              </p>
            )}
          </section>
          <section aria-label={t("scim.groups")}>
            <h2>{t("scim.groups")}</h2>
            {settings.groups.length === 0 ? (
              <p class="hint">{t("scim.groups.empty")}</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th>{t("scim.group")}</th>
                    <th class="num">{t("scim.members")}</th>
                    <th>{t("scim.gives")}</th>
                  </tr>
                </thead>
                <tbody>
                  {settings.groups.map((group) => (
                    <tr key={group.id}>
                      <td>{group.display_name}</td>
                      <td class="num">{group.member_count}</td>
                      <td>
                        <select
                          aria-label={t("scim.givesName", { name: group.display_name })}
                          value={group.mapping ?? ""}
                          onChange={(e) => void map(group, MAPPINGS.find((m) => m.value === (e.target as HTMLSelectElement).value)?.mapping ?? null)}
                        >
                          {MAPPINGS.map((m) => (
                            <option key={m.value} value={m.value}>
                              {t(m.label)}
                            </option>
                          ))}
                        </select>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </ConsolePage>
  );
}
