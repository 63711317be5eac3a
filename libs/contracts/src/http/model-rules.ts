import { IsInt, IsOptional, Matches, Min } from 'class-validator';
import { OptionalIntIn, stacked } from './validators.js';

/*
 * The rules a model entry keeps wherever it is written: the operator's catalog (inference's
 * catalog.schema.ts) and a workspace's own model (workspace-model.dto.ts). Both take them from
 * here, so the two cannot drift (catalog/workspace-models.spec.ts holds one to the other).
 */

const MODEL_ID_FIRST = '[A-Za-z0-9]';
const MODEL_ID_REST = '[A-Za-z0-9._:/-]';
/** A public model id (also the spelling of its aliases): `acme/llama-3.1-70b`, slashes allowed. */
export const CATALOG_MODEL_ID_PATTERN = new RegExp(`^${MODEL_ID_FIRST}${MODEL_ID_REST}*$`);
/** A model id a workspace writes through the API: the same, at most 128 characters. */
export const WORKSPACE_MODEL_ID_PATTERN = new RegExp(`^${MODEL_ID_FIRST}${MODEL_ID_REST}{0,127}$`);

/** A non-negative decimal written as a string, so prices never pass through a float. */
export const PRICE_PATTERN = /^\d+(\.\d+)?$/;
/** A PRICE_PATTERN a workspace writes through the API: at most 12 integer and 20 fraction digits. */
export const BOUNDED_PRICE_PATTERN = /^\d{1,12}(\.\d{1,20})?$/;

/** Azure OpenAI's `api-version` of the deployments API (`2024-10-21`, `2025-04-01-preview`). */
export const AZURE_API_VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}(-preview)?$/;

/** An endpoint's priority: lower first (default 0); equal priorities share by `weight`. */
export const IsEndpointPriority = (): PropertyDecorator => OptionalIntIn(0, 100);

/** A share of a weighted draw per request (an endpoint among its priority, a key among its endpoint's); 0 drains it. */
export const IsDrawWeight = (): PropertyDecorator => OptionalIntIn(0, 1000);

/** A count of tokens (context length, most completion tokens): a whole number from 1. */
export const IsTokenCount = (): PropertyDecorator => stacked(IsInt(), Min(1));

/** An optional Azure `api-version`; unset: Azure's v1 API (`/openai/v1`). */
export const IsAzureApiVersion = (): PropertyDecorator => stacked(IsOptional(), Matches(AZURE_API_VERSION_PATTERN));
