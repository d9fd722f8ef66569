/** Request shapes of the admin actions API. */
import { z } from "zod";
import { ACTION_STATUSES } from "../../../queues/events/contract";

export const actionParams = z.object({ id: z.uuid({ error: "action id must be a UUID" }) });

export const listActionsQuery = z.object({
  status: z.enum(ACTION_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
