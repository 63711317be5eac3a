import { Alert, Anchor, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ApiError } from './api';
import { onLinkClick } from './router';

export interface Loaded<T> {
  data: T | null;
  error: ApiError | Error | null;
  loading: boolean;
  reload: () => void;
}

/** Loads on mount and whenever `key` changes; `reload` after a write. */
export function useLoad<T>(load: () => Promise<T>, key = ''): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: Error | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true, error: null }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: Error) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { ...state, reload };
}

/** A write's failure, kept to show in words; the page reloads after a write that worked. */
export function useWrite(reload: () => void) {
  const [error, setError] = useState<Error | null>(null);
  const act = async (write: () => Promise<unknown>) => {
    setError(null);
    try {
      await write();
      reload();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return { error, act, setError };
}

/**
 * Every page's title and its link into the API reference, opened at the first operation `docs`
 * names ("GET /v1/keys, POST /v1/keys"): what the page does, a script can do.
 */
export function PageHeader({ title, docs, children }: { title: string; docs?: string; children?: ReactNode }) {
  const reference = docs && `/docs?operation=${encodeURIComponent(docs.split(',')[0]!.trim())}`;
  return (
    <Group justify="space-between" align="flex-end" mb="md" wrap="wrap">
      <Stack gap={2}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {reference && (
          <Anchor href={`/console${reference}`} onClick={onLinkClick(reference)} size="sm">
            API reference: {docs}
          </Anchor>
        )}
      </Stack>
      <Group gap="xs">{children}</Group>
    </Group>
  );
}

/** Loading, error (in words) and empty states around a page's content. */
export function Loadable<T>({
  state,
  empty,
  isEmpty,
  children,
}: {
  state: Loaded<T>;
  empty: string;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (state.loading && state.data === null) {
    return (
      <Center py="xl" role="status" aria-live="polite">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (state.error) return <ErrorNote error={state.error} />;
  if (state.data === null) return null;
  if (isEmpty?.(state.data)) {
    return (
      <Text c="dimmed" py="lg" role="status">
        {empty}
      </Text>
    );
  }
  return <>{children(state.data)}</>;
}

export function ErrorNote({ error }: { error: Error }) {
  const status = error instanceof ApiError ? error.status : undefined;
  const title =
    status === 404
      ? 'Not found'
      : status === 403
        ? 'Your role does not allow this'
        : status === 400
          ? 'The API refused a value'
          : status !== undefined && status >= 500
            ? 'The gateway could not answer'
            : 'Something went wrong';
  return (
    <Alert color={status === 404 ? 'gray' : 'red'} title={title} role="alert">
      {error.message}
    </Alert>
  );
}
