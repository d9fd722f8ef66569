/**
 * `npm run sync` speaks the integration API with an integration key (documents:write), as any
 * other system of the company would: the sync proves the API, runs on whichever machine has the
 * folder mounted, and needs no database or Redis credentials. A 429 waits for `retry_after`; a
 * network error or a 5xx is tried again a few times, then reported for that file only.
 */
import type { StoredDocument, SyncApi } from "./folder-sync";

const ATTEMPTS = 4;

/** The key names the organisation; the sync checks it against --org before touching anything. */
export interface SyncTarget {
  organisation: { id: string; slug: string };
}

interface Answer {
  status: number;
  body: { error?: { code?: string; message?: string; retry_after?: number }; [key: string]: unknown } | undefined;
}

export class HttpSyncApi implements SyncApi {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  private async request(method: string, path: string, body?: () => FormData | string): Promise<Answer> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const payload = body?.();
        const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
        if (typeof payload === "string") headers["content-type"] = "application/json";
        const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
        const text = await response.text();
        const answer: Answer = { status: response.status, body: text ? (JSON.parse(text) as Answer["body"]) : undefined };
        if (response.status === 429) {
          const seconds = Number(answer.body?.error?.retry_after ?? response.headers.get("retry-after") ?? 1);
          await sleep(Math.max(1, seconds) * 1000);
          attempt--; // waiting out the key's rate limit is not a failed attempt
          continue;
        }
        if (response.status >= 500 && attempt < ATTEMPTS) {
          await sleep(250 * 2 ** attempt);
          continue;
        }
        return answer;
      } catch (error) {
        lastError = error;
        if (attempt < ATTEMPTS) await sleep(250 * 2 ** attempt);
      }
    }
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }

  /** The key's organisation, or the server's refusal (a wrong or revoked key, a missing scope). */
  async target(): Promise<SyncTarget> {
    const answer = await this.request("GET", "/api/v1/integrations/documents?limit=1");
    if (answer.status !== 200) throw new Error(reasonOf(answer));
    return { organisation: answer.body!.organisation as SyncTarget["organisation"] };
  }

  async list(prefix: string): Promise<StoredDocument[]> {
    const documents: StoredDocument[] = [];
    let after: string | null = null;
    do {
      const query = new URLSearchParams({ prefix, limit: "1000", ...(after ? { after } : {}) });
      const answer = await this.request("GET", `/api/v1/integrations/documents?${query}`);
      if (answer.status !== 200) throw new Error(reasonOf(answer));
      documents.push(...(answer.body!.documents as StoredDocument[]));
      after = answer.body!.next_after as string | null;
    } while (after);
    return documents;
  }

  async put(externalId: string, file: { name: string; bytes: Buffer }) {
    try {
      const answer = await this.request("PUT", pathOf(externalId), () => {
        const form = new FormData();
        form.append("file", new Blob([new Uint8Array(file.bytes)]), file.name);
        return form;
      });
      if (answer.status >= 200 && answer.status < 300) {
        const document = answer.body?.document as { status: string; error: string | null } | undefined;
        return { ok: true as const, result: String(answer.body?.result), failed: document?.status === "FAILED" ? (document.error ?? "indexing failed") : null };
      }
      // The file's own problem: the next pass meets it again, so it is reported, not retried.
      const skip = ["UNSUPPORTED_FILE_TYPE", "FILE_TOO_LARGE", "DOCUMENT_DUPLICATE"].includes(answer.body?.error?.code ?? "");
      return { ok: false as const, skip, reason: reasonOf(answer) };
    } catch (error) {
      return { ok: false as const, skip: false, reason: (error as Error).message };
    }
  }

  async rename(from: string, to: string) {
    try {
      const answer = await this.request("PATCH", pathOf(from), () => JSON.stringify({ external_id: to }));
      return answer.status === 200 ? { ok: true as const } : { ok: false as const, reason: reasonOf(answer) };
    } catch (error) {
      return { ok: false as const, reason: (error as Error).message };
    }
  }

  async remove(externalId: string) {
    try {
      const answer = await this.request("DELETE", pathOf(externalId));
      // Already gone (a pass killed after the delete): the same end state.
      if (answer.status === 204 || answer.status === 404) return { ok: true as const };
      return { ok: false as const, reason: reasonOf(answer) };
    } catch (error) {
      return { ok: false as const, reason: (error as Error).message };
    }
  }
}

const pathOf = (externalId: string): string => `/api/v1/integrations/documents/${encodeURIComponent(externalId)}`;

const reasonOf = (answer: Answer): string =>
  answer.body?.error ? `${answer.body.error.code}: ${answer.body.error.message}` : `the server answered ${answer.status}`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
