/** Every job handler the worker knows; the registry checks this list against the served queues. */
import { chunkHandler } from "./ingestion/chunk.handler";
import { embedHandler } from "./ingestion/embed.handler";
import { extractHandler } from "./ingestion/extract.handler";
import { executeActionHandler } from "./admin/execute-action.handler";
import { adminPlanHandler } from "./admin/plan.handler";
import { maintenanceHandler } from "./maintenance/sweep.handler";
import type { JobHandler } from "./registry";
import { classifyHandler } from "./tutor/classify.handler";
import { generateHandler } from "./tutor/generate.handler";
import { retrieveHandler } from "./tutor/retrieve.handler";
import { summariseHandler } from "./tutor/summarise.handler";

export const HANDLERS: JobHandler[] = [classifyHandler, retrieveHandler, generateHandler, summariseHandler, adminPlanHandler, executeActionHandler, extractHandler, chunkHandler, embedHandler, maintenanceHandler] as JobHandler[];
