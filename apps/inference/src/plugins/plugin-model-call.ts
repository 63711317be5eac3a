type Json = Record<string, unknown>;

/**
 * A call the gateway makes to a catalog model for a plugin (the moderation model, the
 * alignment judge), routed, priced and recorded as its own generation like any other call.
 * Resolves to the model's text.
 */
export type PluginModelCall = (model: string, messages: Json[], options?: { maxTokens?: number; responseFormat?: Json }) => Promise<string>;
