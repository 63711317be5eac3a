/** The package ships no types: what the console passes, and the one action it calls back. */
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  interface SwaggerUi {
    layoutActions: { show: (path: string[], shown: boolean) => void };
  }
  export default function SwaggerUIBundle(options: {
    domNode: HTMLElement;
    spec: object;
    deepLinking?: boolean;
    syntaxHighlight?: boolean;
    supportedSubmitMethods?: string[];
    onComplete?: () => void;
  }): SwaggerUi;
}
