import { Button, Group, Modal, Stack } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { ErrorNote } from './ui';

/**
 * The dialog of every write: its fields in one form (Enter submits), Cancel, and the submit button,
 * busy while the write runs; a refusal is shown in words above the fields and the dialog stays.
 */
export function FormModal({
  title,
  submit,
  onSubmit,
  onClose,
  opened = true,
  disabled,
  children,
}: {
  title: string;
  /** The submit button's name, e.g. "Save budget". */
  submit: string;
  onSubmit: () => Promise<void>;
  onClose: () => void;
  opened?: boolean;
  disabled?: boolean;
  children: ReactNode;
}) {
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await onSubmit();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <Stack>
          {error && <ErrorNote error={error} />}
          {children}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} disabled={disabled}>
              {submit}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** How often a spend limit starts again, as keys and guardrails take it. */
export const LIMIT_RESETS = [
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'monthly', label: 'Monthly' },
];
