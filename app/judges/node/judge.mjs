// The Vercel AI SDK's judges (docs/judges.md): `node judge.mjs PROVIDER` reads the captured bytes
// from standard input, answers the provider's request with them through its `fetch` option, runs
// `streamText` to the end and writes one JSON line: {"theirs": {...}} with what it read, or
// {"crash": "Name: message"} when the stream gave an error (the SDK reports errors as parts of
// the stream, or rejects).
import { streamText } from 'ai';

globalThis.AI_SDK_LOG_WARNINGS = false;

const BASE = 'http://judge.invalid';

async function readStdin() {
  const parts = [];
  for await (const part of process.stdin) parts.push(part);
  return Buffer.concat(parts);
}

async function modelFor(provider, fetch) {
  const common = { apiKey: 'judge', fetch };
  switch (provider) {
    case 'openai-chat': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ ...common, baseURL: `${BASE}/v1` }).chat('judge');
    }
    case 'openai-responses': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ ...common, baseURL: `${BASE}/v1` }).responses('judge');
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        ...common, name: 'judge', baseURL: `${BASE}/v1`, includeUsage: true,
      }).chatModel('judge');
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ ...common, baseURL: `${BASE}/v1` })('judge');
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI({ ...common, baseURL: `${BASE}/v1beta` })('judge');
    }
    default:
      throw new Error(`unknown provider ${provider}`);
  }
}

function described(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  if (error && typeof error === 'object') {
    // An error the stream itself sent, passed on as the object it was.
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
    return `stream error: ${message}`;
  }
  return String(error);
}

// A call to a tool the request did not offer: the judge offers none, so every call is one; the
// call itself is still read (an invalid tool-call part, then a tool-error part, which are not
// the stream's fault and are not counted as errors).
function unoffered(error) {
  return Boolean(error) && (error.name === 'AI_NoSuchToolError');
}

async function main() {
  const body = await readStdin();
  const fetch = async () => new Response(body, {
    status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' },
  });
  const model = await modelFor(process.argv[2], fetch);
  const errors = [];
  const result = streamText({
    model, prompt: 'judge', maxRetries: 0,
    onError: ({ error }) => { if (!unoffered(error)) errors.push(error); },
  });
  let text = '';
  let reasoning = '';
  const calls = [];
  let finish = null;
  let usage = null;
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') text += part.text;
    else if (part.type === 'reasoning-delta') reasoning += part.text;
    else if (part.type === 'tool-call') {
      calls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
    } else if (part.type === 'error') {
      if (!unoffered(part.error)) errors.push(part.error);
    } else if (part.type === 'finish') {
      finish = part.rawFinishReason ?? part.finishReason ?? null;
      usage = part.totalUsage ?? null;
    }
  }
  if (errors.length) return { crash: described(errors[0]) };
  return {
    theirs: {
      text,
      reasoning,
      tool_calls: calls,
      finish,
      usage: usage && (usage.inputTokens != null || usage.outputTokens != null)
        ? { prompt_tokens: usage.inputTokens ?? null, completion_tokens: usage.outputTokens ?? null }
        : null,
    },
  };
}

let answer;
try {
  answer = await main();
} catch (error) {
  answer = { crash: described(error) };
}
process.stdout.write(`${JSON.stringify(answer)}\n`);
