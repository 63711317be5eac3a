import { Badge, Button, Group } from '@mantine/core';
import { api } from './api';
import { ConfirmButton } from './confirm-button';
import type { ApiKey } from './pages/shapes';

export function KeyName({ apiKey }: { apiKey: ApiKey }) {
  return (
    <>
      {apiKey.name} {apiKey.intern_id && <Badge variant="light">intern</Badge>} {apiKey.disabled && <Badge color="gray.8">disabled</Badge>}
    </>
  );
}

/**
 * The API has no rotate: the replacement is created with the old key's settings, then the old
 * key is disabled (not deleted: its usage stays readable, and it can be enabled again).
 */
export async function rotateKey(key: ApiKey): Promise<string> {
  const future = key.expires_at !== null && Date.parse(key.expires_at) > Date.now();
  const body: Record<string, unknown> = {
    name: key.name,
    limit: key.limit,
    limit_reset: key.limit_reset,
    include_byok_in_limit: key.include_byok_in_limit,
    rate_limit: key.rate_limit,
    response_cache_ttl_seconds: key.response_cache_ttl_seconds,
    ...(future ? { expires_at: key.expires_at } : {}),
    ...(key.intern_id ? { intern_id: key.intern_id } : {}),
  };
  const created = await api<{ key: string }>('/v1/keys', { method: 'POST', body });
  await api(`/v1/keys/${key.hash}`, { method: 'PATCH', body: { disabled: true } });
  return created.key;
}

export function KeyActions({
  apiKey: key,
  act,
  rotate,
  edit,
}: {
  apiKey: ApiKey;
  act: (write: () => Promise<unknown>) => Promise<void>;
  rotate: (key: ApiKey) => Promise<void>;
  /** Opens the key's settings (limit, reset, rate limits, expiry). */
  edit?: (key: ApiKey) => void;
}) {
  return (
    <Group gap="xs" wrap="nowrap">
      {edit && (
        <Button size="xs" variant="default" aria-label={`Edit key ${key.name}`} onClick={() => edit(key)}>
          Edit
        </Button>
      )}
      <ConfirmButton
        variant="default"
        label={`Rotate key ${key.name}`}
        disabled={key.disabled}
        question={`Rotate “${key.name}”? A new key with the same settings is created and this one is disabled.`}
        confirm="Rotate"
        onConfirm={() => void rotate(key)}
      >
        Rotate
      </ConfirmButton>
      <Button
        size="xs"
        variant="default"
        aria-label={`${key.disabled ? 'Enable' : 'Disable'} key ${key.name}`}
        onClick={() => void act(() => api(`/v1/keys/${key.hash}`, { method: 'PATCH', body: { disabled: !key.disabled } }))}
      >
        {key.disabled ? 'Enable' : 'Disable'}
      </Button>
      <ConfirmButton
        color="red"
        variant="light"
        label={`Delete key ${key.name}`}
        question={`Delete the key “${key.name}”? Requests with it will fail at once.`}
        confirm="Delete"
        onConfirm={() => void act(() => api(`/v1/keys/${key.hash}`, { method: 'DELETE' }))}
      >
        Delete
      </ConfirmButton>
    </Group>
  );
}
