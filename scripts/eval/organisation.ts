/**
 * The harness's own organisation: an admin who uploads the corpus and a few employees who ask,
 * created like test fixtures (rows for people; everything they do goes through the API). Its
 * documents never show up in another organisation's searches, and dropping it removes them all.
 * Also the judge's one read: the text behind a grounding source's id, within this organisation.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../../db/knex";
import { login } from "../../test/harness/client";
import type { JudgedSource } from "./scoring";

export interface EvalOrganisation {
  orgId: string;
  /** Several admins share the uploads, so each stays under the per-user upload limit (30 a minute by default). */
  admins: Array<{ token: string }>;
  employees: Array<{ token: string }>;
}

export async function createEvalOrganisation(db: Db, baseUrl: string, employees = 8, admins = 3): Promise<EvalOrganisation> {
  const tag = randomUUID().slice(0, 8);
  const [{ id: orgId }] = await db("organizations")
    .insert({ name: "Answer quality evaluation", slug: `eval-${tag}` })
    .returning("id");
  const person = async (role: "admin" | "employee", n: number) => {
    const email = `eval-${role}-${n}-${tag}@example.com`;
    await db("users").insert({ org_id: orgId, email, name: `Eval ${role} ${n}`, role, department: "Evaluation", locale: "en" });
    return { token: (await login(baseUrl, email)).token };
  };
  return {
    orgId,
    admins: await Promise.all(Array.from({ length: admins }, (_, n) => person("admin", n + 1))),
    employees: await Promise.all(Array.from({ length: employees }, (_, n) => person("employee", n + 1))),
  };
}

/** Deletes the organisation; its users, documents, chunks and sessions go with it. */
export async function dropEvalOrganisation(db: Db, orgId: string): Promise<void> {
  await db("organizations").where({ id: orgId }).delete();
}

/** The text each source stands for: its chunk, or the whole document on the document rung. */
export async function sourceTexts(
  db: Db,
  orgId: string,
  sources: Array<{ index: number; sourceType: string; sourceId: string | null }>,
): Promise<JudgedSource[]> {
  const chunkIds = sources.filter((s) => s.sourceType === "document_chunk" && s.sourceId).map((s) => s.sourceId!);
  const documentIds = sources.filter((s) => s.sourceType === "document" && s.sourceId).map((s) => s.sourceId!);
  const chunks = chunkIds.length ? await db("document_chunks").select("id", "document_id", "content").where({ org_id: orgId }).whereIn("id", chunkIds) : [];
  const documents = documentIds.length ? await db("documents").select("id", "full_text").where({ org_id: orgId }).whereIn("id", documentIds) : [];
  const chunkById = new Map(chunks.map((c: { id: string; document_id: string; content: string }) => [c.id, c]));
  const documentById = new Map(documents.map((d: { id: string; full_text: string | null }) => [d.id, d]));
  return sources.map((source) => {
    const chunk = source.sourceId ? chunkById.get(source.sourceId) : undefined;
    if (chunk) return { index: source.index, documentId: chunk.document_id, content: chunk.content };
    const document = source.sourceId ? documentById.get(source.sourceId) : undefined;
    return { index: source.index, documentId: document?.id ?? null, content: document?.full_text ?? "" };
  });
}
