import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { parsePlugins, refusePluginsOnMessages } from './plugin-request.js';
import { BUILT_PLUGIN_IDS } from '@gw/contracts';
import { BUILT_PLUGINS, PLUGIN_REGISTRY } from './plugin-registry.js';

const context = { stream: false, searchBackend: 'searxng' };

function refusal(body: Record<string, unknown>, stream = false): GatewayError {
  try {
    parsePlugins(body, { ...context, stream });
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a 400');
}

describe('parsePlugins', () => {
  it("knows the 13 ids of the spec and the SDK's switchyard-router", () => {
    const ids = [
      'auto-router',
      'web',
      'web-fetch',
      'file-parser',
      'context-compression',
      'response-healing',
      'moderation',
      'alignment',
      'strip-citation-markers',
      'fusion',
      'pareto-router',
      'phaser',
      'auto-beta-router',
    ];
    for (const id of ids) expect(PLUGIN_REGISTRY[id], id).toBeDefined();
    expect(Object.keys(PLUGIN_REGISTRY)).toHaveLength(14);
  });

  it('serves exactly the ids the gateway lets through at the edge (@gw/contracts)', () => {
    expect([...BUILT_PLUGINS].sort()).toEqual([...BUILT_PLUGIN_IDS].sort());
  });

  it('refuses an unknown id with a 400 that names it', () => {
    const error = refusal({ plugins: [{ id: 'web' }, { id: 'telepathy' }] });
    expect(error.status).toBe(400);
    expect(error.message).toContain('telepathy');
    expect(error.metadata).toMatchObject({ reason: 'unknown_plugin', plugin: 'telepathy', param: 'plugins[1].id' });
  });

  it.each(['fusion', 'pareto-router', 'phaser', 'auto-beta-router', 'switchyard-router'])(
    'refuses %s as not supported here, saying why',
    (id) => {
      const error = refusal({ plugins: [{ id }] });
      expect(error.status).toBe(400);
      expect(error.message).toMatch(new RegExp(`${id} plugin is not supported here`));
      expect(error.metadata).toMatchObject({ reason: 'unsupported_plugin', plugin: id });
    },
  );

  it('reads each built plugin with its options, and enabled: false turns one off', () => {
    const plan = parsePlugins(
      {
        response_format: { type: 'json_object' },
        plugins: [
          { id: 'web', max_results: 3, search_prompt: 'Results:', engine: 'searxng', include_domains: ['*.example.com'] },
          { id: 'web-fetch', max_uses: 2, blocked_domains: ['evil.test'] },
          { id: 'file-parser', pdf: { engine: 'pdf-text' } },
          { id: 'context-compression', engine: 'middle-out' },
          { id: 'response-healing' },
          { id: 'moderation' },
          { id: 'alignment', rules: ['Never say "banana"'], mode: 'audit', maxRetries: 2 },
          { id: 'strip-citation-markers' },
          { id: 'auto-router', allowed_models: ['sim/*'], cost_tier: 'low', enabled: false },
        ],
      },
      context,
    );
    expect(plan.web).toEqual({ maxResults: 3, searchPrompt: 'Results:', includeDomains: ['*.example.com'] });
    expect(plan.webFetch).toEqual({ maxUses: 2, blockedDomains: ['evil.test'] });
    expect(plan.fileParser).toEqual({ engine: 'text' });
    expect(plan.contextCompression).toEqual({ engine: 'middle-out' });
    expect(plan.responseHealing).toEqual({});
    expect(plan.moderation).toBe(true);
    expect(plan.alignment).toEqual({ rules: ['Never say "banana"'], mode: 'audit', instruct: false, maxRetries: 2, threshold: 0.5 });
    expect(plan.stripCitationMarkers).toBe(true);
    expect(plan.autoRouter).toBeUndefined();
  });

  it('names an option a plugin does not take, a wrong value, or one it cannot honour', () => {
    expect(refusal({ plugins: [{ id: 'web', max_result: 3 }] }).metadata).toMatchObject({
      reason: 'invalid_plugin_option',
      param: 'plugins[0].max_result',
    });
    expect(refusal({ plugins: [{ id: 'web', max_results: 0 }] }).message).toContain(
      'plugins[0].max_results must be an integer from 1 to 20',
    );
    expect(refusal({ plugins: [{ id: 'web', engine: 'exa' }] }).message).toMatch(/engine "exa" is not available here.*searxng/);
    expect(refusal({ plugins: [{ id: 'web', user_location: { type: 'approximate' } }] }).metadata).toMatchObject({
      reason: 'unsupported_plugin_option',
    });
    expect(refusal({ plugins: [{ id: 'file-parser', pdf: { engine: 'mistral-ocr' } }] }).message).toContain('mistral-ocr');
    expect(refusal({ plugins: [{ id: 'auto-router', cost_tier: 'cheap' }] }).message).toContain(
      'cost_tier must be one of low, medium, high, xhigh, max',
    );
    expect(refusal({ plugins: [{ id: 'alignment' }] }).message).toContain('rules is required');
    expect(refusal({ plugins: [{ id: 'web' }, { id: 'web' }] }).message).toContain('named twice');
    expect(refusal({ plugins: [{ id: 'web', enabled: 'yes' }] }).message).toContain('enabled must be true or false');
  });

  it('refuses response-healing without a JSON format, and the answer plugins that cannot run on a stream', () => {
    expect(refusal({ plugins: [{ id: 'response-healing' }] }).message).toContain('needs response_format');
    expect(refusal({ response_format: { type: 'json_object' }, plugins: [{ id: 'response-healing' }] }, true).message).toContain(
      'does not run on streams',
    );
    expect(refusal({ plugins: [{ id: 'alignment', rules: ['x'] }] }, true).message).toContain('does not run on streams');
    expect(
      parsePlugins({ plugins: [{ id: 'web' }, { id: 'strip-citation-markers' }, { id: 'moderation' }] }, { ...context, stream: true }).web,
    ).toBeDefined();
  });

  it('refuses an invalid JSON schema given to response-healing', () => {
    const body = {
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
      },
      plugins: [{ id: 'response-healing' }],
    };
    expect(refusal(body).metadata).toMatchObject({ reason: 'invalid_schema' });
  });
});

describe('refusePluginsOnMessages', () => {
  it('names unknown ids, then refuses the known ones on /v1/messages; none or disabled ones pass', () => {
    expect(() => refusePluginsOnMessages({ plugins: [{ id: 'nope' }] })).toThrow(/unknown plugin "nope"/);
    expect(() => refusePluginsOnMessages({ plugins: [{ id: 'web' }] })).toThrow(/plugins are not supported on \/v1\/messages \(web\)/);
    expect(() => refusePluginsOnMessages({ plugins: [{ id: 'web', enabled: false }] })).not.toThrow();
    expect(() => refusePluginsOnMessages({})).not.toThrow();
  });
});
