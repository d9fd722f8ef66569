/**
 * The upload and re-index commands against the database lane: the same bytes twice give one
 * document and one queued extract stage; a re-index queues the next generation's.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { reindexDocument } from "../../../commands/reindex-document";
import { uploadDocument } from "../../../commands/upload-document";
import { deleteDocument } from "../../../db/queries/document-writes";
import { ingestStageJobId } from "../../../queues/job-ids";
import { commandSuite, freshPerson } from "./helpers";

describe("commands: uploading a document", function () {
  const lane = commandSuite(this);
  let orgId: string;
  before(() => {
    orgId = lane.orgId;
  });

  it("stores new bytes and queues their extract stage once; the same bytes again are the same document, nothing queued", async () => {
    const admin = await freshPerson(lane, "admin");
    const deps = lane.deps;
    const upload = {
      filename: "handbook.txt",
      format: "txt" as const,
      bytes: Buffer.from(`Command handbook ${randomUUID()}: returns go through the portal.`),
      title: undefined,
      courseId: undefined,
      access: {},
      defaultQuotaBytes: lane.config.organisations.ORG_STORAGE_QUOTA_BYTES,
    };
    const extract = deps.producer.queue("ingest-extract");
    const first = await uploadDocument(deps, { orgId, userId: admin.id }, upload);
    try {
      expect(first.duplicate).to.equal(false);
      expect(first.document).to.include({ title: "handbook", filename: "handbook.txt", ingest_generation: 0 });
      expect(await extract.getJob(ingestStageJobId("ingest-extract", { documentId: first.document.id, generation: 0 }))).to.not.equal(undefined);

      const again = await uploadDocument(deps, { orgId, userId: admin.id }, { ...upload, filename: "copy.txt", access: { restricted_departments: ["QA"] } });
      expect(again.duplicate).to.equal(true);
      expect(again.document.id).to.equal(first.document.id);
      expect(again.document.ingest_generation, "no new ingestion run").to.equal(0);
      expect(again.document.restricted_departments, "restrictions sent with a duplicate apply to it").to.deep.equal(["QA"]);

      const reindexed = await reindexDocument(deps, orgId, first.document.id, admin.id);
      expect(reindexed?.ingest_generation).to.equal(1);
      expect(await extract.getJob(ingestStageJobId("ingest-extract", { documentId: first.document.id, generation: 1 }))).to.not.equal(undefined);
      expect(await reindexDocument(deps, orgId, randomUUID(), admin.id)).to.equal(undefined);
    } finally {
      await deleteDocument(deps.db, orgId, first.document.id);
    }
  });
});
