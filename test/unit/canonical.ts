/**
 * A canonical text of a value, to compare two results as text: one line per value, `path: what`,
 * so that a difference prints as a short line diff naming where it is (jest shows the changed
 * lines with a few around them), instead of the structural comparison `toStrictEqual` makes,
 * which recursed out of the stack once on two analysis results (test/unit/incremental.test.ts).
 *
 * It tells apart what `toStrictEqual` tells apart in plain data: every own enumerable key of an
 * object (one holding `undefined` is not a missing one), array order, holes and length, the
 * class of an object (not a plain one: its constructor's name), -0 and 0, NaN, Infinity,
 * undefined and null; Map entries and Set members in any order (sorted by their text), as
 * `toStrictEqual` takes them. Multi-line strings are one line per line of text. It walks with its
 * own stack (no recursion: any depth), and writes `[Circular <path>]` for a container met again
 * inside itself. Functions are written by name (compared by name, not identity).
 */
export function canonicalText(value: unknown): string {
  const lines: string[] = [];
  emit(value, '$', lines);
  return lines.join('\n');
}

const HOLE: unique symbol = Symbol('hole');

/**
 * Path segments written in full; below that depth a path is its first DEEP segments, the depth
 * and its last segment (the lines, in order, with the depth, still tell the whole structure).
 */
const DEEP = 16;

type Step = { path: string; prefix: string; depth: number; value: unknown } | { close: object };

function emit(root: unknown, rootPath: string, lines: string[]): void {
  // the containers open on the path being written, and where they were opened
  const open = new Map<object, string>();
  const stack: Step[] = [{ path: rootPath, prefix: rootPath, depth: 0, value: root }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if ('close' in step) {
      open.delete(step.close);
      continue;
    }
    const { path, prefix, depth, value } = step;
    const at = (segment: string): [string, string] => (depth < DEEP ? [path + segment, path + segment] : [`${prefix} …(${depth + 1}) ${segment}`, prefix]);
    if (value === HOLE) {
      lines.push(`${path}: <hole>`);
      continue;
    }
    if (typeof value === 'string') {
      const textLines = value.split('\n');
      if (textLines.length === 1) {
        lines.push(`${path}: ${JSON.stringify(value)}`);
      } else {
        lines.push(`${path}: text of ${textLines.length} lines`);
        textLines.forEach(l => lines.push(`${path} | ${JSON.stringify(l)}`));
      }
      continue;
    }
    if (typeof value === 'function') {
      lines.push(`${path}: [Function ${value.name || 'anonymous'}]`);
      continue;
    }
    if (value === null || typeof value !== 'object') {
      lines.push(`${path}: ${primitiveText(value)}`);
      continue;
    }
    const opened = open.get(value);
    if (opened !== undefined) {
      lines.push(`${path}: [Circular ${opened}]`);
      continue;
    }
    const children: [string, unknown][] = [];
    let header: string;
    if (Array.isArray(value)) {
      header = `Array(${value.length})`;
      for (let k = 0; k < value.length; k++) {
        children.push([`[${k}]`, k in value ? value[k] : HOLE]);
      }
    } else if (value instanceof Map) {
      header = `Map(${value.size})`;
      const entries = [...value].map(([k, v]) => [keyText(k), v] as [string, unknown]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      for (const [k, v] of entries) {
        children.push([`<${k}>`, v]);
      }
    } else if (value instanceof Set) {
      // members by their own text, sorted: written here, not walked
      lines.push(`${path}: Set(${value.size})`);
      const members = [...value].map(v => {
        const own: string[] = [];
        emit(v, `${path}{}`, own);
        return own.join('\n');
      });
      members.sort().forEach(m => lines.push(m));
      continue;
    } else if (ArrayBuffer.isView(value)) {
      const items = value instanceof DataView ? [] : Array.from(value as unknown as ArrayLike<number | bigint>, primitiveText);
      lines.push(`${path}: ${value.constructor.name}(${items.length}) [${items.join(', ')}]`);
      continue;
    } else if (value instanceof Date) {
      lines.push(`${path}: Date ${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()}`);
      continue;
    } else {
      const proto: unknown = Object.getPrototypeOf(value);
      const cls = proto === Object.prototype ? '' : proto === null ? 'null-prototype ' : `${(proto as { constructor?: { name?: string } }).constructor?.name ?? '?'} `;
      const keys = Object.keys(value).sort();
      header = `${cls}{${keys.length}}`;
      for (const k of keys) {
        children.push([/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`, (value as Record<string, unknown>)[k]]);
      }
      Object.getOwnPropertySymbols(value)
        .filter(s => Object.prototype.propertyIsEnumerable.call(value, s))
        .map(s => [String(s), s] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .forEach(([name, s]) => children.push([`[${name}]`, (value as Record<symbol, unknown>)[s]]));
    }
    lines.push(`${path}: ${header}`);
    open.set(value, path);
    stack.push({ close: value });
    for (let k = children.length - 1; k >= 0; k--) {
      const [childPath, childPrefix] = at(children[k][0]);
      stack.push({ path: childPath, prefix: childPrefix, depth: depth + 1, value: children[k][1] });
    }
  }
}

function primitiveText(v: unknown): string {
  if (typeof v === 'number') {
    return Object.is(v, -0) ? '-0' : String(v);
  }
  if (typeof v === 'bigint') {
    return `${v}n`;
  }
  if (typeof v === 'string') {
    return JSON.stringify(v);
  }
  return String(v);
}

/** A Map key as one line: a string quoted, another primitive as written, an object by its text. */
function keyText(k: unknown): string {
  if (k === null || (typeof k !== 'object' && typeof k !== 'function')) {
    return primitiveText(k);
  }
  const own: string[] = [];
  emit(k, '', own);
  return own.join(' ; ');
}
