/*
 * Exact decimal arithmetic on the price strings (a price never passes through a float): a
 * decimal is an integer and a count of digits after the point.
 */

interface Decimal {
  digits: bigint;
  scale: number;
}

const DECIMAL = /^\d+(\.\d+)?$/;

function parse(text: string): Decimal {
  if (!DECIMAL.test(text)) throw new Error(`not a non-negative decimal: ${text}`);
  const [whole, fraction = ''] = text.split('.');
  return { digits: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

function format({ digits, scale }: Decimal): string {
  const text = digits.toString().padStart(scale + 1, '0');
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** A price per million tokens as the price of one token. */
export function perToken(perMillion: string): string {
  const value = parse(perMillion);
  return format({ digits: value.digits, scale: value.scale + 6 });
}

export function decimalTimes(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  return format({ digits: x.digits * y.digits, scale: x.scale + y.scale });
}
