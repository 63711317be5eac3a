import 'swagger-ui-dist/swagger-ui.css';
import './api-reference.css';
import { Anchor, Box } from '@mantine/core';
import { useEffect, useRef } from 'react';
import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import { operationOf, type OpenApiDocument } from '../reference-anchor';
import { useQuery } from '../router';
import { Loadable, PageHeader, useLoad } from '../ui';

/**
 * `GET /v1/openapi.json` in Swagger UI, read-only (the session's key never reaches the browser), opened
 * at the operation a page's link names through Swagger's API: its deep links nest a link in a button,
 * which axe refuses.
 */
export function ApiReferencePage() {
  const operation = useQuery().get('operation');
  const state = useLoad(async () => {
    const answer = await fetch('/v1/openapi.json');
    if (!answer.ok) throw new Error(`The API reference could not be loaded (HTTP ${answer.status})`);
    return (await answer.json()) as OpenApiDocument;
  });
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!state.data || !host.current) return;
    const target = operation ? operationOf(state.data, operation) : null;
    const ui = SwaggerUIBundle({
      domNode: host.current,
      spec: state.data,
      deepLinking: false,
      syntaxHighlight: false,
      supportedSubmitMethods: [],
      onComplete: () => {
        if (!target) return;
        ui.layoutActions.show(['operations', target.tag, target.operationId], true);
        document.getElementById(`operations-${target.tag}-${target.operationId}`)?.scrollIntoView();
      },
    });
  }, [state.data, operation]);
  return (
    <>
      <PageHeader title="API reference">
        <Anchor href="/v1/openapi.json" size="sm">
          OpenAPI document (JSON)
        </Anchor>
      </PageHeader>
      <Loadable state={state} empty="">
        {/* Swagger UI draws light only: a light sheet in dark mode too, so its text keeps its contrast. */}
        {() => <Box ref={host} className="gw-api-reference" bg="white" c="black" style={{ colorScheme: 'light', borderRadius: 8 }} />}
      </Loadable>
    </>
  );
}
