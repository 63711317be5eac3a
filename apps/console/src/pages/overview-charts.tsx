import { BarChart } from '@mantine/charts';
import { Card, Text, Title } from '@mantine/core';

export function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        {title}
      </Title>
      <figure style={{ margin: 0 }} aria-label={title}>
        {children}
      </figure>
    </Card>
  );
}

interface BreakdownChartProps<Row extends object> {
  title: string;
  data: Row[];
  series: Array<{ name: string; color: string }>;
  valueFormatter?: (value: number) => string;
  /** Shown instead of an empty chart. */
  empty?: string;
  /** A line under the chart (a total, a legend). */
  caption?: React.ReactNode;
}

/** One breakdown of the period from the analytics API: a bar per group (`name`), in a titled card. */
export function BreakdownChart<Row extends object>({ title, data, series, valueFormatter, empty, caption }: BreakdownChartProps<Row>) {
  return (
    <ChartCard title={title}>
      {data.length === 0 && empty ? (
        <Text size="sm" c="dimmed" py="xl" ta="center">
          {empty}
        </Text>
      ) : (
        <BarChart
          h={220}
          data={data as Array<Record<string, unknown>>}
          dataKey="name"
          series={series}
          valueFormatter={valueFormatter}
          withLegend={series.length > 1}
        />
      )}
      {caption}
    </ChartCard>
  );
}
