import { NumberInput, Select, Switch, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from './api';
import { FormModal, LIMIT_RESETS } from './form-modal';
import type { ApiKey } from './pages/shapes';

/** An ISO time as `datetime-local` reads it: the viewer's zone, to the minute. */
function localInput(iso: string | null): string {
  if (!iso) return '';
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

const numberOrNull = (value: string | number) => (value === '' ? null : Number(value));

/**
 * PATCH /v1/keys/{hash} of a key's spend limit, its reset, the rate limits and the expiry; an
 * emptied field clears it (null). The expiry is sent only when changed: a past one is refused.
 */
export function EditKeyModal({ apiKey: key, onClose, onSaved }: { apiKey: ApiKey; onClose: () => void; onSaved: () => void }) {
  const [limit, setLimit] = useState<string | number>(key.limit ?? '');
  const [reset, setReset] = useState<string | null>(key.limit_reset);
  const [byok, setByok] = useState(key.include_byok_in_limit);
  const [rpm, setRpm] = useState<string | number>(key.rate_limit.requests_per_minute ?? '');
  const [concurrent, setConcurrent] = useState<string | number>(key.rate_limit.concurrent_requests ?? '');
  const initialExpiry = localInput(key.expires_at);
  const [expires, setExpires] = useState(initialExpiry);
  const submit = async () => {
    const body: Record<string, unknown> = {
      limit: numberOrNull(limit),
      limit_reset: reset,
      include_byok_in_limit: byok,
      rate_limit: { requests_per_minute: numberOrNull(rpm), concurrent_requests: numberOrNull(concurrent) },
    };
    if (expires !== initialExpiry) body.expires_at = expires ? new Date(expires).toISOString() : null;
    await api(`/v1/keys/${key.hash}`, { method: 'PATCH', body });
    onSaved();
  };
  return (
    <FormModal title={`Edit key ${key.name}`} submit="Save" onSubmit={submit} onClose={onClose}>
      <NumberInput
        label="Spend limit (USD)"
        description="Empty: no limit"
        min={0}
        decimalScale={6}
        value={limit}
        onChange={setLimit}
        data-autofocus
      />
      <Select label="Limit resets" clearable data={LIMIT_RESETS} value={reset} onChange={setReset} />
      <Switch label="BYOK usage counts against the limit" checked={byok} onChange={(event) => setByok(event.currentTarget.checked)} />
      <NumberInput label="Requests per minute" description="Empty: the gateway's default" min={1} value={rpm} onChange={setRpm} />
      <NumberInput
        label="Concurrent requests"
        description="Empty: the gateway's default"
        min={1}
        value={concurrent}
        onChange={setConcurrent}
      />
      <TextInput
        label="Expires"
        description="In your time zone; empty: never"
        type="datetime-local"
        value={expires}
        onChange={(event) => setExpires(event.currentTarget.value)}
      />
    </FormModal>
  );
}
