import { BedrockRuntimeClient, type BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { GatewayError } from '@gw/errors';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import type { ProviderConfig } from '../../catalog/catalog.schema.js';
import { INFERENCE_ENV, type InferenceEnv } from '../../env.js';
import { JsonEventStreamMarshaller } from './bedrock-event-stream.js';

type EventStreamMarshaller = ReturnType<NonNullable<BedrockRuntimeClientConfig['eventStreamSerdeProvider']>>;

/** A workspace's own AWS keys (BYOK), as its credential's secret holds them. */
interface StaticKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** The workspace's own region, in place of the catalog provider's. */
  region?: string;
}

/** An AWS region name (`us-east-1`, `ap-southeast-2`, `us-gov-west-1`): it becomes part of a host name. */
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/**
 * One Bedrock runtime client per region, endpoint and credential, kept for reuse (each holds a
 * keep-alive pool). A catalog provider signs with the standard AWS chain (env, profile, web
 * identity for EKS IRSA, instance role), or with static keys in its `apiKey` (the simulator's
 * account); a BYOK credential signs with the keys it carries.
 * The SDK never retries: routing decides what is tried next, and a retried call is billed twice.
 */
@Injectable()
export class BedrockClients implements OnModuleDestroy {
  private readonly clients = new LRUCache<string, BedrockRuntimeClient>({
    max: 256,
    dispose: (client) => client.destroy(),
  });

  constructor(@Inject(INFERENCE_ENV) private readonly env: InferenceEnv) {}

  for(provider: ProviderConfig, byokSecret?: string): BedrockRuntimeClient {
    // The catalog provider's own keys (its `apiKey`, the same JSON) when it has some, else the chain.
    const secret = byokSecret ?? (provider.apiKey !== '' ? provider.apiKey : undefined);
    const parsed = secret === undefined ? undefined : parseKeys(secret);
    const chosenRegion = parsed?.region ?? provider.region ?? '';
    const keys = parsed && { accessKeyId: parsed.accessKeyId, secretAccessKey: parsed.secretAccessKey, sessionToken: parsed.sessionToken };
    const key = [provider.id, chosenRegion, provider.baseUrl, secret === undefined ? 'chain' : digest(secret)].join('|');
    let client = this.clients.get(key);
    if (!client) {
      client = new BedrockRuntimeClient({
        region: chosenRegion,
        ...(provider.baseUrl ? { endpoint: provider.baseUrl } : {}),
        ...(keys ? { credentials: keys } : {}),
        maxAttempts: 1,
        // ConverseStream's events decoded without the schema deserializer.
        eventStreamSerdeProvider: () => new JsonEventStreamMarshaller() as unknown as EventStreamMarshaller,
        // HTTP/1.1 with keep-alive, as the gateway's other calls: Converse needs no HTTP/2 (only the
        // bidirectional stream API does, which is not used), and its timeouts are the same knobs.
        requestHandler: new NodeHttpHandler({
          connectionTimeout: this.env.UPSTREAM_CONNECT_TIMEOUT_MS,
          requestTimeout: this.env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
        }),
      });
      this.clients.set(key, client);
    }
    return client;
  }

  onModuleDestroy(): void {
    this.clients.clear();
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** `{"accessKeyId", "secretAccessKey", "sessionToken"?, "region"?}`: what a Bedrock BYOK credential stores. */
function parseKeys(secret: string): StaticKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret);
  } catch {
    parsed = undefined;
  }
  const keys = parsed as Partial<StaticKeys> | undefined;
  if (!keys || typeof keys.accessKeyId !== 'string' || typeof keys.secretAccessKey !== 'string') {
    throw new GatewayError(400, 'The Bedrock credential must hold {"accessKeyId", "secretAccessKey", "sessionToken"?, "region"?}', {
      errorType: 'invalid_request',
    });
  }
  if (keys.region !== undefined && (typeof keys.region !== 'string' || !REGION.test(keys.region)))
    throw new GatewayError(400, 'The Bedrock credential region must be an AWS region name such as us-east-1', {
      errorType: 'invalid_request',
    });
  return {
    accessKeyId: keys.accessKeyId,
    secretAccessKey: keys.secretAccessKey,
    ...(typeof keys.sessionToken === 'string' ? { sessionToken: keys.sessionToken } : {}),
    ...(keys.region !== undefined ? { region: keys.region } : {}),
  };
}
