import { GatewayError } from '@gw/errors';
import { OperatorKeys, parseOperatorKeys } from '../admin/operator-keys.js';

/** What an operator's console session may call: the admin API over the catalog, nothing of any workspace. */
export const OPERATOR_API_PREFIX = '/v1/admin/';

/**
 * The operator keys of `OPERATOR_API_KEYS`, for the console: a presented key names its operator
 * (compared in constant time), and a session names the operator whose key the gateway then
 * sends in-process. The key itself never goes back to the browser, sealed or not.
 */
export class ConsoleOperators {
  private readonly keys: OperatorKeys;
  private readonly secrets: Map<string, string>;

  constructor(list: string) {
    this.keys = new OperatorKeys(list);
    this.secrets = new Map(parseOperatorKeys(list).map(({ name, secret }) => [name, secret]));
  }

  nameOf(presented: unknown): string | undefined {
    return typeof presented === 'string' && presented !== '' ? this.keys.nameOf(presented) : undefined;
  }

  /** Undefined once the operator's key is gone from the configuration: their sessions end with it. */
  keyOf(name: string): string | undefined {
    return this.secrets.get(name);
  }
}

export const notAKey = () =>
  new GatewayError(401, 'Not a key: sign in with SSO, a management key or an operator key', {
    errorType: 'authentication',
    metadata: { reason: 'management_key_required', retryable: false },
  });

export const operatorPathRefused = () =>
  new GatewayError(403, "An operator's console session reads and changes the catalog only (/v1/admin/...)", {
    errorType: 'permission_denied',
    metadata: { reason: 'operator_session_scope', retryable: false },
  });
