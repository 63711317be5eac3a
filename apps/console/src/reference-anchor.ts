export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
}

/** The tag and operation id of an operation as the pages name it ("GET /v1/keys", "GET/POST /v1/keys"). */
export function operationOf(document: OpenApiDocument, operation: string): { tag: string; operationId: string } | null {
  const [methods, path] = operation.trim().split(/\s+/);
  const method = methods?.split('/')[0]?.toLowerCase();
  const found = method && path ? document.paths[path]?.[method] : undefined;
  return found?.operationId && found.tags?.[0] ? { tag: found.tags[0], operationId: found.operationId } : null;
}
