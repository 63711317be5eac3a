import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../catalog/catalog-snapshot.js';
import { parseCatalogDocument } from '../catalog/catalog.loader.js';
import { toModelView } from '../catalog/catalog.service.js';
import { computeCost, pricingVariants } from './cost.js';
import { windowAt } from './price-windows.js';

const PEAK = { prompt: '0.00000132', completion: '0.00000396', cachedPrompt: '0.000000044' };
const OFF = { prompt: '0.00000066', completion: '0.00000198', cachedPrompt: '0.000000022' };
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri'];
/** DeepSeek's schedule as generated: off-peak everywhere but 01:00-04:00 and 06:00-10:00 UTC on weekdays. */
const DEEPSEEK_WINDOWS = [
  { name: 'off-peak', days: WEEKDAYS, start: '00:00', end: '01:00', ...OFF },
  { name: 'off-peak', days: WEEKDAYS, start: '04:00', end: '06:00', ...OFF },
  { name: 'off-peak', days: WEEKDAYS, start: '10:00', end: '00:00', ...OFF },
  { name: 'off-peak', days: ['sat', 'sun'], start: '00:00', end: '00:00', ...OFF },
];

function endpoint(timeWindows: object[]) {
  const catalog = parseCatalogDocument({
    providers: [{ id: 'deepseek', name: 'DeepSeek', format: 'openai', baseUrl: 'https://api.deepseek.com', apiKey: 'k' }],
    models: [
      {
        id: 'deepseek/deepseek-v4-pro',
        name: 'V4 Pro',
        contextLength: 1_000_000,
        supportedParameters: [],
        endpoints: [{ provider: 'deepseek', upstreamModel: 'deepseek-v4-pro', pricing: { ...PEAK, timeWindows } }],
      },
    ],
  });
  return buildSnapshot(catalog, 1).models.get('deepseek/deepseek-v4-pro')!;
}

const at = (iso: string) => Date.parse(iso);
const TOKENS = { promptTokens: 1_000_000, completionTokens: 1_000_000, cachedTokens: 0 };

describe('time-of-day prices', () => {
  const { pricing } = endpoint(DEEPSEEK_WINDOWS).endpoints[0]!;

  // 2026-11-30 is a Monday, 2026-12-04 a Friday, 2026-12-05 a Saturday.
  it.each([
    ['2026-11-30T00:00:00.000Z', 'off-peak', 'Monday midnight'],
    ['2026-11-30T00:59:59.999Z', 'off-peak', 'the last instant before peak'],
    ['2026-11-30T01:00:00.000Z', 'peak', 'peak starts (a window ends exclusive)'],
    ['2026-11-30T03:59:59.999Z', 'peak', 'the end of the first peak'],
    ['2026-11-30T04:00:00.000Z', 'off-peak', 'between the peaks'],
    ['2026-11-30T06:00:00.000Z', 'peak', 'the second peak starts'],
    ['2026-11-30T09:59:59.999Z', 'peak', 'the end of the second peak'],
    ['2026-11-30T10:00:00.000Z', 'off-peak', 'the evening window starts (inclusive)'],
    ['2026-12-04T23:59:59.999Z', 'off-peak', 'Friday night, a window running to midnight'],
    ['2026-12-05T01:30:00.000Z', 'off-peak', 'Saturday: no peak'],
    ['2026-12-06T09:00:00.000Z', 'off-peak', 'Sunday: no peak'],
    ['2026-12-07T01:00:00.000Z', 'peak', 'Monday again'],
  ])('%s is %s (%s)', (iso, expected) => {
    const cost = computeCost(pricing, TOKENS, at(iso));
    expect(cost.total.toFixed()).toBe(expected === 'peak' ? '5.28' : '2.64');
  });

  it('charges the base prices without a start time, and holds the dearest of every window', () => {
    expect(computeCost(pricing, TOKENS).total.toFixed()).toBe('5.28');
    const totals = pricingVariants(pricing).map((variant) => computeCost(variant, TOKENS).total.toFixed());
    expect(totals).toEqual(['5.28', '2.64', '2.64', '2.64', '2.64']);
  });

  it('runs a window past midnight on the day after the one it starts on', () => {
    const windows = endpoint([{ name: 'night', days: ['mon'], start: '16:30', end: '00:30', ...OFF }]).endpoints[0]!.pricing.windows;
    expect(windowAt(windows, at('2026-11-30T16:29:59.999Z'))).toBeUndefined();
    expect(windowAt(windows, at('2026-11-30T16:30:00.000Z'))?.name).toBe('night');
    expect(windowAt(windows, at('2026-12-01T00:29:59.999Z'))?.name).toBe('night');
    expect(windowAt(windows, at('2026-12-01T00:30:00.000Z'))).toBeUndefined();
    // Tuesday's 16:30 is not in a Monday-only window.
    expect(windowAt(windows, at('2026-12-01T16:30:00.000Z'))).toBeUndefined();
  });

  it('shows the windows in /v1/models', () => {
    const model = endpoint(DEEPSEEK_WINDOWS);
    const view = toModelView(model, model.endpoints[0]!, 0);
    expect(view.pricing.prompt).toBe('0.00000132');
    expect(view.pricing.time_windows).toHaveLength(4);
    expect(view.pricing.time_windows![2]).toEqual({
      name: 'off-peak',
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start: '10:00',
      end: '00:00',
      prompt: '0.00000066',
      completion: '0.00000198',
      input_cache_read: '0.000000022',
    });
  });

  it('refuses a window with a clock that is not HH:MM, naming the field', () => {
    expect(() => endpoint([{ name: 'bad', start: '24:00', end: '01:00', ...OFF }])).toThrow(/timeWindows\.0\.start/);
  });
});
