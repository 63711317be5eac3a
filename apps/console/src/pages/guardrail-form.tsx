import { NumberInput, Select, Switch, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { FormModal, LIMIT_RESETS } from '../form-modal';
import type { Guardrail } from './shapes';

const LIST_FIELDS = [
  { field: 'allowed_models', label: 'Allowed models', hint: 'Model ids, comma-separated; empty: every model' },
  { field: 'ignored_models', label: 'Blocked models', hint: 'Model ids, comma-separated' },
  { field: 'allowed_providers', label: 'Allowed providers', hint: 'Provider names, comma-separated; empty: every provider' },
  { field: 'ignored_providers', label: 'Blocked providers', hint: 'Provider names, comma-separated' },
] as const;

type ListField = (typeof LIST_FIELDS)[number]['field'];

const toList = (text: string): string[] | null => {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length ? items : null;
};

/** Create (guardrail null) or edit a guardrail: every field the gateway enforces, sent whole (an empty field clears it). */
export function GuardrailModal({ guardrail, onClose, onSaved }: { guardrail: Guardrail | null; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(guardrail?.name ?? '');
  const [description, setDescription] = useState(guardrail?.description ?? '');
  const [limit, setLimit] = useState<string | number>(guardrail?.limit_usd ?? '');
  const [reset, setReset] = useState<string | null>(guardrail?.reset_interval ?? null);
  const [byok, setByok] = useState(guardrail?.include_byok_in_budgets ?? false);
  const [lists, setLists] = useState<Record<ListField, string>>(
    Object.fromEntries(LIST_FIELDS.map(({ field }) => [field, guardrail?.[field]?.join(', ') ?? ''])) as Record<ListField, string>,
  );
  const submit = async () => {
    const body = {
      name,
      description: description.trim() || null,
      limit_usd: limit === '' ? null : Number(limit),
      reset_interval: reset,
      include_byok_in_budgets: byok,
      ...Object.fromEntries(LIST_FIELDS.map(({ field }) => [field, toList(lists[field])])),
    };
    await (guardrail ? api(`/v1/guardrails/${guardrail.id}`, { method: 'PATCH', body }) : api('/v1/guardrails', { method: 'POST', body }));
    onSaved();
  };
  return (
    <FormModal
      title={guardrail ? `Edit guardrail ${guardrail.name}` : 'Create a guardrail'}
      submit={guardrail ? 'Save' : 'Create'}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
      <TextInput label="Description" value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
      <NumberInput label="Spend limit (USD)" min={0} decimalScale={6} value={limit} onChange={setLimit} />
      <Select label="Limit resets" clearable data={LIMIT_RESETS} value={reset} onChange={setReset} />
      <Switch label="BYOK usage counts against the limit" checked={byok} onChange={(event) => setByok(event.currentTarget.checked)} />
      {LIST_FIELDS.map(({ field, label, hint }) => (
        <TextInput
          key={field}
          label={label}
          description={hint}
          value={lists[field]}
          onChange={(event) => setLists({ ...lists, [field]: event.currentTarget.value })}
        />
      ))}
    </FormModal>
  );
}
