import { Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { DataTable } from '../data-table';
import { formatCount } from '../format';
import { perMillion, perToken, isDecimal } from '../prices';
import { canEditCatalog, useSession } from '../session';
import { ErrorNote, PageHeader, useLoad } from '../ui';
import type { CatalogModel, Model } from './shapes';

/** Members read what they can call and its price; the operator edits the catalog's prices. */
export function ModelsPage() {
  return canEditCatalog(useSession()) ? <CatalogPrices /> : <ModelPrices />;
}

function ModelPrices() {
  const state = useLoad(() => api<{ data: Model[] }>('/v1/models'));
  return (
    <>
      <PageHeader title="Models & prices" docs="GET /v1/models" />
      <DataTable
        state={state}
        rows={(list) => list.data}
        empty="No models are routed by this gateway."
        rowKey={(model) => model.id}
        rowTestId="model-row"
        minWidth={640}
        columns={[
          { header: 'Model', cell: (model) => <Code>{model.id}</Code> },
          { header: 'Name', cell: (model) => model.name },
          { header: 'Context', cell: (model) => formatCount(model.context_length) },
          { header: 'Prompt / 1M tokens', testId: 'model-prompt-price', cell: (model) => `$${perMillion(model.pricing.prompt)}` },
          { header: 'Completion / 1M tokens', cell: (model) => `$${perMillion(model.pricing.completion)}` },
          { header: 'Cache read / 1M tokens', cell: (model) => `$${perMillion(model.pricing.input_cache_read)}` },
        ]}
      />
    </>
  );
}

interface EndpointRow {
  model: CatalogModel;
  index: number;
}

/** The operator's catalog (`/v1/admin/models`): one row per endpoint, its prices editable (a new catalog version). */
function CatalogPrices() {
  const state = useLoad(() => api<{ version: number; data: CatalogModel[] }>('/v1/admin/models'));
  const [editing, setEditing] = useState<EndpointRow | null>(null);
  const endpoint = (row: EndpointRow) => row.model.endpoints[row.index]!;
  return (
    <>
      <PageHeader title="Models & prices" docs="GET /v1/admin/models, PUT /v1/admin/models/{id}" />
      <DataTable
        state={state}
        rows={(list) => list.data.flatMap((model) => model.endpoints.map((_, index) => ({ model, index })))}
        empty="The catalog has no models."
        rowKey={(row) => `${row.model.id}#${row.index}`}
        rowTestId="model-row"
        minWidth={720}
        columns={[
          { header: 'Model', cell: (row) => <Code>{row.model.id}</Code> },
          { header: 'Provider', cell: (row) => endpoint(row).provider },
          { header: 'Upstream model', cell: (row) => endpoint(row).upstreamModel },
          { header: 'Prompt / 1M tokens', testId: 'model-prompt-price', cell: (row) => `$${perMillion(endpoint(row).pricing.prompt)}` },
          { header: 'Completion / 1M tokens', cell: (row) => `$${perMillion(endpoint(row).pricing.completion)}` },
          {
            header: 'Actions',
            cell: (row) => (
              <Button
                size="xs"
                variant="default"
                aria-label={`Edit prices of ${row.model.id} at ${endpoint(row).provider}`}
                onClick={() => setEditing(row)}
              >
                Edit prices
              </Button>
            ),
          },
        ]}
      />
      {editing && state.data && (
        <EditPrices
          row={editing}
          version={state.data.version}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            state.reload();
          }}
        />
      )}
    </>
  );
}

function EditPrices({ row, version, onClose, onSaved }: { row: EndpointRow; version: number; onClose: () => void; onSaved: () => void }) {
  const pricing = row.model.endpoints[row.index]!.pricing;
  const [prompt, setPrompt] = useState(perMillion(pricing.prompt));
  const [completion, setCompletion] = useState(perMillion(pricing.completion));
  const [error, setError] = useState<Error | null>(null);
  const valid = isDecimal(prompt) && isDecimal(completion);
  const save = () => {
    const endpoints = row.model.endpoints.map((endpoint, index) =>
      index === row.index
        ? { ...endpoint, pricing: { ...endpoint.pricing, prompt: perToken(prompt), completion: perToken(completion) } }
        : endpoint,
    );
    const path = row.model.id.split('/').map(encodeURIComponent).join('/');
    // If-Match: a change made meanwhile by another operator is refused (409) rather than overwritten.
    api(`/v1/admin/models/${path}`, { method: 'PUT', body: { ...row.model, endpoints }, headers: { 'if-match': String(version) } }).then(
      onSaved,
      setError,
    );
  };
  return (
    <Modal opened onClose={onClose} title={`Prices of ${row.model.id}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save();
        }}
      >
        <Stack>
          {error && <ErrorNote error={error} />}
          <Text size="sm">
            At {row.model.endpoints[row.index]!.provider}, in US dollars per million tokens. Saving makes a new catalog version.
          </Text>
          <TextInput
            label="Prompt, per 1M tokens"
            value={prompt}
            onChange={(event) => setPrompt(event.currentTarget.value)}
            error={!isDecimal(prompt) && 'A decimal, e.g. 0.15'}
          />
          <TextInput
            label="Completion, per 1M tokens"
            value={completion}
            onChange={(event) => setCompletion(event.currentTarget.value)}
            error={!isDecimal(completion) && 'A decimal, e.g. 0.6'}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!valid}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
