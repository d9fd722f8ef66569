/**
 * Documents are known by their own titles and every chunk names its nearest heading, whatever
 * the format: extraction on real files, then the title stored on the document row through the
 * upload API (the admin's `title` field always wins).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, login, upload, waitFor } from "../../harness/client";
import { makeHtml } from "../../support/document-fixtures";
import { useStack, type Stack } from "../../support/stack";

describe("document titles and chunk headings", () => {
  describe("on the document row", function () {
    this.timeout(60_000);
    let stack: Stack;
    let token: string;

    before(async () => {
      stack = await useStack();
      ({ token } = await login(stack.baseUrl, "admin@example.com"));
    });

    const indexed = async (response: { status: number; body: any }) => {
      expect(response.status, JSON.stringify(response.body)).to.equal(202);
      return waitFor(
        async () => {
          const current = await api(stack.baseUrl, "GET", `/api/v1/documents/${response.body.document_id}`, { token });
          return ["COMPLETED", "FAILED"].includes(current.body.status) ? current.body : undefined;
        },
        30_000,
        "document indexed",
      );
    };

    it("replaces the file-name title with the document's own once extraction completes", async () => {
      const page = makeHtml(
        [{ heading: "Ports", body: `The server listens on port 5432 by default. ${randomUUID()}` }],
        "20.3. Connections and Authentication",
      );
      const document = await indexed(await upload(stack.baseUrl, token, { name: "runtime-config-connection.html", bytes: page, type: "text/html" }));
      expect(document).to.include({ status: "COMPLETED", title: "20.3. Connections and Authentication" });
      await api(stack.baseUrl, "DELETE", `/api/v1/documents/${document.id}`, { token });
    });

    it("keeps the title the admin gave, and the file name when the document names none", async () => {
      const page = makeHtml([{ heading: "Ports", body: `Admin-titled page ${randomUUID()}.` }], "Its own title");
      const named = await indexed(await upload(stack.baseUrl, token, { name: "named.html", bytes: page, type: "text/html" }, { title: "Chosen by the admin" }));
      expect(named.title).to.equal("Chosen by the admin");
      const plain = await indexed(
        await upload(stack.baseUrl, token, { name: "notes-without-heading.md", bytes: Buffer.from(`Just notes ${randomUUID()}.\n`), type: "text/markdown" }),
      );
      expect(plain.title).to.equal("notes-without-heading");
      for (const doc of [named, plain]) await api(stack.baseUrl, "DELETE", `/api/v1/documents/${doc.id}`, { token });
    });
  });
});
