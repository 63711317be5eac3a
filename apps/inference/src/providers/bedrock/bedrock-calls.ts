import type {
  BedrockRuntimeClient,
  ConverseCommandInput,
  ConverseCommandOutput,
  ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { SignatureV4 } from '@smithy/signature-v4';
import type { IncomingMessage } from 'node:http';
import { JsonEventStreamMarshaller } from './bedrock-event-stream.js';
import { converseWireBody } from './bedrock-request.js';

interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: IncomingMessage;
}

/** What the SDK's own request handler takes and answers (NodeHttpHandler, the client's `requestHandler`). */
interface HttpHandler {
  handle(request: unknown, options: { abortSignal?: AbortSignal }): Promise<{ response: HttpResponse }>;
}

/** The client's SigV4 auth scheme signer (`AwsSdkSigV4Signer`): signs at the skew-corrected time, samples `Date` answers. */
type AuthSigner = BedrockRuntimeClient['config']['httpAuthSchemes'][number]['signer'];

interface Route {
  url: URL;
  signer: AuthSigner;
  /** What that signer reads as its config: our SignatureV4 (built once) and the client's own `systemClockOffset`. */
  signingConfig: object;
}

/**
 * Converse and ConverseStream without the SDK's command pipeline: per call the SDK ran about
 * twenty middlewares (user agent, retry, endpoint rules, schema serde, event-stream capability
 * loaded again) around the same signer. Here the client's own parts do the work: its endpoint
 * rules (once per client), its credential chain and SHA-256 in SigV4's `SignatureV4`, its HTTP
 * handler, and the event-stream codec; Bedrock's REST-JSON binding (the model id in the path,
 * the rest in a JSON body, errors named by `x-amzn-errortype`) is all that is written here.
 * Clock skew is the client's own signer's: it signs at `systemClockOffset` from now and, on a
 * refusal dated by AWS's clock, corrects the offset; the call is then sent once more, as the SDK's retry does.
 */
export class BedrockCalls {
  private readonly routes = new WeakMap<BedrockRuntimeClient, Promise<Route>>();
  private readonly marshaller = new JsonEventStreamMarshaller();

  async converse(client: BedrockRuntimeClient, input: ConverseCommandInput, signal?: AbortSignal): Promise<ConverseCommandOutput> {
    const response = await this.send(client, 'converse', input, signal);
    const output = JSON.parse(await text(response.body)) as Omit<ConverseCommandOutput, '$metadata'>;
    return { ...output, $metadata: { httpStatusCode: response.statusCode, requestId: response.headers['x-amzn-requestid'] } };
  }

  async converseStream(
    client: BedrockRuntimeClient,
    input: ConverseCommandInput,
    signal: AbortSignal,
  ): Promise<AsyncIterable<ConverseStreamOutput>> {
    const response = await this.send(client, 'converse-stream', input, signal);
    return this.marshaller.deserialize(response.body, undefined) as AsyncIterable<ConverseStreamOutput>;
  }

  private async send(
    client: BedrockRuntimeClient,
    operation: 'converse' | 'converse-stream',
    input: ConverseCommandInput,
    signal?: AbortSignal,
    retrySkew = true,
  ): Promise<HttpResponse> {
    const { signer, signingConfig, url } = await this.route(client);
    const { modelId, ...members } = converseWireBody(input);
    const payload = JSON.stringify(members);
    const basePath = url.pathname.replace(/\/$/, '');
    const request = {
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      method: 'POST',
      path: `${basePath}/model/${encodeURIComponent(String(modelId))}/${operation}`,
      query: {},
      headers: { host: url.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
      body: payload,
    };
    const properties = { config: signingConfig, context: {} };
    const signed = await signer.sign(request as never, {} as never, properties);
    const handler = client.config.requestHandler as unknown as HttpHandler;
    const { response } = await handler.handle(signed, { abortSignal: signal });
    if (response.statusCode < 300) {
      signer.successHandler?.(response as never, properties);
      return response;
    }
    const error = await exception(response);
    try {
      signer.errorHandler?.(properties)(error);
    } catch {
      // the handler rethrows the error once it has read its Date header
    }
    // The SDK's retry strategy retries an error whose skew it has just corrected: once, here.
    if (retrySkew && (error as { $metadata?: { clockSkewCorrected?: boolean } }).$metadata?.clockSkewCorrected)
      return this.send(client, operation, input, signal, false);
    throw error;
  }

  private route(client: BedrockRuntimeClient): Promise<Route> {
    let route = this.routes.get(client);
    if (!route) {
      route = resolveRoute(client);
      this.routes.set(client, route);
    }
    return route;
  }
}

async function resolveRoute(client: BedrockRuntimeClient): Promise<Route> {
  const config = client.config;
  const region = await config.region();
  const custom = config.endpoint ? await config.endpoint() : undefined;
  const endpoint = config.endpointProvider({
    Region: region,
    UseFIPS: await config.useFipsEndpoint(),
    UseDualStack: await config.useDualstackEndpoint(),
    ...(custom ? { Endpoint: `${custom.protocol}//${custom.hostname}${custom.port ? `:${custom.port}` : ''}${custom.path ?? ''}` } : {}),
  });
  const sigV4 = new SignatureV4({ service: 'bedrock', region, credentials: config.credentials, sha256: config.sha256 });
  const scheme = config.httpAuthSchemes.find((candidate) => candidate.schemeId === 'aws.auth#sigv4');
  if (!scheme) throw new Error('the Bedrock client has no SigV4 auth scheme');
  // Event-stream answers are sampled too (the SDK skips them): a stream's refusal is a plain answer with its Date.
  const signingConfig = {
    signer: async () => sigV4,
    get systemClockOffset() {
      return config.systemClockOffset;
    },
    set systemClockOffset(offset: number) {
      config.systemClockOffset = offset;
    },
  };
  return { url: endpoint.url, signer: scheme.signer, signingConfig };
}

async function text(body: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** Bedrock's error answer as the SDK would have thrown it: named by `x-amzn-errortype`, with the status and headers. */
async function exception(response: HttpResponse): Promise<Error> {
  let detail: { message?: string; Message?: string; __type?: string } = {};
  try {
    detail = JSON.parse(await text(response.body)) as typeof detail;
  } catch {
    detail = {};
  }
  const named = response.headers['x-amzn-errortype'] ?? detail.__type ?? `Http${response.statusCode}Error`;
  const name = named.split(':')[0]!.split('#').pop()!;
  return Object.assign(new Error(detail.message ?? detail.Message ?? name), {
    name,
    $metadata: { httpStatusCode: response.statusCode },
    $response: { statusCode: response.statusCode, headers: response.headers },
  });
}
