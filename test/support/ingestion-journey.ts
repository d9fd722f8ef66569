/**
 * The admin's upload journey, black-box over HTTP: one real file of every supported format is
 * uploaded and each is followed until it ends. Shared by the suites that run it against the
 * product as users start it (the launcher, the compiled build).
 */
import { expect } from "chai";
import { api, upload, waitFor } from "../harness/client";
import { type FormatFixture, oneOfEachFormat } from "./document-fixtures";

export interface IngestedFixture {
  fixture: FormatFixture;
  document: { id: string; title: string; status: string; error: string | null; counts: { chunks: number } };
  /** From sending the upload to seeing COMPLETED (a figure for notes; never asserted). */
  ms: number;
}

/** Uploads one file of each format, waits until every one has ended, and expects each COMPLETED with chunks. */
export async function ingestEveryFormat(baseUrl: string, token: string, tag: string, timeoutMs = 120_000): Promise<IngestedFixture[]> {
  const fixtures = await oneOfEachFormat(tag);
  const sent = await Promise.all(
    fixtures.map(async (fixture) => {
      const started = performance.now();
      const posted = await upload(baseUrl, token, { name: fixture.name, bytes: fixture.bytes });
      expect(posted.status, `${fixture.name}: ${JSON.stringify(posted.body)}`).to.equal(202);
      return { fixture, id: posted.body.document_id as string, started };
    }),
  );
  const ingested = await Promise.all(
    sent.map(async ({ fixture, id, started }) => {
      const document = await waitFor(
        async () => {
          const response = await api(baseUrl, "GET", `/api/v1/documents/${id}`, { token });
          return ["COMPLETED", "FAILED"].includes(response.body.status) ? response.body : undefined;
        },
        timeoutMs,
        `${fixture.name} to be indexed`,
      );
      return { fixture, document, ms: Math.round(performance.now() - started) };
    }),
  );
  for (const { fixture, document } of ingested) {
    expect(document.status, `${fixture.format}: ${JSON.stringify(document)}`).to.equal("COMPLETED");
    expect(document.counts.chunks, fixture.format).to.be.greaterThan(0);
  }
  return ingested;
}
