/** Money has 12 decimal places (the `numeric` columns' scale). */
const SCALE = 12;
const UNIT = 10n ** BigInt(SCALE);
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * What a hit is charged: `avoided` × `rate`, rounded half up to 12 places, both as their
 * canonical decimal strings (no exponent, no trailing zeros), exactly as decimal.js's
 * `toDecimalPlaces(12, ROUND_HALF_UP).toFixed()` writes them. BigInt fixed point, so the gateway
 * and inference agree to the last digit without a decimal library in the gateway.
 */
export function hitCharge(avoided: string, rate: string): { charged: string; avoided: string } {
  const a = scaled(avoided);
  const r = scaled(rate);
  const product = a * r;
  const sign = product < 0n ? -1n : 1n;
  const magnitude = product * sign;
  const rounded = ((magnitude + UNIT / 2n) / UNIT) * sign;
  return { charged: text(rounded), avoided: text(a) };
}

/** A decimal string as an integer of 10^-12 units (a stored cost has at most 12 places). */
function scaled(value: string): bigint {
  const match = DECIMAL.exec(value.trim());
  if (!match) throw new Error(`not a decimal: ${value}`);
  const [, minus, whole, fraction = ''] = match;
  if (fraction.length > SCALE && /[1-9]/.test(fraction.slice(SCALE))) throw new Error(`more than ${SCALE} decimal places: ${value}`);
  const units = BigInt(whole!) * UNIT + BigInt(fraction.slice(0, SCALE).padEnd(SCALE, '0') || '0');
  return minus ? -units : units;
}

function text(units: bigint): string {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const whole = magnitude / UNIT;
  const fraction = (magnitude % UNIT).toString().padStart(SCALE, '0').replace(/0+$/, '');
  const body = fraction ? `${whole}.${fraction}` : `${whole}`;
  return negative && magnitude !== 0n ? `-${body}` : body;
}
