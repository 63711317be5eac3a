import type { ServerResponse } from 'node:http';
import { embedVector } from './embeddings.ts';
import { sendJson } from './http.ts';
import { googleError, invalidArgument } from './gemini-validate.ts';
import { isRecord, type Json } from './json.ts';
import { countTokens } from './tokens.ts';

const EMBEDDING_MODEL = /^(text-embedding-\d+|text-multilingual-embedding-\d+|gemini-embedding-\d+)$/;
const TASK_TYPES = new Set([
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);
const INSTANCE_FIELDS = new Set(['content', 'task_type', 'title']);
const PARAMETER_FIELDS = new Set(['outputDimensionality', 'autoTruncate']);

/**
 * Vertex AI's text embeddings, `:predict` on a text-embedding model (the Gemini API's
 * embedContent does not exist there): `{instances: [{content, task_type?, title?}], parameters?:
 * {outputDimensionality?, autoTruncate?}}` → `{predictions: [{embeddings: {values, statistics:
 * {token_count, truncated}}}], metadata: {billableCharacterCount}}`. Strict as Vertex: at most 250
 * instances, one on gemini-embedding models, a title only with RETRIEVAL_DOCUMENT, no other field.
 */
export function predictEmbeddings(res: ServerResponse, base: string, body: Json): void {
  if (!EMBEDDING_MODEL.test(base))
    return sendJson(res, 400, googleError(400, 'FAILED_PRECONDITION', `Model ${base} does not support the predict method for embeddings.`));
  const extra = Object.keys(body).find((field) => field !== 'instances' && field !== 'parameters');
  if (extra) return sendJson(res, 400, invalidArgument(`Invalid JSON payload received. Unknown name "${extra}": Cannot find field.`));
  const instances = Array.isArray(body.instances) ? body.instances : [];
  const limit = base.startsWith('gemini-embedding') ? 1 : 250;
  if (instances.length === 0 || instances.length > limit)
    return sendJson(res, 400, invalidArgument(`The number of instances must be between 1 and ${limit} for ${base}.`));
  const parameters = body.parameters === undefined ? {} : body.parameters;
  if (!isRecord(parameters) || Object.keys(parameters).some((field) => !PARAMETER_FIELDS.has(field)))
    return sendJson(res, 400, invalidArgument('Invalid parameters: only outputDimensionality and autoTruncate are taken.'));
  const dimensions = parameters.outputDimensionality ?? 16;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > 3072)
    return sendJson(res, 400, invalidArgument('outputDimensionality must be an integer between 1 and 3072.'));
  const predictions: Json[] = [];
  let characters = 0;
  for (const [index, instance] of instances.entries()) {
    if (!isRecord(instance) || typeof instance.content !== 'string' || instance.content === '')
      return sendJson(res, 400, invalidArgument(`instances[${index}].content must be a non-empty string.`));
    const unknown = Object.keys(instance).find((field) => !INSTANCE_FIELDS.has(field));
    if (unknown) return sendJson(res, 400, invalidArgument(`Unknown name "${unknown}" at 'instances[${index}]': Cannot find field.`));
    if (instance.task_type !== undefined && !TASK_TYPES.has(String(instance.task_type)))
      return sendJson(res, 400, invalidArgument(`instances[${index}].task_type ${String(instance.task_type)} is not a task type.`));
    if (instance.title !== undefined && instance.task_type !== 'RETRIEVAL_DOCUMENT')
      return sendJson(res, 400, invalidArgument('A title is only taken with task_type RETRIEVAL_DOCUMENT.'));
    characters += instance.content.replace(/\s/g, '').length;
    predictions.push({
      embeddings: {
        statistics: { truncated: false, token_count: countTokens(instance.content) },
        values: Array.from(embedVector(instance.content, dimensions)),
      },
    });
  }
  sendJson(res, 200, { predictions, metadata: { billableCharacterCount: characters } });
}
