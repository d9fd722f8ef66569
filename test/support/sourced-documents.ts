/** Calls of the sourced-documents API (/api/v1/integrations/documents) for the tests that keep documents in step with their source. */
import { expect } from "chai";
import { api, type ApiResponse } from "../harness/client";
import type { Stack } from "./stack";

/** A new integration key of the admin's organisation with these scopes. */
export async function newIntegrationKey(stack: Stack, adminToken: string, scopes: string[]): Promise<{ key: string; id: string }> {
  const created = await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", { token: adminToken, body: { name: `Sync ${scopes.join("+")}`, scopes } });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return { key: created.body.key, id: created.body.integration_key.id };
}

export async function putSourced(
  baseUrl: string,
  key: string,
  externalId: string,
  file: { name: string; bytes: Buffer | string },
  fields: Record<string, string> = {},
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(Buffer.from(file.bytes))]), file.name);
  const response = await fetch(`${baseUrl}/api/v1/integrations/documents/${encodeURIComponent(externalId)}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

export const deleteSourced = (baseUrl: string, key: string, externalId: string): Promise<ApiResponse> =>
  api(baseUrl, "DELETE", `/api/v1/integrations/documents/${encodeURIComponent(externalId)}`, { token: key });

export const listSourced = (baseUrl: string, key: string, query = ""): Promise<ApiResponse> =>
  api(baseUrl, "GET", `/api/v1/integrations/documents${query}`, { token: key });
