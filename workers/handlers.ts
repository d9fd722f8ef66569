/** Every job handler the worker knows, one per queue; `satisfies` makes a missing or misfiled handler a type error. */
import { readAttachmentHandler } from "./attachments/read-attachment.handler";
import { catalogImportHandler } from "./catalog/import.handler";
import { executeActionHandler } from "./admin/execute-action.handler";
import { adminPlanHandler } from "./admin/plan.handler";
import { chunkHandler } from "./ingestion/chunk.handler";
import { embedHandler } from "./ingestion/embed.handler";
import { extractHandler } from "./ingestion/extract.handler";
import { maintenanceHandler } from "./maintenance/sweep.handler";
import { contentGapsHandler } from "./insights/content-gaps.handler";
import { orgDeleteHandler } from "./organisations/org-delete.handler";
import { personDataHandler } from "./person-data/person-data.handler";
import type { HandlerMap } from "./registry";
import { generateHandler } from "./tutor/generate.handler";
import { summariseHandler } from "./tutor/summarise.handler";

export const HANDLERS = {
  "tutor-generate": generateHandler,
  "chat-summarise": summariseHandler,
  "admin-plan": adminPlanHandler,
  "admin-actions": executeActionHandler,
  "ingest-extract": extractHandler,
  "ingest-chunk": chunkHandler,
  "ingest-embed": embedHandler,
  maintenance: maintenanceHandler,
  "content-gaps": contentGapsHandler,
  "org-delete": orgDeleteHandler,
  "catalog-import": catalogImportHandler,
  "person-data": personDataHandler,
  "chat-attachment": readAttachmentHandler,
} satisfies HandlerMap;
