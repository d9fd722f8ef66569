/**
 * A chat completion answered in one piece: the request on each model of the chain (call-policy.ts),
 * the reply read as text or tool calls (native, or from JSON in JSON tool mode), its usage recorded.
 */
import type { Config } from "../../lib/config";
import type { CallContext, ChatMessage, ChatOptions, ChatResult, ToolCall } from "./client";
import type { CallPolicy } from "./call-policy";
import { proseBeforeJson, readJsonReply, wireRequest } from "./json-tools";
import { inModelSpan, type ModelRequest } from "./model-span";
import type { ChatProvider } from "./providers";
import { countMessageTokens, countTokens } from "./tokens";
import { asCountable, type UsageRecorder } from "./usage-recorder";

/** What a chat call, answered or streamed, works with. */
export interface ChatCallDeps {
  config: Config;
  chatProviders: ChatProvider[];
  policy: CallPolicy;
  usage: UsageRecorder;
}

export async function completeChat(deps: ChatCallDeps, context: CallContext, messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
  return deps.policy.acrossChain(deps.chatProviders, context, (provider, model) => {
    const wire = wireRequest(provider, messages, options);
    return inModelSpan(chatRequest(context, provider, model, wire.messages, options), async (call) => {
      const started = performance.now();
      const response = await provider.api.chat.completions.create({
        model,
        messages: wire.messages,
        max_tokens: options.maxTokens,
        temperature: options.temperature,
        ...(wire.tools ? { tools: wire.tools } : {}),
      });
      const message = response.choices[0]?.message;
      const raw = message?.content ?? "";
      const nativeCalls: ToolCall[] = (message?.tool_calls ?? [])
        .filter((call) => call.type === "function")
        .map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
      const { content, toolCalls } = wire.json
        ? readJsonReply(raw, proseBeforeJson(raw), options, provider, model, context.useCase)
        : { content: raw, toolCalls: nativeCalls };
      const result: ChatResult = {
        content,
        toolCalls,
        model,
        promptTokens: response.usage?.prompt_tokens ?? countMessageTokens(wire.messages.map(asCountable)),
        completionTokens: response.usage?.completion_tokens ?? countTokens(raw),
      };
      call.answered({ ...result, output: message });
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
