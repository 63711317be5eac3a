import { hash, timingSafeEqual } from 'node:crypto';

const ENTRY = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63}):(\S{24,})$/;

/**
 * The operator credentials of `OPERATOR_API_KEYS` (`name:secret`, comma-separated): the platform
 * team's keys, apart from every workspace's. Only their SHA-256 is kept; a presented key is
 * compared with each in constant time, and its name is who made a change.
 */
export class OperatorKeys {
  private readonly keys: Array<{ name: string; digest: Buffer }>;

  constructor(list: string) {
    this.keys = parseOperatorKeys(list).map(({ name, secret }) => ({ name, digest: hash('sha256', secret, 'buffer') }));
  }

  /** The operator's name, or undefined when the key is none of theirs. */
  nameOf(presented: string): string | undefined {
    const digest = hash('sha256', presented, 'buffer');
    let found: string | undefined;
    for (const key of this.keys) if (timingSafeEqual(key.digest, digest)) found ??= key.name;
    return found;
  }
}

/** Throws naming the entry at fault (the environment is checked at start). */
export function parseOperatorKeys(list: string): Array<{ name: string; secret: string }> {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, index) => {
      const match = ENTRY.exec(entry);
      if (!match) throw new Error(`OPERATOR_API_KEYS entry ${index + 1} is not name:secret (a secret of 24 characters or more)`);
      return { name: match[1]!, secret: match[2]! };
    });
}
