/**
 * `record_llm_usage(...)`: writes one model call's usage row and charges its tokens to the
 * organisation's month and credits, in one round trip. It does what db/queries/llm-usage.ts did
 * in an eight-statement transaction (bench/breakdown.md: two thirds of a turn's statements, with
 * the org's allowance row locked across six round trips), with the same rules: a call key already
 * recorded changes nothing and returns false; the allowance row is locked before the month is
 * read, and each statement of a volatile PL/pgSQL function sees what committed before it ran,
 * so two calls finishing together cannot both spend the same credits.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION record_llm_usage(
      p_org_id uuid, p_user_id uuid, p_use_case text, p_model text,
      p_prompt_tokens integer, p_completion_tokens integer, p_cost_usd numeric,
      p_duration_ms integer, p_streamed boolean, p_call_key text,
      p_default_tokens bigint, p_month date
    ) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      v_id uuid;
      v_tokens bigint := p_prompt_tokens + p_completion_tokens;
      v_monthly bigint;
      v_credits bigint;
      v_used bigint;
      v_from_allowance bigint;
      v_from_credits bigint := 0;
    BEGIN
      INSERT INTO llm_usage_log (org_id, user_id, use_case, model, prompt_tokens, completion_tokens, cost_usd, duration_ms, streamed, call_key)
      VALUES (p_org_id, p_user_id, p_use_case, p_model, p_prompt_tokens, p_completion_tokens, p_cost_usd, p_duration_ms, p_streamed, p_call_key)
      ON CONFLICT (call_key) DO NOTHING
      RETURNING id INTO v_id;
      IF v_id IS NULL THEN
        RETURN false;
      END IF;
      IF p_org_id IS NULL OR v_tokens <= 0 THEN
        RETURN true;
      END IF;
      INSERT INTO ai_allowances (org_id) VALUES (p_org_id) ON CONFLICT (org_id) DO NOTHING;
      SELECT monthly_tokens, credit_balance INTO v_monthly, v_credits FROM ai_allowances WHERE org_id = p_org_id FOR UPDATE;
      v_monthly := COALESCE(v_monthly, p_default_tokens);
      SELECT allowance_tokens INTO v_used FROM ai_usage_months WHERE org_id = p_org_id AND month = p_month;
      IF v_monthly > 0 THEN
        v_from_allowance := LEAST(v_tokens, GREATEST(0, v_monthly - COALESCE(v_used, 0)));
        v_from_credits := LEAST(v_tokens - v_from_allowance, v_credits);
      END IF;
      INSERT INTO ai_usage_months (org_id, month, allowance_tokens, credit_tokens)
      VALUES (p_org_id, p_month, v_tokens - v_from_credits, v_from_credits)
      ON CONFLICT (org_id, month) DO UPDATE SET
        allowance_tokens = ai_usage_months.allowance_tokens + excluded.allowance_tokens,
        credit_tokens = ai_usage_months.credit_tokens + excluded.credit_tokens;
      IF v_from_credits > 0 THEN
        UPDATE ai_allowances SET credit_balance = credit_balance - v_from_credits, updated_at = now() WHERE org_id = p_org_id;
      END IF;
      UPDATE llm_usage_log SET allowance_tokens = v_tokens - v_from_credits, credit_tokens = v_from_credits WHERE id = v_id;
      RETURN true;
    END
    $$
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP FUNCTION IF EXISTS record_llm_usage(uuid, uuid, text, text, integer, integer, numeric, integer, boolean, text, bigint, date)");
}
