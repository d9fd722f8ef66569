/**
 * What the SCIM suites share: an organisation of their own with an admin, its SCIM token from the
 * admin endpoint (as an admin would get it), and a client that speaks SCIM like an identity
 * system does (application/scim+json, the token as a bearer).
 */
import { randomUUID } from "node:crypto";
import type { Stack } from "../../../support/stack";

export interface ScimOrg {
  orgId: string;
  adminId: string;
  adminToken: string;
  scimToken: string;
  domain: string;
}

export async function scimOrganisation(stack: Stack, label: string): Promise<ScimOrg> {
  const db = stack.server.deps.db;
  const slug = `scim-${label}-${randomUUID().slice(0, 8)}`;
  const [org] = await db("organizations")
    .insert({ name: `SCIM ${label}`, slug })
    .returning("id");
  const domain = `${slug}.example`;
  const [admin] = await db("users")
    .insert({ org_id: org.id, email: `admin@${domain}`, name: "Admin", role: "admin" })
    .returning("id");
  const adminToken = await stack.server.deps.tokens.sign({ userId: admin.id, orgId: org.id, role: "admin" });
  const issued = await fetch(`${stack.baseUrl}/api/v1/admin/scim/token`, { method: "POST", headers: { authorization: `Bearer ${adminToken}` } });
  if (issued.status !== 201) throw new Error(`token: ${issued.status} ${await issued.text()}`);
  const { token } = (await issued.json()) as { token: string };
  return { orgId: org.id, adminId: admin.id, adminToken, scimToken: token, domain };
}

export interface ScimAnswer {
  status: number;
  // SCIM bodies are read field by field in the assertions.
  body: any;
  headers: Headers;
}

/** One SCIM request; `body` as an object (JSON) or a string sent as it is. */
export async function scim(
  baseUrl: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ScimAnswer> {
  const response = await fetch(`${baseUrl}/scim/v2${path}`, {
    method,
    headers: {
      accept: "application/scim+json",
      ...(body !== undefined ? { "content-type": "application/scim+json; charset=utf-8" } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text for the assertion to show
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

export async function auditActions(stack: Stack, orgId: string, targetId: string): Promise<string[]> {
  const rows = await stack.server.deps.db("audit_log").where({ org_id: orgId, target_id: targetId }).orderBy("created_at").select("action");
  return rows.map((row: { action: string }) => row.action);
}
