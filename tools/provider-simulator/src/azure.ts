import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleEmbeddings } from './embeddings.ts';
import { entraTokenStatus } from './entra.ts';
import { sendJson } from './http.ts';
import { isRecord, parseJsonObject } from './json.ts';
import { handleChatCompletions } from './openai.ts';
import { handleResponses } from './responses.ts';

/** The `api-key` the simulated Azure resource accepts (`SIMULATOR_AZURE_API_KEY` overrides it). */
export const SIM_AZURE_API_KEY = process.env.SIMULATOR_AZURE_API_KEY || 'azure-sim-key';

/** GA and preview versions of the deployments API this resource answers; any other is refused. */
const API_VERSIONS = new Set([
  '2024-02-01',
  '2024-06-01',
  '2024-10-21',
  '2024-12-01-preview',
  '2025-01-01-preview',
  '2025-03-01-preview',
  '2025-04-01-preview',
]);

/** The first api-version of the Responses API (`/openai/responses`, which has no deployment path). */
const RESPONSES_SINCE = '2025-03-01-preview';

const azureError = (code: string, message: string, extra: Record<string, unknown> = {}) => ({ error: { code, message, ...extra } });

const SAFE = { filtered: false, severity: 'safe' };
const PROMPT_FILTER = {
  hate: SAFE,
  jailbreak: { filtered: false, detected: false },
  self_harm: SAFE,
  sexual: SAFE,
  violence: { filtered: true, severity: 'high' },
};
const OUTPUT_FILTER = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: { filtered: true, severity: 'medium' } };

/**
 * Azure OpenAI: `/azure/openai/deployments/{deployment}/{chat/completions|embeddings}?api-version=…`,
 * the Responses API `/azure/openai/responses?api-version=…` (2025-03-01-preview on, the deployment
 * as `model`) and the v1 API `/azure/openai/v1/{chat/completions|embeddings|responses}`.
 * Checks the `api-key` (or a Microsoft Entra ID bearer token issued by the simulated tenant,
 * entra.ts) and the api-version as Azure does, then answers through the OpenAI routes (the same
 * wire format) with the deployment as the model.
 * `;content-filter=prompt` on the deployment answers Azure's 400 content_filter error,
 * `;content-filter=output` ends the answer with finish_reason `content_filter`.
 */
export async function handleAzure(
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  const deployments = /^\/azure\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(path);
  const v1 = /^\/azure\/openai\/v1\/(chat\/completions|embeddings|responses)$/.exec(path);
  const responses = path === '/azure/openai/responses';
  if (!deployments && !v1 && !responses) return sendJson(res, 404, azureError('404', 'Resource not found'));
  const refused = authRefusal(req);
  if (refused) return sendJson(res, 401, azureError('401', refused));
  const version = query.get('api-version');
  if (deployments || responses) {
    if (version === null) return sendJson(res, 404, azureError('404', 'Resource not found'));
    if (!API_VERSIONS.has(version) || (responses && version < RESPONSES_SINCE))
      return sendJson(res, 400, azureError('BadRequest', 'API version not supported'));
  } else if (version !== null && version !== 'preview' && version !== 'latest') {
    return sendJson(res, 400, azureError('BadRequest', 'API version not supported'));
  }
  const body = parseJsonObject(raw);
  if (!body) return sendJson(res, 400, azureError('BadRequest', 'The request body is not valid JSON.'));
  const model = deployments ? decodeURIComponent(deployments[1]!) : body.model;
  if (typeof model !== 'string' || model === '') return sendJson(res, 400, azureError('BadRequest', 'model is required'));
  const filter = /;content-filter=(prompt|output)/.exec(model)?.[1];
  if (filter === 'prompt') {
    return sendJson(res, 400, {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: PROMPT_FILTER },
      },
    });
  }
  // The OpenAI routes answer once the Azure checks passed (their Bearer check is Azure's api-key here).
  req.headers.authorization = `Bearer ${SIM_AZURE_API_KEY}`;
  const forwarded = Buffer.from(JSON.stringify({ ...body, model: model.replace(/;content-filter=\w+/, '') }));
  const operation = responses ? 'responses' : (deployments ?? v1)![deployments ? 2 : 1];
  if (operation === 'embeddings') return handleEmbeddings(req, res, forwarded);
  if (operation === 'responses') return handleResponses(req, res, forwarded);
  addFilterResults(res, filter === 'output');
  return handleChatCompletions(req, res, forwarded);
}

/** Azure's words for a request it does not let in, or undefined: an `api-key`, else an Entra ID bearer token. */
function authRefusal(req: IncomingMessage): string | undefined {
  const key = req.headers['api-key'];
  if (typeof key === 'string' && key !== '') {
    if (key === SIM_AZURE_API_KEY) return undefined;
    return 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';
  }
  const token = entraTokenStatus(req);
  if (token === 'ok') return undefined;
  if (token === 'invalid')
    return 'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.';
  return 'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.';
}

/**
 * Azure adds its filter results to every answer (`prompt_filter_results`, each choice's
 * `content_filter_results`); a filtered output ends with finish_reason `content_filter`.
 */
function addFilterResults(res: ServerResponse, filtered: boolean): void {
  const results = filtered ? OUTPUT_FILTER : { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
  const rewrite = (json: unknown): unknown => {
    if (!isRecord(json) || !Array.isArray(json.choices)) return json;
    for (const choice of json.choices) {
      if (!isRecord(choice)) continue;
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        choice.content_filter_results = results;
        if (filtered) choice.finish_reason = 'content_filter';
      }
    }
    if (json.object === 'chat.completion')
      json.prompt_filter_results = [
        { prompt_index: 0, content_filter_results: { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE } },
      ];
    return json;
  };
  const transform = (text: string): string => {
    if (!text.startsWith('data: ') && !text.includes('\ndata: ')) {
      try {
        return JSON.stringify(rewrite(JSON.parse(text)));
      } catch {
        return text;
      }
    }
    return text.replace(/^data: (\{.*\})$/gm, (_line, payload: string) => `data: ${JSON.stringify(rewrite(JSON.parse(payload)))}`);
  };
  const writeHead = res.writeHead.bind(res);
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
    const { 'content-length': _length, ...rest } = headers ?? {};
    return writeHead(status, rest as never);
  }) as never;
  res.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === 'string' ? transform(chunk) : chunk, ...(rest as []))) as never;
  res.end = ((chunk?: unknown, ...rest: unknown[]) =>
    end(typeof chunk === 'string' && chunk !== '' ? transform(chunk) : chunk, ...(rest as []))) as never;
}
