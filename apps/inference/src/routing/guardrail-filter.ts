import type { GuardrailPolicy } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { providerMatches } from './provider-preferences.js';
import type { ModelChoice } from './route-types.js';

const modelMatches = (names: readonly string[], choice: ModelChoice) =>
  names.some((name) => name.toLowerCase() === choice.id.toLowerCase() || name.toLowerCase() === choice.model.config.id.toLowerCase());

/** The 403 of a request only denied models or providers could serve, naming the guardrail. */
function guardrailDenied(guardrail: GuardrailPolicy): GatewayError {
  return new GatewayError(
    403,
    `Guardrail "${guardrail.name}" (${guardrail.id}) denies every model and provider that could serve this request`,
    {
      errorType: 'permission_denied',
      metadata: { reason: 'guardrail_denied', guardrail_id: guardrail.id, guardrail_name: guardrail.name },
    },
  );
}

/**
 * The request's models with only the endpoints every guardrail of the key allows (allowed lists
 * keep, ignored lists drop; models by catalog id, providers by id or name, as `provider.only`).
 * Applied before the provider preferences, so a request cannot route around a guardrail. When a
 * guardrail leaves no endpoint of any model, the request is refused naming it (pure: no I/O).
 */
export function applyGuardrails(models: readonly ModelChoice[], guardrails: readonly GuardrailPolicy[] | undefined): ModelChoice[] {
  let allowed = [...models];
  for (const guardrail of guardrails ?? []) {
    allowed = allowed
      .filter((choice) => guardrail.allowedModels.length === 0 || modelMatches(guardrail.allowedModels, choice))
      .filter((choice) => !modelMatches(guardrail.ignoredModels, choice))
      .map((choice) => ({
        ...choice,
        model: {
          ...choice.model,
          endpoints: choice.model.endpoints.filter(
            (endpoint) =>
              (guardrail.allowedProviders.length === 0 || providerMatches(guardrail.allowedProviders, endpoint.provider)) &&
              !providerMatches(guardrail.ignoredProviders, endpoint.provider),
          ),
        },
      }))
      .filter((choice) => choice.model.endpoints.length > 0);
    if (allowed.length === 0) throw guardrailDenied(guardrail);
  }
  return allowed;
}
