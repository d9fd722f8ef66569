/**
 * Reads one multipart upload into memory with multer, enforcing the size limit while the
 * bytes arrive (an oversized file is refused without being buffered whole).
 */
import type { Context } from "koa";
import multer from "multer";
import { Refusal } from "../../../lib/refusal";

export interface UploadedFile {
  originalname: string;
  mimetype: string;
  buffer: Buffer;
  size: number;
}

export async function readSingleUpload(
  ctx: Context,
  { field, maxBytes }: { field: string; maxBytes: number },
): Promise<{ file: UploadedFile; fields: Record<string, string> }> {
  if (!ctx.is("multipart/form-data")) {
    throw new Refusal("unsupported_media", "UNSUPPORTED_MEDIA_TYPE", `Send the document as multipart/form-data with a "${field}" field`);
  }
  const middleware = multer({ storage: multer.memoryStorage(), limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 64 * 1024 } }).single(field);
  const req = ctx.req as typeof ctx.req & { file?: UploadedFile; body?: Record<string, string> };
  await new Promise<void>((resolve, reject) => {
    middleware(req as never, ctx.res as never, (error?: unknown) => (error ? reject(error) : resolve()));
  }).catch((error: { code?: string; message?: string }) => {
    if (error?.code === "LIMIT_FILE_SIZE") {
      throw new Refusal("too_large", "FILE_TOO_LARGE", `The file is larger than the ${formatBytes(maxBytes)} limit`, { limit_bytes: maxBytes });
    }
    if (error?.code?.startsWith("LIMIT_")) throw new Refusal("invalid", "VALIDATION_ERROR", `Upload rejected: ${error.message}`);
    throw new Refusal("invalid", "BAD_REQUEST", "Malformed multipart body");
  });
  if (!req.file) throw new Refusal("invalid", "VALIDATION_ERROR", `The "${field}" field with the document is required`);
  return { file: req.file, fields: { ...(req.body ?? {}) } };
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MB` : `${Math.round(bytes / 1024)} KB`;
}
