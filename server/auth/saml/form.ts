/** The IdP's HTTP-POST binding: an `application/x-www-form-urlencoded` form, read here (the app's JSON parser leaves forms alone), bounded. */
import type { Context } from "koa";
import { SignInFailure } from "../sso/failures";

const FORM_LIMIT_BYTES = 512 * 1024;

export async function readSamlForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is("application/x-www-form-urlencoded")) throw new SignInFailure("SIGN_IN_REJECTED", `content type ${ctx.get("content-type")}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) throw new SignInFailure("SIGN_IN_MESSAGE_REFUSED", `form larger than ${FORM_LIMIT_BYTES} bytes`);
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}
