/**
 * A chat completion answered in one piece: the request on each model of the chain (call-policy.ts),
 * the reply read as text or tool calls (native, or from JSON in JSON tool mode), its usage recorded.
 * A reasoning model's thinking is taken out first (reasoning-split.ts), so JSON, labels and tool
 * calls are read from the answer alone; a reply that ran out of tokens while still thinking is
 * asked once more with room to think (reasoning-budget.ts).
 */
import type { ChatCompletion } from "openai/resources/chat/completions";
import type { Config } from "../../lib/config";
import type { CallContext, ChatMessage, ChatOptions, ChatResult, ToolCall } from "./client";
import type { CallPolicy } from "./call-policy";
import { proseBeforeJson, readJsonReply, wireRequest } from "./json-tools";
import { inModelSpan, type ModelRequest } from "./model-span";
import type { ChatProvider } from "./providers";
import type { ReasoningModels } from "./reasoning-budget";
import { splitReasoning, type TextDelta } from "./reasoning-split";
import { countMessageTokens, countTokens } from "./tokens";
import { asCountable, type UsageRecorder } from "./usage-recorder";

/** What a chat call, answered or streamed, works with. */
export interface ChatCallDeps {
  config: Config;
  chatProviders: ChatProvider[];
  policy: CallPolicy;
  usage: UsageRecorder;
  /** The models seen thinking before they answer, and the room their calls get for it. */
  reasoning: ReasoningModels;
}

export async function completeChat(deps: ChatCallDeps, context: CallContext, messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
  return deps.policy.acrossChain(deps.chatProviders, context, (provider, model) => {
    const wire = wireRequest(provider, messages, options);
    return inModelSpan(chatRequest(context, provider, model, wire.messages, options), async (call) => {
      const started = performance.now();
      const ask = (maxTokens: number | undefined) =>
        provider.api.chat.completions.create({
          model,
          messages: wire.messages,
          max_tokens: maxTokens,
          temperature: options.temperature,
          ...(wire.tools ? { tools: wire.tools } : {}),
        });
      const budget = deps.reasoning.replyTokens(deps.config, provider, model, options.maxTokens, wire.messages.map(asCountable));
      let response = await ask(budget);
      let split = splitReasoning((response.choices[0]?.message ?? {}) as TextDelta);
      if (split.reasoning) deps.reasoning.note(provider, model);
      // Known to think only now (this reply): asked again with room to, when the window leaves any.
      const roomier =
        budget === options.maxTokens && ranOutThinking(response, split)
          ? deps.reasoning.replyTokens(deps.config, provider, model, budget, wire.messages.map(asCountable))
          : undefined;
      if (roomier !== undefined && budget !== undefined && roomier > budget) {
        // Charged apart from the call asked again (usage keeps the first row of a call key).
        await deps.usage.record(context, usageOf(response, model, wire.messages), performance.now() - started, false, { messages, ranOutThinking: true });
        response = await ask(roomier);
        split = splitReasoning((response.choices[0]?.message ?? {}) as TextDelta);
      }
      const message = response.choices[0]?.message;
      const raw = split.answer;
      const nativeCalls: ToolCall[] = (message?.tool_calls ?? [])
        .filter((call) => call.type === "function")
        .map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
      const { content, toolCalls } = wire.json
        ? readJsonReply(raw, proseBeforeJson(raw), options, provider, model, context.useCase)
        : { content: raw, toolCalls: nativeCalls };
      const result: ChatResult = {
        content,
        toolCalls,
        ...usageOf(response, model, wire.messages),
      };
      // The trace's output is the answer, as stored: not the thinking.
      call.answered({ ...result, output: message && { ...message, content: raw, reasoning_content: undefined, reasoning: undefined } });
      await deps.usage.record(context, result, performance.now() - started, false, messages);
      return result;
    });
  });
}

/** The model span's view of a chat request (model-span.ts). */
export function chatRequest(context: CallContext, provider: ChatProvider, model: string, messages: ChatMessage[], options: ChatOptions): ModelRequest {
  return {
    operation: "chat",
    model,
    baseURL: provider.api.baseURL,
    useCase: context.useCase,
    maxTokens: options.maxTokens,
    temperature: options.temperature,
    input: messages,
  };
}

/** The reply stopped at its token limit with thinking and no answer: the model never got to answer. */
function ranOutThinking(response: ChatCompletion, split: { answer: string; reasoning: string }): boolean {
  return (
    response.choices[0]?.finish_reason === "length" && split.reasoning !== "" && split.answer.trim() === "" && !response.choices[0]?.message?.tool_calls?.length
  );
}

/** The call's tokens as the provider reported them, else estimated (thinking included: it was generated). */
function usageOf(response: ChatCompletion, model: string, sent: ChatMessage[]): { model: string; promptTokens: number; completionTokens: number } {
  const message = (response.choices[0]?.message ?? {}) as TextDelta;
  return {
    model,
    promptTokens: response.usage?.prompt_tokens ?? countMessageTokens(sent.map(asCountable)),
    completionTokens: response.usage?.completion_tokens ?? countTokens((message.content ?? "") + (message.reasoning_content ?? "") + (message.reasoning ?? "")),
  };
}
