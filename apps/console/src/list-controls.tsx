import { Button, Group, Text, TextInput } from '@mantine/core';
import { useState, type ReactNode } from 'react';

export interface FilterField {
  /** The API's query parameter. */
  name: string;
  label: string;
  placeholder?: string;
}

/**
 * The filter row of every list page: one text input per query parameter of the API, applied
 * together on submit (Enter or the button), so typing does not refetch on each keystroke.
 */
export function FilterForm({
  fields,
  initial,
  onApply,
}: {
  fields: FilterField[];
  initial: Record<string, string>;
  onApply: (values: Record<string, string>) => void;
}) {
  const [values, setValues] = useState(initial);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onApply(values);
      }}
    >
      <Group align="flex-end" mb="md" wrap="wrap">
        {fields.map((field) => (
          <TextInput
            key={field.name}
            label={field.label}
            placeholder={field.placeholder}
            value={values[field.name] ?? ''}
            onChange={(event) => setValues({ ...values, [field.name]: event.currentTarget.value })}
          />
        ))}
        <Button type="submit">Filter</Button>
      </Group>
    </form>
  );
}

/**
 * The API's cursor pages, newest first: the cursors walked so far (Newer goes back one), the
 * one to send, and the Newer / Older buttons for a page's `next_cursor`.
 */
export function useCursorPages(): { cursor: string | undefined; reset: () => void; pager: (next: string | null | undefined) => ReactNode } {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors.at(-1),
    reset: () => setCursors([]),
    // Shown only when there is another page to go to.
    pager: (next) =>
      cursors.length === 0 && !next ? null : (
        <Group mt="md">
          <Button variant="default" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </Button>
          <Button variant="default" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
            Older
          </Button>
        </Group>
      ),
  };
}

/**
 * The API's offset pages (`offset`, and `limit` where the route takes one): Previous / Next, and
 * where the API counts (`total_count`) the range shown. Without a count, a full page means more.
 */
export function useOffsetPages(size: number): {
  offset: number;
  reset: () => void;
  pager: (shown: number, total?: number) => ReactNode;
} {
  const [offset, setOffset] = useState(0);
  return {
    offset,
    reset: () => setOffset(0),
    pager: (shown, total) => {
      const more = total === undefined ? shown >= size : offset + shown < total;
      if (offset === 0 && !more) return null;
      return (
        <Group mt="md">
          <Button variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - size))}>
            Previous
          </Button>
          <Button variant="default" disabled={!more} onClick={() => setOffset(offset + size)}>
            Next
          </Button>
          <Text size="sm" c="dimmed">
            {shown === 0 ? 'none' : `${offset + 1}–${offset + shown}`}
            {total === undefined ? '' : ` of ${total}`}
          </Text>
        </Group>
      );
    },
  };
}
