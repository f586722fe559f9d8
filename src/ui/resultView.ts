/**
 * The A/B result card: verdict, a small bar chart (baseline vs candidate, end-to-end and
 * device-only), speedup, match status, first-run (compile) time and the reason when the GPU
 * loses. The same card is drawn in the side panel after a Benchmark and, through the MIME
 * renderer below, in `%%gpuoptimize` cell outputs (AB_MIME).
 *
 * Built with plain DOM and inline SVG so it needs no chart library; every colour comes from
 * CSS classes that use JupyterLab's theme variables (style/base.css).
 */
import { IRenderMime } from '@jupyterlab/rendermime';
import { Widget } from '@lumino/widgets';
import { ABResult, AB_MIME, ProtocolError, SideStats, validateABResult } from '../kernel/protocol';
import { element } from './dom';
import {
  describeMatch,
  formatBytes,
  formatSeconds,
  formatSpeedup,
  verdictHeadline,
  verdictTone
} from './format';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** One bar of the chart. */
export interface ChartBar {
  label: string;
  seconds: number;
  kind: 'baseline' | 'candidate';
}

/** The bars worth drawing: end-to-end medians always, device-only times where measured. */
export function chartBars(result: ABResult): ChartBar[] {
  const bars: ChartBar[] = [];
  const add = (label: string, seconds: number | null, kind: ChartBar['kind']) => {
    if (seconds !== null && Number.isFinite(seconds) && seconds > 0) {
      bars.push({ label, seconds, kind });
    }
  };
  add('CPU, end to end', result.baseline.median_s, 'baseline');
  add('GPU, end to end', result.candidate.median_s, 'candidate');
  add('CPU, compute', result.baseline.device_s, 'baseline');
  add('GPU, device only', result.candidate.device_s, 'candidate');
  return bars;
}

/** A horizontal bar chart of median times; shorter is better. */
export function renderTimingChart(bars: ChartBar[]): SVGSVGElement {
  const rowHeight = 22;
  const labelWidth = 100;
  const valueWidth = 56;
  const width = 260;
  const barArea = width - labelWidth - valueWidth;
  const height = bars.length * rowHeight + 4;
  const longest = Math.max(...bars.map(b => b.seconds));

  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('class', 'jp-gpuoptimize-chart');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  // Natural size (text stays at UI size); CSS lets it shrink in a narrow panel.
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('role', 'img');
  const summary = bars.map(b => `${b.label}: ${formatSeconds(b.seconds)}`).join('; ');
  svg.setAttribute('aria-label', `Median run time, shorter is better. ${summary}`);
  const title = document.createElementNS(SVG_NS, 'title');
  title.textContent = `Median run time (shorter is better). ${summary}`;
  svg.appendChild(title);

  bars.forEach((bar, i) => {
    const y = i * rowHeight + 2;
    const label = document.createElementNS(SVG_NS, 'text');
    label.setAttribute('x', '0');
    label.setAttribute('y', String(y + rowHeight / 2 + 4));
    label.setAttribute('class', 'jp-gpuoptimize-chart-label');
    label.textContent = bar.label;
    svg.appendChild(label);

    // At least a sliver, so a tiny time is still visible next to a huge one.
    const barWidth = Math.max(2, (bar.seconds / longest) * barArea);
    const rect = document.createElementNS(SVG_NS, 'rect');
    rect.setAttribute('x', String(labelWidth));
    rect.setAttribute('y', String(y + 3));
    rect.setAttribute('width', String(barWidth));
    rect.setAttribute('height', String(rowHeight - 8));
    rect.setAttribute('rx', '2');
    rect.setAttribute('class', `jp-gpuoptimize-chart-bar jp-gpuoptimize-chart-bar-${bar.kind}`);
    svg.appendChild(rect);

    const value = document.createElementNS(SVG_NS, 'text');
    value.setAttribute('x', String(labelWidth + barWidth + 4));
    value.setAttribute('y', String(y + rowHeight / 2 + 4));
    value.setAttribute('class', 'jp-gpuoptimize-chart-value');
    value.textContent = formatSeconds(bar.seconds);
    svg.appendChild(value);
  });
  return svg;
}

/** A label/value row of the card's facts list. */
function fact(list: HTMLDListElement, label: string, value: string): void {
  list.appendChild(element('dt', 'jp-gpuoptimize-fact-label', label));
  list.appendChild(element('dd', 'jp-gpuoptimize-fact-value', value));
}

function sideSummary(side: SideStats): string {
  if (side.status !== 'ok') {
    return side.error ? `${side.status}: ${side.error}` : side.status;
  }
  const spread = side.iqr_s !== null ? ` ± ${formatSeconds(side.iqr_s / 2)}` : '';
  return `median ${formatSeconds(side.median_s)}${spread} over ${side.runs} run${side.runs === 1 ? '' : 's'}`;
}

/** The whole card as a DOM tree. */
export function renderABResult(result: ABResult): HTMLElement {
  const card = element('section', 'jp-gpuoptimize-result');
  card.dataset.verdict = result.verdict;
  card.classList.add(`jp-gpuoptimize-tone-${verdictTone(result.verdict)}`);
  card.setAttribute('aria-label', `Benchmark result: ${verdictHeadline(result)}`);

  const header = element('div', 'jp-gpuoptimize-result-header');
  header.appendChild(element('strong', 'jp-gpuoptimize-result-verdict', verdictHeadline(result)));
  if (result.device) {
    header.appendChild(element('span', 'jp-gpuoptimize-result-device', result.device.name));
  }
  card.appendChild(header);

  if (result.reason) {
    card.appendChild(element('p', 'jp-gpuoptimize-result-reason', result.reason));
  }

  const bars = chartBars(result);
  if (bars.length > 0) {
    card.appendChild(renderTimingChart(bars));
  }

  const facts = element('dl', 'jp-gpuoptimize-result-facts');
  if (result.speedup.end_to_end !== null) {
    const ci = result.speedup.ci95
      ? ` (95% CI ${formatSpeedup(result.speedup.ci95[0])}–${formatSpeedup(result.speedup.ci95[1])})`
      : '';
    fact(facts, 'Speedup, end to end', `${formatSpeedup(result.speedup.end_to_end)}${ci}`);
  }
  if (result.speedup.device !== null) {
    fact(facts, 'Speedup, device only', formatSpeedup(result.speedup.device));
  }
  fact(facts, 'Match', describeMatch(result));
  fact(facts, 'CPU original', sideSummary(result.baseline));
  fact(facts, 'GPU rewrite', sideSummary(result.candidate));
  if (result.baseline.first_run_s !== null || result.candidate.first_run_s !== null) {
    fact(
      facts,
      'First run (compile, warm-up)',
      `CPU ${formatSeconds(result.baseline.first_run_s)}, GPU ${formatSeconds(result.candidate.first_run_s)}`
    );
  }
  if (result.candidate.transfer_s !== null) {
    fact(facts, 'Host↔device copies per run', formatSeconds(result.candidate.transfer_s));
  }
  if (result.candidate.peak_device_bytes !== null) {
    fact(facts, 'Peak device memory', formatBytes(result.candidate.peak_device_bytes));
  }
  const versions = Object.entries(result.versions)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  if (versions) {
    fact(facts, 'Versions', versions);
  }
  card.appendChild(facts);

  if (result.stale) {
    card.appendChild(
      element(
        'p',
        'jp-gpuoptimize-result-warning',
        'The cell was edited while this ran: the figures are for the text it had before.'
      )
    );
  }
  if (result.warnings.length > 0) {
    const list = element('ul', 'jp-gpuoptimize-result-warnings');
    list.setAttribute('aria-label', 'Warnings');
    for (const warning of result.warnings) {
      list.appendChild(element('li', 'jp-gpuoptimize-result-warning', String(warning)));
    }
    card.appendChild(list);
  }
  return card;
}

/** Renders AB_MIME outputs (`%%gpuoptimize --json` and the magic's rich display). */
export class ABResultMimeRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private readonly _mimeType: string) {
    super();
    this.addClass('jp-gpuoptimize-mime');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[this._mimeType];
    this.node.textContent = '';
    try {
      this.node.appendChild(renderABResult(validateABResult(data)));
    } catch (err) {
      const why = err instanceof ProtocolError ? err.message : String(err);
      this.node.appendChild(
        element(
          'p',
          'jp-gpuoptimize-result-error',
          `This benchmark result could not be shown: it is not in the format this extension understands (${why}). Check that the kernel's gpuoptimize package and the JupyterLab extension have the same version.`
        )
      );
    }
  }
}

/** The renderer factory registered with IRenderMimeRegistry for AB_MIME. */
export const abResultRendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [AB_MIME],
  defaultRank: 50,
  createRenderer: options => new ABResultMimeRenderer(options.mimeType)
};
