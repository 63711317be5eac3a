import { Badge, Code, Group, Select, SimpleGrid, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { DataTable } from '../data-table';
import { formatTime } from '../format';
import { useOffsetPages } from '../list-controls';
import { Loadable, PageHeader, useLoad } from '../ui';
import type { Page, Preset, PresetVersion } from './shapes';

const PAGE_SIZE = 100;

export function PresetsPage() {
  const pages = useOffsetPages(PAGE_SIZE);
  const state = useLoad(() => api<Page<Preset>>(`/v1/presets?limit=${PAGE_SIZE}&offset=${pages.offset}`), String(pages.offset));
  const [slug, setSlug] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Presets" docs="GET /v1/presets, GET /v1/presets/{slug}/versions" />
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No presets yet."
        rowKey={(preset) => preset.id}
        minWidth={560}
        highlightOnHover
        columns={[
          {
            header: 'Name',
            cell: (preset) => (
              <Text
                component="button"
                type="button"
                c="indigo"
                onClick={() => setSlug(preset.slug)}
                style={{ background: 'none', border: 0, cursor: 'pointer' }}
              >
                {preset.name}
              </Text>
            ),
          },
          { header: 'Slug', cell: (preset) => <Code>@preset/{preset.slug}</Code> },
          { header: 'Version', cell: (preset) => `v${preset.designated_version.version}` },
          { header: 'Status', cell: (preset) => <Badge variant="light">{preset.status}</Badge> },
          { header: 'Updated', cell: (preset) => formatTime(preset.updated_at) },
        ]}
        footer={(page) => pages.pager(page.data.length, page.total_count)}
      />
      {slug && <PresetVersions slug={slug} />}
    </>
  );
}

/** The preset's versions and a line diff between any two of them. */
function PresetVersions({ slug }: { slug: string }) {
  const state = useLoad(() => api<Page<PresetVersion>>(`/v1/presets/${encodeURIComponent(slug)}/versions?limit=100`), slug);
  const [left, setLeft] = useState<string | null>(null);
  const [right, setRight] = useState<string | null>(null);
  return (
    <>
      <Title order={2} size="h4" mt="lg" mb="sm">
        Versions of @preset/{slug}
      </Title>
      <Loadable state={state} empty="No versions.">
        {(page) => {
          // Newest first in the pickers; by default the newest against the one before it (the API lists oldest first).
          const versions = [...page.data].sort((x, y) => y.version - x.version);
          const options = versions.map((version) => ({
            value: String(version.version),
            label: `v${version.version} · ${formatTime(version.created_at)}`,
          }));
          const pick = (value: string | null) => versions.find((version) => String(version.version) === value);
          const a = pick(left ?? options[1]?.value ?? options[0]?.value ?? null);
          const b = pick(right ?? options[0]?.value ?? null);
          return (
            <>
              <Group mb="sm">
                <Select label="From" data={options} value={a ? String(a.version) : null} onChange={setLeft} />
                <Select label="To" data={options} value={b ? String(b.version) : null} onChange={setRight} />
              </Group>
              {a && b && <Diff from={render(a)} to={render(b)} />}
            </>
          );
        }}
      </Loadable>
    </>
  );
}

const render = (version: PresetVersion) => JSON.stringify({ system_prompt: version.system_prompt, ...version.config }, null, 2).split('\n');

/** Lines removed and added, by a longest common subsequence (versions are short). */
function Diff({ from, to }: { from: string[]; to: string[] }) {
  const lengths = from.map(() => new Array<number>(to.length + 1).fill(0));
  lengths.push(new Array<number>(to.length + 1).fill(0));
  for (let i = from.length - 1; i >= 0; i--) {
    for (let j = to.length - 1; j >= 0; j--) {
      lengths[i]![j] = from[i] === to[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const lines: { sign: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < from.length || j < to.length) {
    if (i < from.length && j < to.length && from[i] === to[j]) {
      lines.push({ sign: ' ', text: from[i++]! });
      j++;
    } else if (j < to.length && (i >= from.length || lengths[i]![j + 1]! >= lengths[i + 1]![j]!)) lines.push({ sign: '+', text: to[j++]! });
    else lines.push({ sign: '-', text: from[i++]! });
  }
  return (
    <SimpleGrid cols={1}>
      <Code block aria-label="Differences between the two versions">
        {lines.map((line, index) => (
          <div
            key={index}
            // Tinted lines in the text's own colour: green or red text on the code block falls under WCAG AA (axe).
            style={{
              backgroundColor:
                line.sign === '+' ? 'var(--mantine-color-green-light)' : line.sign === '-' ? 'var(--mantine-color-red-light)' : undefined,
            }}
          >
            {line.sign} {line.text}
          </div>
        ))}
      </Code>
    </SimpleGrid>
  );
}
