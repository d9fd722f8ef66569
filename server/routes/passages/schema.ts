/** Path shapes of cited passages and original documents. */
import { z } from "zod";

export const answerParams = z.object({ id: z.uuid({ error: "message id must be a UUID" }) });

export const passageQuery = z.object({
  index: z.coerce
    .number({ error: "index must be a number" })
    .int("index must be a whole number")
    .min(1, "index starts at 1")
    .max(1000, "index must be at most 1000")
    .describe("The citation number, as in [n]."),
});

export const documentParams = z.object({ id: z.uuid({ error: "document id must be a UUID" }) });
