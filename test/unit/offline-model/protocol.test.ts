/**
 * Drives the real `openai` SDK against the scripted server: if these pass, the app's OpenAI client
 * can parse what the offline model and the test double send, streamed or not.
 */
import { expect } from "chai";
import OpenAI from "openai";
import { cosineSimilarity } from "../../../offline-model/hashed-embeddings";
import { type ScriptedLlm, startScriptedLlm } from "../../harness/scripted-llm";

const MODEL = "offline-extractive";
const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "list_employees",
      description: "List employees, optionally filtered by department",
      parameters: { type: "object", properties: { department: { type: "string" }, limit: { type: "integer" } }, required: ["department", "limit"] },
    },
  },
  { type: "function", function: { name: "list_courses", description: "List the published courses", parameters: { type: "object", properties: {} } } },
];

describe("LLM server protocol (via the openai SDK)", () => {
  let llm: ScriptedLlm;
  let client: OpenAI;

  before(async () => {
    llm = await startScriptedLlm();
    client = new OpenAI({ baseURL: llm.url, apiKey: "test", maxRetries: 0 });
  });
  after(() => llm.close());
  beforeEach(() => llm.reset());

  it("lists models", async () => {
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).to.include(MODEL);
  });

  it("answers a non-streamed chat completion with usage", async () => {
    llm.enqueueReply({ content: "The refund window is 30 days." });
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "How long?" }] });
    expect(completion.object).to.equal("chat.completion");
    expect(completion.choices[0]?.message.content).to.equal("The refund window is 30 days.");
    expect(completion.choices[0]?.finish_reason).to.equal("stop");
    expect(completion.usage?.completion_tokens).to.be.greaterThan(0);
    expect(llm.chatCalls()).to.have.length(1);
    expect(llm.chatCalls()[0]?.body.messages[0].content).to.equal("How long?");
    expect(llm.chatCalls()[0]?.headers.authorization).to.equal("Bearer test");
  });

  it("streams tokens in order whose concatenation is the whole answer", async () => {
    const answer = "The return window is 30 days [1]. Keep the receipt.";
    llm.enqueueReply({ content: answer });
    llm.setTokenDelay(2);
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Q" }], stream: true });
    const tokens: string[] = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).to.equal("chat.completion.chunk");
      const choice = chunk.choices[0];
      if (choice?.delta.content) tokens.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
    expect(tokens.slice(0, 3)).to.deep.equal(["The", " return", " window"]);
    expect(tokens.join("")).to.equal(answer);
    expect(finish).to.equal("stop");
  });

  it("sends a usage chunk with empty choices when include_usage is set", async () => {
    llm.enqueueReply({ content: "one two three" });
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Q" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks[chunks.length - 1];
    expect(last?.choices).to.deep.equal([]);
    expect(last?.usage?.total_tokens).to.equal((last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0));
    expect(last?.usage?.completion_tokens).to.be.greaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).to.equal(true);
  });

  it("returns tool calls without streaming", async () => {
    llm.enqueueReply({ toolCalls: [{ name: "list_employees", arguments: { department: "Sales" } }] });
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }], tools: TOOLS });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).to.equal("tool_calls");
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).to.equal("function");
    if (call?.type !== "function") throw new Error("expected a function call");
    expect(call.function.name).to.equal("list_employees");
    expect(JSON.parse(call.function.arguments)).to.deep.equal({ department: "Sales" });
    expect(call.id).to.match(/^call_/);
  });

  it("streams tool calls that the SDK's stream helper assembles", async () => {
    llm.enqueueReply({ toolCalls: [{ name: "list_employees", arguments: { department: "Sales and Marketing", limit: 10 } }] });
    const runner = client.chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: "x" }], tools: TOOLS });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(final.choices[0]?.finish_reason).to.equal("tool_calls");
    if (call?.type !== "function") throw new Error("expected a function call");
    expect(call.function.name).to.equal("list_employees");
    expect(JSON.parse(call.function.arguments)).to.deep.equal({ department: "Sales and Marketing", limit: 10 });
  });

  it("returns base64 embeddings (SDK default) of the right length, similar texts closer", async () => {
    const texts = [
      "query: how many days do I have to return an item?",
      "passage: Items can be returned within 30 days of purchase.",
      "passage: The cafeteria serves lunch at noon.",
    ];
    const result = await client.embeddings.create({ model: "intfloat/multilingual-e5-small", input: texts });
    expect(llm.embeddingCalls()[0]?.body.encoding_format).to.equal("base64");
    expect(result.data).to.have.length(3);
    const [query, related, unrelated] = result.data.map((item) => item.embedding);
    expect(query).to.have.length(384);
    expect(cosineSimilarity(query!, related!)).to.be.greaterThan(cosineSimilarity(query!, unrelated!) + 0.1);
    expect(result.usage.total_tokens).to.be.greaterThan(0);
    // It says what made the vectors: hashed bags of words, not the E5 model the request named.
    expect(result.model).to.equal("offline-hashed-bow-384");
  });

  it("returns float embeddings and honours dimensions when asked", async () => {
    const result = await client.embeddings.create({ model: "m", input: "hello world", encoding_format: "float", dimensions: 16 });
    const vector = result.data[0]?.embedding as number[];
    expect(vector).to.have.length(16);
    expect(Math.hypot(...vector)).to.be.closeTo(1, 1e-6);
  });

  it("can force a wrong embedding length and fail embeddings", async () => {
    llm.setEmbeddingDimensions(12);
    const wrong = await client.embeddings.create({ model: "m", input: ["a text"] });
    expect(wrong.data[0]?.embedding).to.have.length(12);
    llm.failEmbeddings(500);
    const error = await client.embeddings.create({ model: "m", input: "x" }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(OpenAI.InternalServerError);
  });

  it("surfaces a scripted 429 with retry-after as RateLimitError, then recovers", async () => {
    llm.enqueueReply({ status: 429, headers: { "retry-after": "1" } });
    const error = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers?.get("retry-after")).to.equal("1");
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).to.equal("rate_limit_exceeded");
    const ok = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
    expect(ok.choices[0]?.message.content).to.be.a("string").and.not.equal("");
  });

  it("makes the SDK stream throw when cutAfterTokens drops the connection", async () => {
    llm.enqueueReply({ content: "one two three four five six", cutAfterTokens: 2 });
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Q" }], stream: true });
    const tokens: string[] = [];
    let thrown: unknown;
    try {
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content) tokens.push(chunk.choices[0].delta.content);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(Error);
    expect(tokens.join("")).to.equal("one two");
  });

  it("fails every request naming a model marked with failModel", async () => {
    llm.failModel("broken-model", 401);
    const error = await client.chat.completions.create({ model: "broken-model", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(OpenAI.AuthenticationError);
    const ok = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
    expect(ok.choices[0]?.finish_reason).to.equal("stop");
    llm.failModel("broken-model", null);
    const recovered = await client.chat.completions.create({ model: "broken-model", messages: [{ role: "user", content: "hi" }] });
    expect(recovered.model).to.equal("broken-model");
  });

  it("uses setResponder as the default reply", async () => {
    llm.setResponder((request) => ({ content: `echo ${request.messages.length}` }));
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
      ],
    });
    expect(completion.choices[0]?.message.content).to.equal("echo 2");
  });

  it("answers unknown routes with 404 and bad JSON with 400, in OpenAI's error shape", async () => {
    const missing = await fetch(`${llm.url}/nope`);
    expect(missing.status).to.equal(404);
    const missingBody = (await missing.json()) as { error: { message: string; type: string; code: unknown } };
    expect(missingBody.error).to.include.keys("message", "type", "code");
    const bad = await fetch(`${llm.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).to.equal("invalid_request_error");
  });
});
