/** Request shapes of the admin actions API. */
import { z } from "zod";

export const actionParams = z.object({ id: z.uuid({ error: "action id must be a UUID" }) });

export const listActionsQuery = z.object({
  status: z.enum(["pending", "confirmed", "running", "completed", "partial", "failed", "rejected", "expired"]).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
