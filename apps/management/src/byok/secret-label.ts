/**
 * The masked form of a provider secret shown as the credential's `label` (spec §2.4), e.g.
 * `sk-...AbCd`. A long key shows its first 3 and last 4 characters; a shorter one shows
 * less, so that the label never gives away more than a small part of the secret.
 */
export function maskSecret(secret: string): string {
  const characters = [...secret.trim()];
  if (characters.length >= 20) return `${characters.slice(0, 3).join('')}...${characters.slice(-4).join('')}`;
  if (characters.length >= 10) return `...${characters.slice(-2).join('')}`;
  return '...';
}
