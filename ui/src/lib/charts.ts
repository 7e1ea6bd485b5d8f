/**
 * Chart.js for the Team view: only the parts its charts use are registered (bars, lines, the
 * category and linear axes, legend, tooltips), so the rest stays out of the bundle. A chart is drawn
 * only where the canvas has a 2D context (not in jsdom, nor in a browser without canvas: the view
 * then shows its tables open instead). Chart.js sets the canvas size through the CSSOM and adds no
 * `<style>`, so the server's CSP (`style-src 'self'`) holds.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';
import type { ChartTheme } from './team';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend);

/** What the view keeps of a chart: something to destroy. */
export type DrawnChart = { destroy(): void };

/** Draws `config` on `canvas`; `null` when the canvas has no 2D context. */
export function drawChart(canvas: HTMLCanvasElement, config: ChartConfiguration): DrawnChart | null {
  let ctx: CanvasRenderingContext2D | null = null;
  try {
    ctx = canvas.getContext('2d');
  } catch {
    ctx = null;
  }
  if (!ctx) return null;
  return new Chart(ctx, config);
}

/** The page's palette (app.css) as a chart's colours; the light palette's values where a property is not set. */
export function readChartTheme(root: Element = document.documentElement): ChartTheme {
  const style = getComputedStyle(root);
  const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const body = document.body ? getComputedStyle(document.body).fontFamily : '';
  const reduce = typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  return {
    series: [v('--accent', '#1f5fbf'), v('--warn', '#8a5300')],
    text: v('--muted', '#5f6368'),
    grid: v('--border', '#d5d7da'),
    font: body || "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', sans-serif",
    animate: !reduce,
  };
}
