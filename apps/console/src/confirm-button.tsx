import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useState, type ReactNode } from 'react';

/**
 * A button whose action is asked first, in a dialog of the app (focus kept inside, Escape
 * cancels, the confirm button named by the action), for every destructive or replacing write.
 */
export function ConfirmButton({
  label,
  question,
  confirm,
  onConfirm,
  children,
  ...button
}: ButtonProps & {
  /** The button's accessible name, e.g. "Delete key ci". */
  label: string;
  question: ReactNode;
  /** The dialog's confirm button, e.g. "Delete". */
  confirm: string;
  onConfirm: () => void;
  children: ReactNode;
}) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button size="xs" {...button} aria-label={label} onClick={() => setOpened(true)}>
        {children}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={label}>
        <Text mb="md">{question}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setOpened(false)}>
            Cancel
          </Button>
          <Button
            color={button.color === 'red' ? 'red.9' : undefined}
            data-autofocus
            onClick={() => {
              setOpened(false);
              onConfirm();
            }}
          >
            {confirm}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
