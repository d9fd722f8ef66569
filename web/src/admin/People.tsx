/**
 * The organisation's people (GET /api/v1/admin/people): search by name or email (sent once the
 * admin stops typing), filter by role, whether active and how they arrived (seed, SCIM, JIT,
 * API, CLI), page through, add someone, change a role or deactivate and reactivate with a
 * confirm step, and export or erase a person's data. On a phone each person is a card (people.css).
 */
import { useEffect, useState } from "preact/hooks";
import { ConsolePage } from "../components/ConsolePage";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { type MessageId, useT } from "../lib/i18n";
import type { Me } from "../lib/types";
import type { PeopleBody } from "../../../server/routes/people/schema";
import { AddPerson } from "./AddPerson";
import { Choice } from "./Choice";
import { ARRIVED_VIA, type ArrivedVia, type Person } from "./people-labels";
import { PersonRow, type RowChange } from "./PersonRow";
import "./people.css";

const PAGE = 50;
const SEARCH_DELAY_MS = 300;

interface Filters {
  search: string;
  role: "" | Person["role"];
  active: "" | "true" | "false";
  via: "" | ArrivedVia;
  offset: number;
}

function queryOf(filters: Filters): string {
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(filters.offset) });
  if (filters.search.trim()) query.set("search", filters.search.trim());
  if (filters.role) query.set("role", filters.role);
  if (filters.active) query.set("active", filters.active);
  if (filters.via) query.set("provisioned_via", filters.via);
  return query.toString();
}

const ROLE_FILTER = [
  ["", "common.any"],
  ["employee", "people.filter.employees"],
  ["admin", "people.filter.admins"],
] as const satisfies ReadonlyArray<readonly [string, MessageId]>;
const ACTIVE_FILTER = [
  ["", "common.any"],
  ["true", "common.active"],
  ["false", "common.deactivated"],
] as const satisfies ReadonlyArray<readonly [string, MessageId]>;
const VIA_FILTER: ReadonlyArray<readonly ["" | ArrivedVia, MessageId]> = [
  ["", "common.any"],
  ...Object.keys(ARRIVED_VIA)
    .filter((via): via is ArrivedVia => via in ARRIVED_VIA)
    .map((via) => [via, ARRIVED_VIA[via].label] as const),
];

/** `value`, once it has stopped changing for `delayMs`. */
function useSettled<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

export function People({ me }: { me: Me }) {
  const { t } = useT();
  const translated = <T extends string>(options: ReadonlyArray<readonly [T, MessageId]>) => options.map(([value, id]) => [value, t(id)] as const);
  const [typed, setTyped] = useState("");
  const search = useSettled(typed, SEARCH_DELAY_MS);
  const [filters, setFilters] = useState<Omit<Filters, "search">>({ role: "", active: "", via: "", offset: 0 });
  const [listing, setListing] = useState<PeopleBody | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  const query = queryOf({ ...filters, search });
  useEffect(() => {
    let current = true;
    api
      .get<PeopleBody>(`/api/v1/admin/people?${query}`)
      .then((body) => {
        if (!current) return;
        setListing(body);
        setError(null);
      })
      .catch((caught) => {
        if (current) setError(describeApiError(caught));
      });
    return () => {
      current = false;
    };
  }, [query, reloads]);

  // A new search starts at the first page.
  useEffect(() => setFilters((f) => (f.offset === 0 ? f : { ...f, offset: 0 })), [search]);
  const filter = (change: Partial<Omit<Filters, "search" | "offset">>) => setFilters((f) => ({ ...f, ...change, offset: 0 }));

  const change = async (person: Person, update: RowChange): Promise<boolean> => {
    try {
      const { person: now } = await api.patch<{ person: Person }>(`/api/v1/admin/people/${person.id}`, update);
      setListing((l) => l && { ...l, people: l.people.map((p) => (p.id === now.id ? now : p)) });
      setNotice(t("people.nowIs", { name: now.name, state: now.is_active ? now.role : "deactivated" }));
      setError(null);
      return true;
    } catch (caught) {
      setError(describeApiError(caught));
      return false;
    }
  };

  const people = listing?.people ?? [];
  const filtered = Boolean(search.trim() || filters.role || filters.active || filters.via);
  return (
    <ConsolePage label={t("nav.people")} name="people">
      <h1>{t("nav.people")}</h1>
      <AddPerson
        onAdded={(person) => {
          setNotice(t("people.added", { name: person.name }));
          setReloads((n) => n + 1);
        }}
      />
      <div class="people-filters" role="search">
        <label>
          {t("people.search")}
          <input type="search" placeholder={t("people.search.placeholder")} value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        </label>
        <Choice label={t("common.role")} value={filters.role} options={translated(ROLE_FILTER)} onChange={(role) => filter({ role })} />
        <Choice label={t("common.status")} value={filters.active} options={translated(ACTIVE_FILTER)} onChange={(active) => filter({ active })} />
        <Choice label={t("people.arrivedVia")} value={filters.via} options={translated(VIA_FILTER)} onChange={(via) => filter({ via })} />
      </div>
      <p class="people-status" role="status" aria-live="polite">
        {notice}
      </p>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      {listing && people.length === 0 && <p class="hint people-empty">{t(filtered ? "people.empty.filtered" : "people.empty")}</p>}
      {people.length > 0 && (
        <table class="people-table">
          <thead>
            <tr>
              <th>{t("common.name")}</th>
              <th>{t("common.email")}</th>
              <th>{t("common.role")}</th>
              <th>{t("common.department")}</th>
              <th>{t("common.active")}</th>
              <th>{t("people.arrivedVia")}</th>
              <th>{t("people.lastSignIn")}</th>
              <th>
                <span class="sr-only">{t("people.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {people.map((person) => (
              <PersonRow
                key={person.id}
                person={person}
                isMe={person.id === me.user.id}
                onChange={(update) => change(person, update)}
                onErased={() => {
                  setNotice(t("people.erased", { name: person.name }));
                  setReloads((n) => n + 1);
                }}
                onError={setError}
              />
            ))}
          </tbody>
        </table>
      )}
      {listing && listing.total > 0 && (
        <p class="people-paging">
          {t("people.paging", { from: listing.offset + 1, to: listing.offset + people.length, total: listing.total })}{" "}
          <button type="button" disabled={listing.offset === 0} onClick={() => setFilters((f) => ({ ...f, offset: Math.max(0, f.offset - PAGE) }))}>
            {t("people.previous")}
          </button>{" "}
          <button type="button" disabled={listing.next_offset === null} onClick={() => setFilters((f) => ({ ...f, offset: listing.next_offset ?? f.offset }))}>
            {t("people.next")}
          </button>
        </p>
      )}
    </ConsolePage>
  );
}
