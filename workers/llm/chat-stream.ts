/**
 * A chat completion streamed to the caller: the SSE body decoded a whole read at a time
 * (sse-frames.ts), silence watched (stream-watch.ts), tool-call deltas put together, text that
 * may be a JSON tool call held back (json-tools.ts), a reasoning model's thinking kept apart from
 * the answer (reasoning-split.ts), and the usage of an answered or abandoned stream recorded.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CallContext, ChatMessage, ChatOptions, ChatResult, ToolCall } from "./client";
import { type ChatCallDeps, chatRequest } from "./chat-completion";
import { ProseGate, readJsonReply, wireRequest } from "./json-tools";
import { inModelSpan } from "./model-span";
import { ReasoningSplitter, type TextDelta } from "./reasoning-split";
import { readSseFrames } from "./sse-frames";
import { CallbackFailure, IdleWatch, StreamCancelled } from "./stream-watch";
import { countMessageTokens, countTokens } from "./tokens";
import { asCountable } from "./usage-recorder";

/**
 * Streams a completion, calling `onToken` with the text as it arrives: once per read of the
 * response, with the text of every chunk that read brought (sse-frames.ts). A failure
 * before the first token is retried like any call, and falls through to the next model or
 * provider; after it, the stream is not restarted here (the caller already showed text): the
 * error surfaces with `partial: true`. With `options.tools` the model may answer with tool
 * calls instead of (or after) text; in JSON tool mode text that may be a tool call is held
 * back until the reply is read. A reasoning model's thinking goes to `options.onReasoning` (it
 * counts as shown, like a token) and never into the result's content.
 */
export async function streamChat(
  deps: ChatCallDeps,
  context: CallContext,
  messages: ChatMessage[],
  options: ChatOptions,
  onToken: (text: string) => Promise<void> | void,
): Promise<ChatResult> {
  if (options.signal?.aborted) throw new StreamCancelled("");
  return deps.policy.acrossChain(deps.chatProviders, context, (provider, model, markPartial) => {
    const wire = wireRequest(provider, messages, options);
    return inModelSpan(chatRequest(context, provider, model, wire.messages, options), async (call) => {
      const started = performance.now();
      const watch = new IdleWatch(deps.config.llm.LLM_STREAM_IDLE_TIMEOUT_MS, options.signal);
      const gate = wire.json ? new ProseGate() : undefined;
      const show = async (text: string): Promise<void> => {
        if (!text) return;
        markPartial();
        try {
          await onToken(text);
        } catch (error) {
          throw new CallbackFailure(error);
        }
      };
      const thinking = async (text: string): Promise<void> => {
        if (!text || !options.onReasoning) return;
        markPartial();
        try {
          await options.onReasoning(text);
        } catch (error) {
          throw new CallbackFailure(error);
        }
      };
      const splitter = new ReasoningSplitter();
      let content = "";
      let reasoning = "";
      let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
      let sent = false;
      try {
        // The SDK sends the request (auth, base URL, its errors for a non-2xx status); the body is
        // decoded here, a whole read at a time (sse-frames.ts).
        sent = true;
        const response = await provider.api.chat.completions
          .create(
            {
              model,
              messages: wire.messages,
              max_tokens: deps.reasoning.replyTokens(deps.config, provider, model, options.maxTokens, wire.messages.map(asCountable)),
              temperature: options.temperature,
              stream: true,
              stream_options: { include_usage: true },
              ...(wire.tools ? { tools: wire.tools, ...(options.toolChoice ? { tool_choice: options.toolChoice } : {}) } : {}),
            },
            { signal: watch.controller.signal },
          )
          .asResponse();
        // Until the headers arrive LLM_TIMEOUT_MS applies; from here on, silence is what we watch.
        watch.touch();
        // Tool calls arrive as deltas keyed by index: the id and name once, the arguments in pieces.
        const calls: ToolCall[] = [];
        await readSseFrames<ChatCompletionChunk>(response, (chunks) => {
          watch.touch();
          if (chunks.length === 0) return;
          call.firstChunk();
          // One read often carries many chunks: their text goes to the caller in one piece.
          let text = "";
          let thought = "";
          for (const chunk of chunks) {
            if (chunk.usage) usage = chunk.usage;
            const delta = chunk.choices[0]?.delta;
            if (!delta) continue;
            for (const piece of delta.tool_calls ?? []) {
              const toolCall = (calls[piece.index] ??= { id: "", name: "", arguments: "" });
              if (piece.id) toolCall.id = piece.id;
              if (piece.function?.name) toolCall.name += piece.function.name;
              if (piece.function?.arguments) toolCall.arguments += piece.function.arguments;
            }
            const split = splitter.push(delta as TextDelta);
            text += split.answer;
            thought += split.reasoning;
          }
          if (thought) {
            if (!reasoning) deps.reasoning.note(provider, model);
            reasoning += thought;
          }
          content += text;
          const shown = text && gate ? gate.push(text) : text;
          if (!thought) return shown ? show(shown) : undefined;
          return shown ? thinking(thought).then(() => show(shown)) : thinking(thought);
        });
        // An abort that lands after the last read still ends the call as cancelled (or silent), not as an answer.
        const stoppedEarly = watch.reason(content);
        if (stoppedEarly) throw stoppedEarly;
        // Characters held in case they began a tag go where they were heading.
        const tail = splitter.end();
        if (tail.reasoning) {
          reasoning += tail.reasoning;
          await thinking(tail.reasoning);
        }
        if (tail.answer) {
          content += tail.answer;
          await show(gate ? gate.push(tail.answer) : tail.answer);
        }
        let reply = { content, toolCalls: calls.filter((call) => call?.name) };
        if (gate) {
          reply = readJsonReply(content, gate.shown, options, provider, model, context.useCase);
          // An answer after all: what was held back is shown now.
          if (reply.toolCalls.length === 0) await show(gate.release());
        }
        const result: ChatResult = {
          ...reply,
          model,
          promptTokens: usage?.prompt_tokens ?? countMessageTokens(wire.messages.map(asCountable)),
          completionTokens: usage?.completion_tokens ?? countTokens(reasoning + content + calls.map((call) => call.arguments).join("")),
        };
        call.answered({ ...result, output: { role: "assistant", content, tool_calls: result.toolCalls } });
        await deps.usage.record(context, result, performance.now() - started, true, messages);
        return result;
      } catch (error) {
        const ended = watch.reason(content) ?? error;
        // A stream its caller gave up (a cancelled turn, a discarded speculative answer) was still
        // read by the model: its prompt and what it streamed so far count against the allowance.
        if (ended instanceof StreamCancelled && sent) {
          const spent = {
            model,
            promptTokens: usage?.prompt_tokens ?? countMessageTokens(wire.messages.map(asCountable)),
            completionTokens: usage?.completion_tokens ?? countTokens(reasoning + content),
          };
          // Keyed apart from a finished call of the same request: a retry that sends the same messages
          // and finishes must still be charged in full (record_llm_usage keeps the first row of a key).
          await deps.usage.record(context, spent, performance.now() - started, true, { messages, aborted: true });
        }
        throw ended;
      } finally {
        watch.stop();
      }
    });
  });
}
