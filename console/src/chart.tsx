/**
 * A time-series chart drawn by uPlot. The instance is registered in `window.adxConsole.charts`
 * under its name, so the data it drew can be read from the page (the browser tests do). The
 * figure has a text summary for screen readers (latest and peak values of each series).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** One line of a chart. */
export interface ChartSeries {
  label: string;
  /** One value per x, or null for no value. */
  values: Array<number | null>;
  color: string;
  dash?: number[];
}

declare global {
  interface Window {
    adxConsole?: { charts: Record<string, uPlot> };
  }
}

function registry(): Record<string, uPlot> {
  window.adxConsole ??= { charts: {} };
  return window.adxConsole.charts;
}

/** Formats a value with the chart's unit for the summary and the axis. */
export type ValueFormat = (value: number) => string;

/** See the module comment. `x` is seconds since the epoch (bucket starts). */
export function Chart(props: { name: string; title: string; x: number[]; series: ChartSeries[]; format: ValueFormat; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = props.series.map((s) => s.label).join('|');

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(260, el.clientWidth),
      height: props.height ?? 180,
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [{ stroke: '#444', grid: { stroke: '#eee' } }, { stroke: '#444', grid: { stroke: '#eee' }, size: 64, values: (_u, splits) => splits.map((v) => props.format(v)) }],
      // Points show where the data is sparse (uPlot's default), and lines span minutes without
      // traffic (null: a rate with no denominator), so a lone busy minute is still visible.
      series: [{}, ...props.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, dash: s.dash, spanGaps: true }))],
    };
    const u = new uPlot(opts, [props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData, el);
    plot.current = u;
    registry()[props.name] = u;
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(260, el.clientWidth), height: props.height ?? 180 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
      if (registry()[props.name] === u) delete registry()[props.name];
    };
    // Rebuilt only when the set of lines changes; data updates go through setData below.
  }, [props.name, shape]);

  useEffect(() => {
    plot.current?.setData([props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData);
  }, [props.x, props.series]);

  const summary = props.series
    .map((s) => {
      const values = s.values.filter((v): v is number => v !== null);
      const last = values.length > 0 ? (values[values.length - 1] as number) : 0;
      const peak = values.length > 0 ? Math.max(...values) : 0;
      return `${s.label}: latest ${props.format(last)}, peak ${props.format(peak)}`;
    })
    .join('; ');

  return (
    <figure class="chart" data-chart={props.name}>
      <figcaption>{props.title}</figcaption>
      <div ref={host} class="chart-host" role="img" aria-label={`${props.title}. ${summary}`} />
    </figure>
  );
}
