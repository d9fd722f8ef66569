/** The body of PATCH /api/v1/me: the language the person chooses for their pages. */
import { z } from "zod";
import { PAGE_LANGUAGES } from "../../lib/page-language";

export const patchMeBody = z.strictObject({
  page_locale: z
    .enum(PAGE_LANGUAGES, { error: `page_locale must be one of ${PAGE_LANGUAGES.join(", ")}, or null` })
    .nullable()
    .describe("A language the pages are translated into; null forgets the choice (the browser's language is used again)."),
});
