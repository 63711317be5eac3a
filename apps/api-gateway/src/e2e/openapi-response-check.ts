import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/** The parts of an OpenAPI 3.1 document the check reads. */
interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components?: { schemas?: Record<string, unknown> };
}

/** Statuses a path the API does not have may answer (no route: 404; a URL refused before routing: 400, 414). */
const NO_ROUTE_STATUSES = new Set([400, 404, 414]);
const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';
const DOCUMENT_ID = 'https://gateway.invalid/openapi.json';

export interface ObservedResponse {
  method: string;
  /** The request URL (only its path is matched). */
  url: string;
  status: number;
  contentType: string | null;
  /** The body as text, for JSON answers (event streams and pages are not read). */
  body?: string;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks answers against the OpenAPI document: the route (path template and method)
 * must be documented, with the status, with the content type, and a JSON body must match the
 * schema. A path the API does not have may only answer the "no such route" errors as the
 * envelope. JSON Schema 2020-12 (OpenAPI 3.1's dialect) by Ajv.
 */
export class OpenApiResponseCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly routes: Array<{ template: string; pattern: RegExp; params: number }>;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID } as never);
    this.routes = Object.keys(document.paths)
      .map((template) => ({
        template,
        // A trailing `{path}` is a wildcard route (Nest's `*`): it takes the rest of the URL, slashes too.
        pattern: new RegExp(
          `^${template
            .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
            .replace(/\{path\}$/, '.+')
            .replace(/\{[^}]+\}/g, '[^/]+')}$`,
        ),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A literal segment wins over a parameter: /v1/presets/{slug}/versions before /v1/presets/{slug}/{x}.
      .sort((a, b) => a.params - b.params);
  }

  /** What is wrong with this answer; empty when it is what the document says. */
  problems(response: ObservedResponse): string[] {
    const path = new URL(response.url, 'http://gateway.invalid').pathname;
    const what = `${response.method.toUpperCase()} ${path} -> ${response.status}`;
    const route = this.routes.find(({ pattern }) => pattern.test(path));
    const method = response.method.toLowerCase();
    const operation = route ? this.document.paths[route.template]![method] : undefined;
    if (!route || !operation) {
      if (!NO_ROUTE_STATUSES.has(response.status)) return [`${what}: undocumented route`];
      return this.bodyProblems(what, { $ref: ERROR_ENVELOPE_REF }, response, 'application/json');
    }
    const documented = operation.responses?.[String(response.status)];
    if (!documented)
      return [
        `${what}: undocumented status for ${method.toUpperCase()} ${route.template} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`,
      ];
    const mediaTypes = Object.keys(documented.content ?? {});
    if (mediaTypes.length === 0) return response.body ? [`${what}: a body where the document has none`] : [];
    const mediaType = (response.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!mediaTypes.includes(mediaType))
      return [`${what}: content type ${mediaType || '(none)'} not documented (${mediaTypes.join(', ')})`];
    if (mediaType !== 'application/json') return [];
    const pointer = ['paths', route.template, method, 'responses', String(response.status), 'content', mediaType, 'schema']
      .map(escapePointer)
      .join('/');
    return this.bodyProblems(what, { $ref: `${DOCUMENT_ID}#/${pointer}` }, response, mediaType);
  }

  private bodyProblems(what: string, schema: { $ref: string }, response: ObservedResponse, mediaType: string): string[] {
    const contentType = (response.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== mediaType) return [`${what}: content type ${contentType || '(none)'}, documented ${mediaType}`];
    let body: unknown;
    try {
      body = JSON.parse(response.body ?? '');
    } catch {
      return [`${what}: the body is not JSON`];
    }
    const ref = schema.$ref.startsWith('#') ? `${DOCUMENT_ID}${schema.$ref}` : schema.$ref;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`.trim());
    return [`${what}: the body does not match the document: ${errors.join('; ')}`];
  }
}
