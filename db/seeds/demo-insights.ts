/**
 * A few answered tutor questions and ratings, so the admin console's content-gap report and the
 * feedback behind it are not empty on a fresh `npm start`: three people ask about company cars
 * (answered from general knowledge: no document covers them), one asks about the trade-fair dress
 * code, and two rate answers from the returns policy (one up, one down). The question-vectors
 * sweep embeds the questions within half a minute of start-up. Fixed ids: reseeding changes nothing.
 */
import type { Knex } from "knex";
import { fixedId } from "./demo-ids";

interface SeededTurn {
  /** Position of the asker in DEMO_USERS (their fixed id is derived from it). */
  user: number;
  language: "en" | "es";
  question: string;
  answer: string;
  rung: "general" | "chunks";
  rating?: { rating: "up" | "down"; comment?: string };
  daysAgo: number;
}

const GENERAL = "No company material covers this, so this answer is general guidance:";

export const DEMO_TURNS: readonly SeededTurn[] = [
  {
    user: 4,
    language: "en",
    question: "How do I book a company car for a client visit?",
    answer: `${GENERAL} ask your manager or the office team.`,
    rung: "general",
    daysAgo: 6,
  },
  { user: 6, language: "en", question: "How can I book a company car for client visits?", answer: `${GENERAL} ask your manager.`, rung: "general", daysAgo: 3 },
  {
    user: 8,
    language: "en",
    question: "How do I book the company car for a client visit?",
    answer: `${GENERAL} check with your team lead.`,
    rung: "general",
    daysAgo: 1,
  },
  {
    user: 11,
    language: "en",
    question: "What is the dress code at the trade fair stand?",
    answer: `${GENERAL} business casual is usual.`,
    rung: "general",
    daysAgo: 2,
  },
  {
    user: 7,
    language: "es",
    question: "¿Cómo solicito el reembolso de los gastos de un viaje de trabajo?",
    answer: "Ningún material de la empresa trata esto; en general, guarda los tiques y pregunta a tu responsable.",
    rung: "general",
    rating: { rating: "down", comment: "Necesito el procedimiento de la empresa, no uno general." },
    daysAgo: 4,
  },
  {
    user: 1,
    language: "en",
    question: "How many days do customers have to return an item?",
    answer: "Customers have 30 days from delivery to return an item.",
    rung: "chunks",
    rating: { rating: "up" },
    daysAgo: 5,
  },
];

/** `userIdOf(position)`: the stored id of DEMO_USERS[position] (an adopted user keeps their own id). */
export async function seedDemoInsights(trx: Knex.Transaction, orgId: string, userIdOf: (position: number) => string): Promise<void> {
  for (const [i, turn] of DEMO_TURNS.entries()) {
    const userId = userIdOf(turn.user);
    const sessionId = fixedId(0x20, i + 1);
    const turnId = fixedId(0x21, i + 1);
    const at = trx.raw(`now() - interval '${turn.daysAgo} days'`);
    await trx("chat_sessions")
      .insert({ id: sessionId, org_id: orgId, user_id: userId, agent_type: "tutor", title: turn.question, created_at: at, updated_at: at })
      .onConflict("id")
      .ignore();
    await trx("chat_messages")
      .insert([
        { id: fixedId(0x22, 2 * i + 1), org_id: orgId, session_id: sessionId, turn_id: turnId, role: "user", content: turn.question, created_at: at },
        {
          id: fixedId(0x22, 2 * i + 2),
          org_id: orgId,
          session_id: sessionId,
          turn_id: turnId,
          role: "assistant",
          content: turn.answer,
          metadata: JSON.stringify({ intent: "cross_course", rung: turn.rung, language: turn.language, sources: [], citations: [], seeded: true }),
          created_at: at,
        },
      ])
      .onConflict("id")
      .ignore();
    if (turn.rating) {
      await trx("chat_feedback")
        .insert({
          id: fixedId(0x23, i + 1),
          org_id: orgId,
          message_id: fixedId(0x22, 2 * i + 2),
          user_id: userId,
          rating: turn.rating.rating,
          comment: turn.rating.comment ?? null,
          rung: turn.rung,
          sources: "[]",
        })
        .onConflict("message_id")
        .ignore();
    }
  }
}
