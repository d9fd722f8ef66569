/**
 * Questions that never got an answer: the raw material of the lost-turn sweep. This read spans
 * organisations on purpose — it is maintenance, it returns ids only, and whatever the sweep
 * then writes goes to each turn's own organisation and session.
 */
import type { Db } from "../knex";

export interface UnansweredTurn {
  org_id: string;
  session_id: string;
  turn_id: string;
  user_id: string;
  agent_type: "tutor" | "admin";
  created_at: Date;
}

/**
 * Turns accepted between `lookbackMs` and `olderThanMs` ago whose assistant message (answer,
 * failure or cancellation) was never stored, oldest first. The lookback keeps the scan on the
 * partial index of recent questions; older turns have nobody left waiting for them.
 */
export async function listUnansweredTurns(db: Db, options: { olderThanMs: number; lookbackMs: number; limit: number }): Promise<UnansweredTurn[]> {
  return db("chat_messages as q")
    .join("chat_sessions as s", function () {
      this.on("s.id", "=", "q.session_id").andOn("s.org_id", "=", "q.org_id");
    })
    .where("q.role", "user")
    .andWhereRaw("q.created_at < now() - (? * interval '1 millisecond')", [options.olderThanMs])
    .andWhereRaw("q.created_at > now() - (? * interval '1 millisecond')", [options.lookbackMs])
    .whereNotExists(function () {
      this.select(db.raw("1")).from("chat_messages as a").whereRaw("a.turn_id = q.turn_id").andWhere("a.role", "assistant").andWhereRaw("a.org_id = q.org_id");
    })
    .orderBy("q.created_at")
    .limit(options.limit)
    .select("q.org_id", "q.session_id", "q.turn_id", "s.user_id", "s.agent_type", "q.created_at");
}
