import { PRESET_SLUG_PATTERN, type PresetResolveReply } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

const PRESET_MARKER = '@preset/';

export interface PresetReference {
  slug: string;
  /** The model the request names beside the preset (`<model>@preset/<slug>`), which wins over the preset's. */
  model?: string;
}

/**
 * The preset a chat body refers to, if any: `model: "@preset/<slug>"`,
 * `model: "<model>@preset/<slug>"`, or a `preset` field (`"<slug>"` or `"@preset/<slug>"`).
 * A `preset` field with a plain model keeps that model.
 */
export function presetReferenceOf(body: Record<string, unknown>): PresetReference | null {
  const model = typeof body.model === 'string' ? body.model : '';
  const markerAt = model.indexOf(PRESET_MARKER);
  if (markerAt >= 0) {
    return { slug: checkedSlug(model.slice(markerAt + PRESET_MARKER.length)), model: markerAt > 0 ? model.slice(0, markerAt) : undefined };
  }
  if (body.preset === undefined || body.preset === null) return null;
  if (typeof body.preset !== 'string') throw GatewayError.badRequest('preset must be a preset slug');
  const slug = body.preset.startsWith(PRESET_MARKER) ? body.preset.slice(PRESET_MARKER.length) : body.preset;
  return { slug: checkedSlug(slug), model: model || undefined };
}

/**
 * The body with the preset applied: the designated version's config, then every field the
 * request sets to a non-null value (request wins), the model named beside the preset (or the preset's), and the
 * preset's system prompt prepended as a system message.
 */
export function applyPreset(
  body: Record<string, unknown>,
  reference: PresetReference,
  preset: PresetResolveReply,
  variables?: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const { preset: _preset, model: _model, ...requestFields } = body;
  const merged: Record<string, unknown> = { ...preset.config };
  // A null in the request means "not set" (OpenAI's clients send nulls for unset fields), so
  // it neither erases the preset's value nor reaches a provider.
  for (const [field, value] of Object.entries(requestFields)) {
    if (value !== null) merged[field] = value;
  }
  delete merged.preset;
  const model = reference.model ?? preset.config.model;
  if (typeof model !== 'string' || model.length === 0) {
    throw GatewayError.badRequest(`Preset "${reference.slug}" names no model; give one as "<model>@preset/${reference.slug}"`);
  }
  merged.model = model;
  if (preset.systemPrompt) {
    const messages = Array.isArray(requestFields.messages) ? requestFields.messages : [];
    const systemPrompt = variables ? fillVariables(preset.systemPrompt, variables) : preset.systemPrompt;
    merged.messages = [{ role: 'system', content: systemPrompt }, ...messages];
  }
  return merged;
}

/**
 * `{{name}}` placeholders of a system prompt filled from a stored-prompt call's variables
 * (Responses `prompt.variables`); a placeholder without a value stays as written.
 */
function fillVariables(template: string, variables: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (placeholder, name: string) =>
    Object.hasOwn(variables, name) ? variables[name]! : placeholder,
  );
}

function checkedSlug(slug: string): string {
  if (!PRESET_SLUG_PATTERN.test(slug)) throw GatewayError.badRequest(`"${slug}" is not a preset slug`);
  return slug;
}
