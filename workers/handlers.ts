/** Every job handler the worker knows, one per queue; `satisfies` makes a missing or misfiled handler a type error. */
import { executeActionHandler } from "./admin/execute-action.handler";
import { adminPlanHandler } from "./admin/plan.handler";
import { chunkHandler } from "./ingestion/chunk.handler";
import { embedHandler } from "./ingestion/embed.handler";
import { extractHandler } from "./ingestion/extract.handler";
import { maintenanceHandler } from "./maintenance/sweep.handler";
import { contentGapsHandler } from "./insights/content-gaps.handler";
import type { HandlerMap } from "./registry";
import { classifyHandler } from "./tutor/classify.handler";
import { generateHandler } from "./tutor/generate.handler";
import { retrieveHandler } from "./tutor/retrieve.handler";
import { summariseHandler } from "./tutor/summarise.handler";

export const HANDLERS = {
  "tutor-classify": classifyHandler,
  "tutor-retrieve": retrieveHandler,
  "tutor-generate": generateHandler,
  "chat-summarise": summariseHandler,
  "admin-plan": adminPlanHandler,
  "admin-actions": executeActionHandler,
  "ingest-extract": extractHandler,
  "ingest-chunk": chunkHandler,
  "ingest-embed": embedHandler,
  maintenance: maintenanceHandler,
  "content-gaps": contentGapsHandler,
} satisfies HandlerMap;
