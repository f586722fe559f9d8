/**
 * What the kernel told us about the notebook's names (`inspect`), as the analysis engine's
 * `runtime` map, and how the card says a prediction used it. Pure functions: no widgets, no
 * kernel.
 */
import { ownReport } from '../analysis/notebook';
import type { RuntimeValueInfo, Suggestion } from '../analysis/types';
import type { InspectReply } from '../kernel/protocol';
import { formatBytes } from './format';

function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0;
}

/**
 * The well-formed reports of an inspect reply, for the names asked. Names the kernel does not
 * hold (null) and malformed entries are left out: the engine then falls back to literals.
 */
export function runtimeFromInspect(
  asked: readonly string[],
  values: InspectReply['values']
): Record<string, RuntimeValueInfo> {
  // keyed by Python names: no prototype, so `__proto__` or `constructor` is a name like any other
  const out: Record<string, RuntimeValueInfo> = Object.create(null) as Record<string, RuntimeValueInfo>;
  for (const name of asked) {
    const v: unknown = ownReport(values, name);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      continue;
    }
    const r = v as Record<string, unknown>;
    if (typeof r.type !== 'string' || r.type.length === 0) {
      continue;
    }
    const info: RuntimeValueInfo = { type: r.type };
    if (Array.isArray(r.shape) && r.shape.every(isCount)) {
      info.shape = [...(r.shape as number[])];
    }
    if (typeof r.dtype === 'string') {
      info.dtype = r.dtype;
    }
    if (isCount(r.bytes)) {
      info.bytes = r.bytes;
    }
    if (r.device === 'host' || r.device === 'gpu') {
      info.device = r.device;
    }
    out[name] = info;
  }
  return out;
}

/** True when two runtime maps hold the same reports (key order aside). */
export function sameRuntime(
  a: Readonly<Record<string, RuntimeValueInfo>>,
  b: Readonly<Record<string, RuntimeValueInfo>>
): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) {
    return false;
  }
  return keys.every(k => {
    const x = a[k];
    const y = ownReport(b, k);
    return (
      y !== undefined &&
      x.type === y.type &&
      x.dtype === y.dtype &&
      x.bytes === y.bytes &&
      x.device === y.device &&
      JSON.stringify(x.shape ?? null) === JSON.stringify(y.shape ?? null)
    );
  });
}

/** The names a piece of Python source mentions as identifiers (not attributes). */
function identifiers(source: string): Set<string> {
  const out = new Set<string>();
  for (const m of source.matchAll(/(?<![\w.])[A-Za-z_]\w*/g)) {
    out.add(m[0]);
  }
  return out;
}

/**
 * "size from the kernel: x 114 MiB" when the suggestion's cell reads names the kernel sized
 * (the sized arrays it reads, largest first, at most three); null when none.
 */
export function kernelSizeNote(
  suggestion: Pick<Suggestion, 'original'>,
  runtime: Readonly<Record<string, RuntimeValueInfo>>
): string | null {
  const ids = identifiers(suggestion.original);
  const sized = Object.entries(runtime)
    .filter(([name, info]) => ids.has(name) && info.bytes !== undefined)
    .sort((a, b) => (b[1].bytes ?? 0) - (a[1].bytes ?? 0) || a[0].localeCompare(b[0]));
  if (sized.length === 0) {
    return null;
  }
  const parts = sized.slice(0, 3).map(([name, info]) => `${name} ${formatBytes(info.bytes)}`);
  const more = sized.length > 3 ? ` (+${sized.length - 3} more)` : '';
  return `size from the kernel: ${parts.join(', ')}${more}`;
}
