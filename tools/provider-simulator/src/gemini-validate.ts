import { isRecord, type Json } from './json.ts';

/**
 * The fields the Gemini API and Vertex AI take, per message, as their proto definitions list
 * them (camelCase, as @google/genai sends them). Google refuses any other name with 400
 * INVALID_ARGUMENT `Invalid JSON payload received. Unknown name "x" at 'path': Cannot find field.`
 */
const REQUEST_FIELDS = [
  'model',
  'contents',
  'tools',
  'toolConfig',
  'safetySettings',
  'systemInstruction',
  'generationConfig',
  'cachedContent',
];
const VERTEX_ONLY_FIELDS = ['labels', 'modelArmorConfig'];
const CONTENT_FIELDS = new Set(['role', 'parts']);
const PART_FIELDS = new Set([
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'thought',
  'thoughtSignature',
  'executableCode',
  'codeExecutionResult',
  'videoMetadata',
]);
const GENERATION_CONFIG_FIELDS = new Set([
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'candidateCount',
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'enableEnhancedCivicAnswers',
  'speechConfig',
  'thinkingConfig',
  'imageConfig',
  'mediaResolution',
]);
const THINKING_FIELDS = new Set(['thinkingBudget', 'includeThoughts', 'thinkingLevel']);
const TOOL_FIELDS = new Set(['functionDeclarations', 'googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'retrieval']);
const DECLARATION_FIELDS = new Set([
  'name',
  'description',
  'parameters',
  'parametersJsonSchema',
  'response',
  'responseJsonSchema',
  'behavior',
]);
const FUNCTION_CALLING_FIELDS = new Set(['mode', 'allowedFunctionNames']);
/** Vertex AI's FunctionCallingConfig also has streamFunctionCallArguments ("not supported in Gemini API", its reference says). */
const VERTEX_FUNCTION_CALLING_FIELDS = new Set([...FUNCTION_CALLING_FIELDS, 'streamFunctionCallArguments']);
const MODES = new Set(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']);

export interface GoogleError {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

export function googleError(code: number, status: string, message: string, details?: unknown[]): GoogleError {
  return { error: details ? { code, message, status, details } : { code, message, status } };
}

export const invalidArgument = (message: string): GoogleError => googleError(400, 'INVALID_ARGUMENT', message);

function unknownField(object: Json, allowed: Set<string>, at: string): GoogleError | undefined {
  const extra = Object.keys(object).find((field) => !allowed.has(field));
  if (extra === undefined) return undefined;
  const where = at ? ` at '${at}'` : '';
  return invalidArgument(`Invalid JSON payload received. Unknown name "${extra}"${where}: Cannot find field.`);
}

/** The request's contents, checked; the first problem as Google words it. */
function validateContents(contents: unknown, at: string): GoogleError | undefined {
  if (!Array.isArray(contents) || contents.length === 0)
    return invalidArgument('* GenerateContentRequest.contents: contents is not specified\n');
  for (const [i, content] of contents.entries()) {
    if (!isRecord(content)) return invalidArgument(`Invalid value at '${at}[${i}]': expected an object`);
    const extra = unknownField(content, CONTENT_FIELDS, `${at}[${i}]`);
    if (extra) return extra;
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model')
      return invalidArgument(`Please use a valid role: user, model.`);
    const parts = content.parts;
    if (!Array.isArray(parts) || parts.length === 0)
      return invalidArgument(`* GenerateContentRequest.${at}[${i}].parts: contents.parts must not be empty.\n`);
    for (const [j, part] of parts.entries()) {
      if (!isRecord(part)) return invalidArgument(`Invalid value at '${at}[${i}].parts[${j}]': expected an object`);
      const partExtra = unknownField(part, PART_FIELDS, `${at}[${i}].parts[${j}]`);
      if (partExtra) return partExtra;
    }
  }
  return undefined;
}

function validateTools(body: Json, vertex: boolean): GoogleError | undefined {
  if (body.tools === undefined) return undefined;
  if (!Array.isArray(body.tools)) return invalidArgument(`Invalid value at 'tools': expected a list`);
  for (const [i, tool] of body.tools.entries()) {
    if (!isRecord(tool)) return invalidArgument(`Invalid value at 'tools[${i}]'`);
    const extra = unknownField(tool, TOOL_FIELDS, `tools[${i}]`);
    if (extra) return extra;
    for (const [j, declaration] of (Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : []).entries()) {
      if (!isRecord(declaration)) return invalidArgument(`Invalid value at 'tools[${i}].function_declarations[${j}]'`);
      const declExtra = unknownField(declaration, DECLARATION_FIELDS, `tools[${i}].function_declarations[${j}]`);
      if (declExtra) return declExtra;
      if (typeof declaration.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(declaration.name))
        return invalidArgument(`* GenerateContentRequest.tools[${i}].function_declarations[${j}].name: Invalid function name.\n`);
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined)
        return invalidArgument(`parameters and parameters_json_schema cannot both be set.`);
    }
  }
  const config = isRecord(body.toolConfig) ? body.toolConfig.functionCallingConfig : undefined;
  if (isRecord(config)) {
    const fields = vertex ? VERTEX_FUNCTION_CALLING_FIELDS : FUNCTION_CALLING_FIELDS;
    const extra = unknownField(config, fields, 'tool_config.function_calling_config');
    if (extra) return extra;
    if (config.streamFunctionCallArguments !== undefined && typeof config.streamFunctionCallArguments !== 'boolean')
      return invalidArgument(`Invalid value at 'tool_config.function_calling_config.stream_function_call_arguments' (TYPE_BOOL)`);
    if (config.mode !== undefined && !MODES.has(String(config.mode)))
      return invalidArgument(
        `Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${String(config.mode)}"`,
      );
  }
  return undefined;
}

function validateGenerationConfig(config: unknown): GoogleError | undefined {
  if (config === undefined) return undefined;
  if (!isRecord(config)) return invalidArgument(`Invalid value at 'generation_config'`);
  const extra = unknownField(config, GENERATION_CONFIG_FIELDS, 'generation_config');
  if (extra) return extra;
  if (isRecord(config.thinkingConfig)) {
    const thinkingExtra = unknownField(config.thinkingConfig, THINKING_FIELDS, 'generation_config.thinking_config');
    if (thinkingExtra) return thinkingExtra;
  }
  if (config.responseSchema !== undefined && config.responseJsonSchema !== undefined)
    return invalidArgument('response_schema and response_json_schema cannot both be set.');
  const schema = config.responseSchema ?? config.responseJsonSchema;
  if (schema !== undefined && config.responseMimeType !== 'application/json' && config.responseMimeType !== 'text/x.enum')
    return invalidArgument(
      '* GenerateContentRequest.generation_config.response_mime_type: must be application/json when response_schema is set.\n',
    );
  const t = config.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 2))
    return invalidArgument('* GenerateContentRequest.generation_config.temperature: must be between 0 and 2.\n');
  const max = config.maxOutputTokens;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1))
    return invalidArgument('* GenerateContentRequest.generation_config.max_output_tokens: must be positive.\n');
  return undefined;
}

/** A generateContent body, checked as Google checks it; undefined when it is valid. */
export function validateGenerateContent(body: Json, vertex: boolean): GoogleError | undefined {
  const allowed = new Set(vertex ? [...REQUEST_FIELDS, ...VERTEX_ONLY_FIELDS] : REQUEST_FIELDS);
  return (
    unknownField(body, allowed, '') ??
    validateContents(body.contents, 'contents') ??
    (isRecord(body.systemInstruction) ? unknownField(body.systemInstruction, CONTENT_FIELDS, 'system_instruction') : undefined) ??
    validateTools(body, vertex) ??
    validateGenerationConfig(body.generationConfig)
  );
}
