/** Every job handler the worker knows; the registry checks this list against the served queues. */
import type { JobHandler } from "./registry";
import { classifyHandler } from "./tutor/classify.handler";
import { generateHandler } from "./tutor/generate.handler";
import { retrieveHandler } from "./tutor/retrieve.handler";
import { summariseHandler } from "./tutor/summarise.handler";

export const HANDLERS: JobHandler[] = [classifyHandler, retrieveHandler, generateHandler, summariseHandler] as JobHandler[];
