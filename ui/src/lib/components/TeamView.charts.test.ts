// The Team view's charts with a canvas that has a context, and Chart.js replaced by a stand-in that
// records what it was asked to draw: one chart per figure set, made from `team.ts`'s configurations,
// each destroyed before it is made again (another period, theme or language) and when the view goes.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { ChartConfiguration } from 'chart.js';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { pageTheme } from '../theme.svelte';
import { FakeBackend, makeTeamStats } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import TeamView from './TeamView.svelte';

type Drawn = { canvas: HTMLCanvasElement; config: ChartConfiguration; destroyed: number };
const drawn = vi.hoisted(() => [] as Drawn[]);

vi.mock('chart.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('chart.js')>();
  class FakeChart {
    static register() {}
    private readonly entry: Drawn;
    constructor(ctx: { canvas: HTMLCanvasElement }, config: ChartConfiguration) {
      this.entry = { canvas: ctx.canvas, config, destroyed: 0 };
      drawn.push(this.entry);
    }
    destroy() {
      this.entry.destroyed++;
    }
  }
  return { ...real, Chart: FakeChart };
});

beforeEach(() => {
  drawn.length = 0;
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(function (this: HTMLCanvasElement) {
    return { canvas: this } as unknown as CanvasRenderingContext2D;
  });
});

afterEach(() => {
  i18n.set('system');
  flushSync();
  localStorage.clear();
  vi.restoreAllMocks();
});

const alive = () => drawn.filter((d) => d.destroyed === 0);
const byCanvas = (target: HTMLElement, id: string) => alive().filter((d) => d.canvas === target.querySelector(`[data-testid="${id}-canvas"]`));

async function render(backend: FakeBackend) {
  const mounted = mountInBody(TeamView, { props: {}, context: backendContext(backend) });
  await settle();
  const tid = (id: string) => mounted.target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { ...mounted, tid };
}

describe('TeamView charts', () => {
  it('draws the three charts on their canvases from the figures, with the tables closed', async () => {
    const { target, tid } = await render(new FakeBackend());
    expect(alive()).toHaveLength(3);
    const [tools] = byCanvas(target, 'team-tools');
    expect(tools.config.type).toBe('bar');
    expect(tools.config.data.labels).toEqual(['delete_record']);
    expect(tools.config.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['p50 (median)', [41.5]],
      ['p90', [300]],
    ]);
    const [operators] = byCanvas(target, 'team-operators');
    expect(operators.config.data.labels).toEqual(['alice (web)']);
    expect(operators.config.data.datasets.map((d) => d.data)).toEqual([[20], [95]]);
    const [pending] = byCanvas(target, 'team-pending');
    expect(pending.config.type).toBe('line');
    expect(pending.config.data.datasets[0].data).toEqual([1, 4]);
    for (const id of ['team-tools', 'team-operators', 'team-pending']) {
      expect(tid(id)!.dataset.drawn, id).toBe('true');
      expect(tid(`${id}-canvas`)!.closest('[hidden]'), id).toBeNull();
      expect((tid(`${id}-numbers`) as HTMLDetailsElement).open, id).toBe(false);
      const box = tid(`${id}-canvas`)!.parentElement!;
      expect(box.getAttribute('role'), id).toBe('img');
      expect(box.getAttribute('aria-label'), id).toMatch(/: chart\. The same numbers are in the table that follows\.$/);
    }
  });

  it("draws the time to decision by channel day by day (p50 and p90) on its own canvas, and again for another period", async () => {
    const backend = new FakeBackend();
    backend.reachFigures = (days) => ({
      days,
      byChannel: [{ key: 'alice-hook', calls: 3, p50Secs: 45, p90Secs: 240 }],
      byPerson: [],
      byRule: [],
      byDay: [
        { key: '2026-12-06', calls: 1, p50Secs: 60, p90Secs: 60 },
        { key: '2026-12-07', calls: 2, p50Secs: days, p90Secs: 3600 },
      ],
    });
    const { target, tid } = await render(backend);
    expect(alive()).toHaveLength(4);
    const [reach] = byCanvas(target, 'reach-chart');
    expect(reach.config.type).toBe('line');
    expect(reach.config.data.labels).toEqual(['Dec 6', 'Dec 7']);
    expect(reach.config.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['p50 (median)', [60, 7]],
      ['p90', [60, 3600]],
    ]);
    expect(tid('reach-chart')!.dataset.drawn).toBe('true');
    expect((tid('reach-chart-numbers') as HTMLDetailsElement).open).toBe(false);
    (target.querySelector('[data-testid="team-period"][data-days="30"]') as HTMLButtonElement).click();
    await settle();
    expect(reach.destroyed).toBe(1);
    expect(byCanvas(target, 'reach-chart')[0].config.data.datasets[0].data).toEqual([60, 30]);
  });

  it('destroys the charts before drawing those of another period, and destroys them all when the view goes', async () => {
    const backend = new FakeBackend();
    backend.teamStats = (days) =>
      makeTeamStats({ byTool: [{ tool: `tool_${days}`, decided: 1, p50Secs: days, p90Secs: days * 2, declined: 0, expired: 0 }] });
    const { target, unmount } = await render(backend);
    const first = [...drawn];
    expect(first).toHaveLength(3);
    (target.querySelector('[data-testid="team-period"][data-days="30"]') as HTMLButtonElement).click();
    await settle();
    expect(first.every((d) => d.destroyed === 1)).toBe(true);
    expect(alive()).toHaveLength(3);
    expect(byCanvas(target, 'team-tools')[0].config.data.labels).toEqual(['tool_30']);
    unmount();
    expect(drawn.every((d) => d.destroyed === 1)).toBe(true);
  });

  it('draws again in the palette of a new theme, the old charts destroyed', async () => {
    const root = document.documentElement;
    try {
      root.style.setProperty('--accent', '#1f5fbf');
      const { target } = await render(new FakeBackend());
      const first = [...drawn];
      expect(byCanvas(target, 'team-tools')[0].config.data.datasets[0].backgroundColor).toBe('#1f5fbf');
      // What app.css's dark palette says, as the page would compute it.
      root.style.setProperty('--accent', '#7fb0ff');
      root.style.setProperty('--warn', '#ffcc80');
      pageTheme.set('dark');
      flushSync();
      await settle();
      expect(first.every((d) => d.destroyed === 1)).toBe(true);
      const [tools] = byCanvas(target, 'team-tools');
      expect(tools.config.data.datasets.map((d) => d.backgroundColor)).toEqual(['#7fb0ff', '#ffcc80']);
    } finally {
      pageTheme.set('system');
      flushSync();
      root.style.removeProperty('--accent');
      root.style.removeProperty('--warn');
      root.removeAttribute('data-theme');
    }
  });

  it('draws again in the new language, the old charts destroyed', async () => {
    const { target } = await render(new FakeBackend());
    const first = [...drawn];
    i18n.set('ja');
    flushSync();
    await settle();
    expect(first.every((d) => d.destroyed === 1)).toBe(true);
    expect(alive()).toHaveLength(3);
    expect(byCanvas(target, 'team-tools')[0].config.data.datasets[0].label).toBe('p50（中央値）');
  });
});
