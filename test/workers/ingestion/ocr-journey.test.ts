/**
 * Scanned and spreadsheet documents on the real stack, with two organisations: organisation A's
 * admin uploads files made by other tools (a scanned page as an image PDF, a photo of a Spanish
 * notice, a PNG notice, a LibreOffice workbook); each is read (OCR or exceljs in the extraction
 * thread), chunked, embedded, and the tutor answers a question about it from it, citing it (the
 * offline model's extractive answer). Organisation B sees none of it.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { api, upload, waitFor } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { asLearner, freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser, type Person } from "../admin/helpers";
import { ask } from "../tutor/helpers";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url));

type Doc = { id: string; title: string; status: string; error: string | null; error_code: string | null; counts: { chunks: number } };

const FILES = [
  {
    name: "scanned-safety-notice.pdf",
    title: "Warehouse Safety Notice",
    question: "Where is the forklift charging station?",
    answer: "Bay 14",
    section: "Warehouse Safety Notice",
  },
  {
    name: "aviso-cocina.jpg",
    title: "AVISO AL PERSONAL",
    question: "¿Cuándo se limpia la cocina del personal?",
    answer: "viernes",
    section: "AVISO AL PERSONAL",
  },
  {
    name: "lost-property.png",
    title: "Lost property",
    question: "How long is lost property kept at the reception desk?",
    answer: "thirty days",
    section: "Lost property",
  },
  {
    name: "site-rota.xlsx",
    title: "Warehouse rota and first aid",
    question: "Who is the first aider on the night shift?",
    answer: "Carmen Ruiz",
    section: "First aid",
  },
] as const;

describe("scanned documents, photos and workbooks: uploaded, read and answered from (two organisations)", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000, resetModel: true });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let employeeA: Person;
  let adminB: Person;
  let employeeB: Person;
  const ids = new Map<string, string>();

  before(async () => {
    orgA = await freshOrganisation(stack, "OCR A");
    orgB = await freshOrganisation(stack, "OCR B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    employeeA = await freshUser(stack, { role: "employee", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    employeeB = await freshUser(stack, { role: "employee", orgId: orgB });
  });

  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("indexes each file, its chunks naming the notice's title or the sheet", async () => {
    for (const file of FILES) {
      const posted = await upload(stack.baseUrl, adminA.token, { name: file.name, bytes: fixture(file.name) });
      expect(posted.status, `${file.name}: ${JSON.stringify(posted.body)}`).to.equal(202);
      ids.set(file.name, posted.body.document_id as string);
    }
    for (const file of FILES) {
      const id = ids.get(file.name)!;
      const document = await waitFor(
        async () => {
          const response = await api<Doc>(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token: adminA.token });
          return ["COMPLETED", "FAILED"].includes(response.body.status) ? response.body : undefined;
        },
        90_000,
        `${file.name} to be indexed`,
      );
      expect(document.status, `${file.name}: ${document.error}`).to.equal("COMPLETED");
      expect(document.title, file.name).to.equal(file.title);
      expect(document.counts.chunks).to.be.greaterThan(0);
      const chunk = await db()("document_chunks").where({ document_id: id, org_id: orgA }).andWhere("content", "like", `%${file.answer}%`).first();
      expect(chunk, `${file.name}: a chunk holding "${file.answer}"`).to.exist;
      expect(chunk.metadata.heading, file.name).to.include(file.section);
    }
  });

  for (const file of FILES) {
    it(`answers "${file.question}" from ${file.name}, citing it`, async () => {
      const turn = await ask(stack, asLearner(employeeA), file.question);
      expect(turn.errors, JSON.stringify(turn.errors)).to.have.length(0);
      expect(turn.answer?.content, turn.tokens).to.include(file.answer);
      expect(turn.grounding.sources.map((source) => source.document)).to.include(file.title);
      const cited = turn.grounding.sources.filter((source) => turn.citations.some((citation) => citation.index === source.index));
      expect(
        cited.map((source) => source.document),
        "the answer cites the file",
      ).to.include(file.title);
    });
  }

  it("keeps them in organisation A: B's employee is not answered from them, B's admin cannot open them", async () => {
    const turn = await ask(stack, asLearner(employeeB), FILES[0].question);
    expect(turn.answer?.content ?? "").to.not.include("Bay 14");
    expect((turn.grounding?.sources ?? []).map((source) => source.document)).to.not.include(FILES[0].title);
    for (const id of ids.values()) {
      const opened = await api(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token: adminB.token });
      expect(opened.status).to.equal(404);
    }
    const listed = await api<{ documents: Array<{ id: string }> }>(stack.baseUrl, "GET", "/api/v1/documents", { token: adminB.token });
    expect(listed.body.documents.map((document) => document.id)).to.not.include.members([...ids.values()]);
  });
});
