/**
 * Rows a test needs, built in organisations of its own so suites never see each other's data:
 * `buildOrg`, `buildPerson` / `buildAdmin`, `buildDocument`, and `buildOrgsWithAdmins` for the set-up
 * most tenant-isolation suites repeat (two organisations, each with an admin). Every organisation
 * built is remembered; `dropAll()` deletes them (cascading to their people and documents).
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../../../db/knex";
import { dropOrganisations } from "../organizations";

export interface BuiltOrg {
  id: string;
  name: string;
  slug: string;
}

export interface BuiltPerson {
  id: string;
  orgId: string;
  email: string;
  name: string;
  role: "admin" | "employee";
}

export interface BuiltDocument {
  id: string;
  orgId: string;
  title: string;
  status: string;
}

export interface OrgWithAdmin {
  org: BuiltOrg;
  admin: BuiltPerson;
}

/** A short random tag that keeps slugs, e-mail addresses and hashes unique across suites and runs. */
export const uniqueTag = (): string => randomUUID().slice(0, 8);

export interface Factories {
  buildOrg(overrides?: Record<string, unknown> & { name?: string; slug?: string }): Promise<BuiltOrg>;
  buildPerson(orgId: string, overrides?: Record<string, unknown> & { role?: "admin" | "employee"; email?: string; name?: string }): Promise<BuiltPerson>;
  buildAdmin(orgId: string, overrides?: Record<string, unknown> & { email?: string; name?: string }): Promise<BuiltPerson>;
  buildDocument(orgId: string, overrides?: Record<string, unknown> & { title?: string; status?: string }): Promise<BuiltDocument>;
  /** `count` organisations, each with one admin (default two: the usual tenant-isolation pair). */
  buildOrgsWithAdmins(count?: number): Promise<OrgWithAdmin[]>;
  /** The ids of the organisations built so far. */
  readonly orgIds: readonly string[];
  /** Deletes every organisation built (and, by cascade, what it holds). */
  dropAll(): Promise<void>;
}

/** Factories writing through `db`; the organisations they build are added to `orgIds` (pass a suite's own list to share it). */
export function factories(db: Db, orgIds: string[] = []): Factories {
  const buildOrg: Factories["buildOrg"] = async (overrides = {}) => {
    const tag = uniqueTag();
    const [row] = await db("organizations")
      .insert({ name: `Test Org ${tag}`, slug: `test-${tag}`, ...overrides })
      .returning(["id", "name", "slug"]);
    orgIds.push(row.id);
    return row as BuiltOrg;
  };
  const buildPerson: Factories["buildPerson"] = async (orgId, overrides = {}) => {
    const tag = uniqueTag();
    const [row] = await db("users")
      .insert({ org_id: orgId, email: `person-${tag}@example.test`, name: `Person ${tag}`, role: "employee", locale: "en", ...overrides })
      .returning(["id", "org_id", "email", "name", "role"]);
    return { id: row.id, orgId: row.org_id, email: row.email, name: row.name, role: row.role };
  };
  const buildAdmin: Factories["buildAdmin"] = (orgId, overrides = {}) => buildPerson(orgId, { role: "admin", ...overrides });
  const buildDocument: Factories["buildDocument"] = async (orgId, overrides = {}) => {
    const tag = uniqueTag();
    const [row] = await db("documents")
      .insert({
        org_id: orgId,
        title: `Document ${tag}`,
        filename: `document-${tag}.txt`,
        mime_type: "text/plain",
        size_bytes: 1,
        content_hash: `hash-${tag}`,
        status: "COMPLETED",
        ...overrides,
      })
      .returning(["id", "org_id", "title", "status"]);
    return { id: row.id, orgId: row.org_id, title: row.title, status: row.status };
  };
  return {
    buildOrg,
    buildPerson,
    buildAdmin,
    buildDocument,
    async buildOrgsWithAdmins(count = 2) {
      const built: OrgWithAdmin[] = [];
      for (let i = 0; i < count; i++) {
        const org = await buildOrg();
        built.push({ org, admin: await buildAdmin(org.id) });
      }
      return built;
    },
    orgIds,
    dropAll: () => dropOrganisations(db, orgIds.splice(0)),
  };
}
