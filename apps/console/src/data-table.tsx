import { Table, type TableTdProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { Loadable, type Loaded } from './ui';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  td?: TableTdProps;
  testId?: string;
}

interface RowsProps<T> {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  /** Wide tables scroll sideways on a phone instead of squeezing their columns. */
  minWidth?: number;
  rowTestId?: string;
  highlightOnHover?: boolean;
}

/** A plain table of rows already at hand. */
export function RowsTable<T>({ rows, columns, rowKey, minWidth = 0, rowTestId, highlightOnHover }: RowsProps<T>) {
  return (
    // The viewport takes focus so a table wider than the screen scrolls sideways from the keyboard too.
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}>
      <Table striped highlightOnHover={highlightOnHover}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.header}>{column.header}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)} data-testid={rowTestId}>
              {columns.map((column) => (
                <Table.Td key={column.header} data-testid={column.testId} {...column.td}>
                  {column.cell(row)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A list page's table: loading, error in words, empty, then the rows (and what goes under them: pages). */
export function DataTable<P, T>({
  state,
  rows,
  empty,
  footer,
  ...table
}: Omit<RowsProps<T>, 'rows'> & {
  state: Loaded<P>;
  rows: (data: P) => T[];
  empty: string;
  footer?: (data: P) => ReactNode;
}) {
  return (
    <Loadable state={state} empty={empty} isEmpty={(data) => rows(data).length === 0}>
      {(data) => (
        <>
          <RowsTable rows={rows(data)} {...table} />
          {footer?.(data)}
        </>
      )}
    </Loadable>
  );
}
