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

type Mapping = ScimGroupSummary["mapping"];

const MAPPINGS: ReadonlyArray<{ value: string; mapping: Mapping; label: string }> = [
  { value: "", mapping: null, label: "Nothing" },
  { value: "department", mapping: "department", label: "Department (the group's name)" },
  { value: "admin", mapping: "admin", label: "Admin role" },
];

const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : "never");

export function Provisioning() {
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
    <ConsolePage label="Provisioning" name="provisioning">
      <h1>Provisioning (SCIM)</h1>
      <p class="hint">
        Your identity system (Okta, Entra ID, …) creates, updates and removes people and groups here. Enter the base URL and the token in its SCIM provisioning
        settings.
      </p>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {settings && (
        <>
          <CopyField label="SCIM base URL" value={settings.base_url} />
          <section aria-label="SCIM token">
            <h2>Token</h2>
            {issued && (
              <div class="notice new-token" role="status">
                <CopyField label="New SCIM token" value={issued.token} />
                <p>Copy it now: it is not shown again.{issued.rotated ? " The previous token no longer works." : ""}</p>
              </div>
            )}
            <p class="token-status">
              {token ? (
                <>
                  A token ending in <code>{token.hint}</code> exists, created {when(token.created_at)}, last used {when(token.last_used_at)}.
                </>
              ) : (
                "No token: the identity system cannot provision anyone."
              )}
            </p>
            {confirming ? (
              <p>
                The current token stops working at once.{" "}
                <button type="button" onClick={() => void createToken()}>
                  Rotate now
                </button>{" "}
                <button type="button" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </p>
            ) : (
              <p>
                <button type="button" onClick={() => (token ? setConfirming(true) : void createToken())}>
                  {token ? "Rotate token" : "Create token"}
                </button>{" "}
                {token && (
                  <button type="button" class="danger" onClick={() => void revokeToken()}>
                    Revoke token
                  </button>
                )}
              </p>
            )}
          </section>
          <section aria-label="Groups">
            <h2>Groups</h2>
            {settings.groups.length === 0 ? (
              <p class="hint">No groups provisioned yet. Groups your identity system pushes appear here; choose what each one means.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th>Group</th>
                    <th class="num">Members</th>
                    <th>Gives its members</th>
                  </tr>
                </thead>
                <tbody>
                  {settings.groups.map((group) => (
                    <tr key={group.id}>
                      <td>{group.display_name}</td>
                      <td class="num">{group.member_count}</td>
                      <td>
                        <select
                          aria-label={`What ${group.display_name} gives its members`}
                          value={group.mapping ?? ""}
                          onChange={(e) => void map(group, MAPPINGS.find((m) => m.value === (e.target as HTMLSelectElement).value)?.mapping ?? null)}
                        >
                          {MAPPINGS.map((m) => (
                            <option key={m.value} value={m.value}>
                              {m.label}
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
