import { Autocomplete, Button, Group, Select, SimpleGrid, TextInput } from '@mantine/core';
import { useState } from 'react';
import {
  FINISH_REASONS,
  GENERATION_API_TYPES,
  GENERATION_FILTERS,
  GENERATION_STATUSES,
  fromLocalInput,
  toLocalInput,
  type GenerationFilter,
} from './generation-query';

type Values = Record<GenerationFilter, string>;

/**
 * Every filter of `GET /v1/generations`, applied together on submit: selects for the API's
 * enumerations, the times in the viewer's zone (sent as ISO instants). Values go to the API as
 * typed, so a value it refuses comes back as its 400 in words, not a silent empty list.
 */
export function GenerationFilters({ initial, onApply }: { initial: URLSearchParams; onApply: (filters: URLSearchParams) => void }) {
  const [values, setValues] = useState<Values>(() => {
    const start = Object.fromEntries(GENERATION_FILTERS.map((name) => [name, initial.get(name) ?? ''])) as Values;
    return { ...start, from: toLocalInput(start.from) || start.from, to: toLocalInput(start.to) || start.to };
  });
  const set = (name: GenerationFilter) => (value: string | null) => setValues((previous) => ({ ...previous, [name]: value ?? '' }));
  const text = (name: GenerationFilter, label: string, placeholder?: string) => (
    <TextInput label={label} placeholder={placeholder} value={values[name]} onChange={(event) => set(name)(event.currentTarget.value)} />
  );
  const apply = () => {
    const filters = new URLSearchParams();
    for (const name of GENERATION_FILTERS) {
      const value = name === 'from' || name === 'to' ? fromLocalInput(values[name]) : values[name].trim();
      if (value) filters.set(name, value);
    }
    onApply(filters);
  };
  const clear = () => {
    setValues(Object.fromEntries(GENERATION_FILTERS.map((name) => [name, ''])) as Values);
    onApply(new URLSearchParams());
  };
  return (
    <form
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        apply();
      }}
    >
      <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} mb="sm">
        {text('model', 'Model', 'openai/gpt-4o-mini')}
        {text('provider', 'Provider', 'simulator-openai')}
        <Select
          label="Status"
          placeholder="Any"
          data={GENERATION_STATUSES}
          value={values.status || null}
          onChange={set('status')}
          clearable
        />
        <Autocomplete
          label="Finish reason"
          placeholder="Any"
          data={FINISH_REASONS}
          value={values.finish_reason}
          onChange={set('finish_reason')}
        />
        <Select
          label="API type"
          placeholder="Any"
          data={GENERATION_API_TYPES}
          value={values.api_type || null}
          onChange={set('api_type')}
          clearable
        />
        {text('key_hash', 'Key hash')}
        {text('user_id', 'User id')}
        {text('cost_gt', 'Cost above (USD)', '0.01')}
        <TextInput
          label="From (your time)"
          type="datetime-local"
          step={1}
          value={values.from}
          onChange={(event) => set('from')(event.currentTarget.value)}
        />
        <TextInput
          label="Until (your time)"
          type="datetime-local"
          step={1}
          value={values.to}
          onChange={(event) => set('to')(event.currentTarget.value)}
        />
      </SimpleGrid>
      <Group mb="md">
        <Button type="submit">Filter</Button>
        <Button variant="default" onClick={clear}>
          Clear
        </Button>
      </Group>
    </form>
  );
}
