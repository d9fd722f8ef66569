/** A write that may lose a race with another writer on a unique index: the violation becomes the same refusal as the check before it. */
import type { Refusal } from "../../lib/refusal";

const UNIQUE_VIOLATION = "23505";

export async function refusingDuplicates<T>(refusal: () => Refusal, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw refusal();
    throw error;
  }
}
