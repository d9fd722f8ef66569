/**
 * The session or question of a turn was deleted while the turn waited: there is nobody to tell
 * and nowhere to store an answer, and no retry will change that (hence unrecoverable). A class,
 * so the failure path recognises it by type, never by the wording of its message.
 */
import { UnrecoverableError } from "bullmq";

export class TurnGoneError extends UnrecoverableError {
  constructor(what: string) {
    super(`${what} no longer exists (session or message deleted)`);
    this.name = "TurnGoneError";
  }
}
