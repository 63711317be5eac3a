import { Button, Group, NumberInput, Paper, Switch } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { ErrorNote, type Loaded, useWrite } from '../ui';
import type { ContentLogging } from './shapes';

/**
 * The workspace's content logging (`GET/PUT /v1/content-logging`, a management key's: owners
 * and admins): the switch, and how many days contents are kept. New generations only.
 */
export function ContentLoggingCard({ state }: { state: Loaded<{ data: ContentLogging } | null> }) {
  const { error, act } = useWrite(state.reload);
  const [days, setDays] = useState<string | number>('');
  const setting = state.data?.data;
  if (state.error) return <ErrorNote error={state.error} />;
  if (!setting) return null;
  const save = (change: { enabled: boolean; retention_days?: number }) =>
    act(() => api('/v1/content-logging', { method: 'PUT', body: change }));
  return (
    <Paper withBorder p="sm" mb="md">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Switch
          label="Log prompts and answers"
          description={
            setting.available
              ? `New generations only, kept ${setting.retention_days} days, secrets redacted.`
              : 'Not available on this deployment: it has no key to seal contents with.'
          }
          checked={setting.enabled}
          disabled={!setting.available || state.loading}
          onChange={(event) => void save({ enabled: event.currentTarget.checked })}
        />
        <Group gap="xs" align="flex-end">
          <NumberInput
            label={`Keep for (days, at most ${setting.max_retention_days})`}
            min={1}
            max={setting.max_retention_days}
            allowDecimal={false}
            value={days === '' ? setting.retention_days : days}
            onChange={setDays}
            w={220}
          />
          <Button
            variant="default"
            disabled={days === '' || Number(days) === setting.retention_days}
            onClick={() => void save({ enabled: setting.enabled, retention_days: Number(days) }).then(() => setDays(''))}
          >
            Save days
          </Button>
        </Group>
      </Group>
      {error && <ErrorNote error={error} />}
    </Paper>
  );
}
