/**
 * Analysis speed on a 1,000-cell notebook (issue targets: full analysis within 2x of parsing
 * the cells with tree-sitter alone; re-analysis after editing one cell under 10 ms).
 *
 *   bench/analysis_speed.sh            (bundles this file with esbuild and runs it in Node)
 *
 * Prints figures and ratios; never asserts (machines are noisy).
 */
import { execFileSync } from 'child_process';
import { performance, PerformanceObserver } from 'perf_hooks';
import { initNodeParser } from '../src/analysis/parser-node';
import { candidateErrorLine, NotebookAnalyzer } from '../src/analysis/engine';
import { collectFacts } from '../src/analysis/facts';
import { maskIPython } from '../src/analysis/ipython';
import { CellModel, NotebookModel, parseCell } from '../src/analysis/notebook';
import { syntheticNotebook } from './synthetic-notebook';

function median(xs: number[]): number {
  return quantile(xs, 0.5);
}

/** The value at fraction `q` of the sorted values (0.5: the median, 0.95: the p95). */
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
}

/**
 * The first parse, or the first analysis, of the notebook in this (fresh) process: the wasm
 * module is compiled before the clock starts, the JavaScript is not (what a newly opened
 * JupyterLab pays on its first analysis). Prints the milliseconds.
 */
async function firstInProcess(what: string): Promise<void> {
  const cells = syntheticNotebook(1000);
  const parser = await initNodeParser();
  const t0 = performance.now();
  if (what === 'parse') {
    for (const c of cells) {
      if (c.kind === 'code') {
        parser.parseRaw(c.source).delete();
      }
    }
  } else {
    new NotebookAnalyzer({}, parser).update(cells);
  }
  console.log((performance.now() - t0).toFixed(1));
}

/** `firstInProcess` in fresh processes (this script again), `runs` times each: the medians. */
function firstAnalysis(runs: number): { parse: number; full: number } {
  const once = (what: string): number => Number(execFileSync(process.execPath, [__filename, '--first', what], { encoding: 'utf8' }).trim());
  const parse: number[] = [];
  const full: number[] = [];
  for (let r = 0; r < runs; r++) {
    parse.push(once('parse'));
    full.push(once('full'));
  }
  return { parse: median(parse), full: median(full) };
}

async function main(): Promise<void> {
  const cells = syntheticNotebook(1000);
  const code = cells.filter(c => c.kind === 'code');
  const chars = cells.reduce((a, c) => a + c.source.length, 0);
  const parser = await initNodeParser();

  // "Parse-only" is tree-sitter alone (parseRaw); the analyzer's parse also copies each tree
  // into plain objects, and that copy counts as analysis time.
  // Warm both paths once (JIT of the engine and of the wasm).
  for (const c of code) {
    parser.parseRaw(c.source).delete();
  }
  new NotebookAnalyzer({}, parser).update(cells);

  const reps = 15;
  const parseTimes: number[] = [];
  const fullTimes: number[] = [];
  // CPU time (all threads of the process, GC helpers included): steadier than wall time on a
  // shared machine, where other work takes turns on the cores
  const parseCpu: number[] = [];
  const fullCpu: number[] = [];
  // the analyzer with no rules: what parsing, copying the trees, the facts and the notebook
  // model cost before any rule runs (the floor the rules add to)
  const bareCpu: number[] = [];
  const cpuMs = (since: NodeJS.CpuUsage): number => {
    const d = process.cpuUsage(since);
    return (d.user + d.system) / 1000;
  };
  let suggestions = 0;
  let candidates: string[] = [];
  // the garbage collector's in-thread pauses during the cold analyses (delivered after the loop)
  const coldGc: { start: number; end: number }[] = [];
  const fullSpans: { start: number; end: number }[] = [];
  const coldObserver = new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      coldGc.push({ start: e.startTime, end: e.startTime + e.duration });
    }
  });
  coldObserver.observe({ entryTypes: ['gc'] });
  for (let r = 0; r < reps; r++) {
    let c0 = process.cpuUsage();
    let t0 = performance.now();
    for (const c of code) {
      parser.parseRaw(c.source).delete();
    }
    parseTimes.push(performance.now() - t0);
    parseCpu.push(cpuMs(c0));

    const analyzer = new NotebookAnalyzer({}, parser);
    c0 = process.cpuUsage();
    t0 = performance.now();
    const result = analyzer.update(cells);
    suggestions = result.suggestions.length;
    candidates = result.suggestions.map(sg => sg.candidate);
    fullTimes.push(performance.now() - t0);
    fullSpans.push({ start: t0, end: performance.now() });
    fullCpu.push(cpuMs(c0));

    const bare = new NotebookAnalyzer({ rules: [] }, parser);
    c0 = process.cpuUsage();
    bare.update(cells);
    bareCpu.push(cpuMs(c0));
  }
  await new Promise(resolve => setTimeout(resolve, 50));
  coldObserver.disconnect();
  const pausedIn = (pauses: { start: number; end: number }[], span: { start: number; end: number }): number =>
    pauses.reduce((a, g) => a + Math.max(0, Math.min(g.end, span.end) - Math.max(g.start, span.start)), 0);
  const fullGc = fullSpans.map(span => pausedIn(coldGc, span));

  // Where the cold time goes (CPU medians of separate loops, same reps): the analyzer's parse
  // (tree-sitter and copying each tree into objects, on the masked sources), the per-cell facts,
  // the notebook model; the rules, the engine and the GC they cause take the rest
  const copyCpu: number[] = [];
  const factsCpu: number[] = [];
  const modelCpu: number[] = [];
  const masked = code.map(c => maskIPython(c.source).masked);
  const parsed: CellModel[] = cells.map(c => parseCell(parser, c));
  // the engine's safety net: every candidate is parsed before it is offered
  const candidateCpu: number[] = [];
  for (let r = 0; r < reps; r++) {
    const c0 = process.cpuUsage();
    for (const c of candidates) {
      candidateErrorLine(parser, c);
    }
    candidateCpu.push(cpuMs(c0));
  }
  for (let r = 0; r < reps; r++) {
    let c0 = process.cpuUsage();
    const trees = masked.map(m => parser.parse(m));
    copyCpu.push(cpuMs(c0));
    c0 = process.cpuUsage();
    for (const t of trees) {
      collectFacts(t.rootNode);
    }
    factsCpu.push(cpuMs(c0));
    c0 = process.cpuUsage();
    new NotebookModel(parsed, {});
    modelCpu.push(cpuMs(c0));
  }

  // Incremental: edit one cell at a time, re-analyse. The garbage collector's pauses are
  // recorded (delivered after the loop) to tell which edits they fell in.
  const gcPauses: { start: number; end: number }[] = [];
  const gcObserver = new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      gcPauses.push({ start: e.startTime, end: e.startTime + e.duration });
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const analyzer = new NotebookAnalyzer({}, parser);
  let current = cells.map(c => ({ ...c }));
  analyzer.update(current);
  const editTimes: number[] = [];
  // CPU time too: on a busy machine the wall time of a 2 ms edit is mostly other processes' turns
  const editCpu: number[] = [];
  const editSpans: { start: number; end: number; parse: number; model: number; rules: number }[] = [];
  const parsesPerEdit: number[] = [];
  const rerunsPerEdit: number[] = [];
  for (let e = 0; e < 60; e++) {
    const target = code[(e * 37) % code.length].index;
    current = current.map(c => (c.index === target ? { ...c, source: c.source + `# edit ${e}\n` } : c));
    const before = analyzer.parseCount;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    analyzer.update(current);
    const t1 = performance.now();
    editCpu.push(cpuMs(c0));
    editTimes.push(t1 - t0);
    editSpans.push({ start: t0, end: t1, ...analyzer.lastTimings });
    parsesPerEdit.push(analyzer.parseCount - before);
    rerunsPerEdit.push(analyzer.lastRerun.length);
  }
  await new Promise(resolve => setTimeout(resolve, 50));
  gcObserver.disconnect();
  const gcIn = (span: { start: number; end: number }): number => pausedIn(gcPauses, span);
  const worst = editSpans[editTimes.indexOf(Math.max(...editTimes))];
  const worstParts: [string, number][] = [
    ['parse', worst.parse],
    ['model', worst.model],
    ['rules', worst.rules]
  ];
  const worstGc = gcIn(worst);
  const editGc = editSpans.map(gcIn);

  const candidateChars = candidates.reduce((a, c) => a + c.length, 0);
  const first = firstAnalysis(3);
  const parseMs = median(parseTimes);
  const fullMs = median(fullTimes);
  const editMs = median(editTimes);
  const parseCpuMs = median(parseCpu);
  const fullCpuMs = median(fullCpu);
  const rows: [string, string][] = [
    ['cells (code / all)', `${code.length} / ${cells.length} (${(chars / 1024).toFixed(0)} KiB)`],
    ['suggestions found', `${suggestions}`],
    ['tree-sitter parse of every code cell (median)', `${parseMs.toFixed(1)} ms`],
    ['full analysis, cold analyzer (median)', `${fullMs.toFixed(1)} ms`],
    ['ratio full / parse-only (target <= 2)', `${(fullMs / parseMs).toFixed(2)}`],
    ['CPU time: parse-only / full (median)', `${parseCpuMs.toFixed(1)} ms / ${fullCpuMs.toFixed(1)} ms`],
    ['CPU-time ratio full / parse-only', `${(fullCpuMs / parseCpuMs).toFixed(2)}`],
    ['CPU time, least of the reps: parse-only / full', `${Math.min(...parseCpu).toFixed(1)} ms / ${Math.min(...fullCpu).toFixed(1)} ms (ratio ${(Math.min(...fullCpu) / Math.min(...parseCpu)).toFixed(2)})`],
    ['analysis without rules, least CPU (ratio to parse)', `${Math.min(...bareCpu).toFixed(1)} ms (${(Math.min(...bareCpu) / Math.min(...parseCpu)).toFixed(2)})`],
    [
      'per code cell, least CPU: parse / no rules / full',
      `${((Math.min(...parseCpu) / code.length) * 1000).toFixed(0)} / ${((Math.min(...bareCpu) / code.length) * 1000).toFixed(0)} / ${((Math.min(...fullCpu) / code.length) * 1000).toFixed(0)} µs`
    ],
    ['  of which: parse + copy to node tables (GC incl.)', `${median(copyCpu).toFixed(1)} ms CPU`],
    ['  of which: per-cell facts', `${median(factsCpu).toFixed(1)} ms CPU`],
    ['  of which: notebook model', `${median(modelCpu).toFixed(1)} ms CPU`],
    // the safety net parses more text than the cells hold (each candidate is its whole cell,
    // rewritten, with the rewrite's added lines): on its own it costs about the parse-only time
    [
      '  of which: parsing every candidate (safety net)',
      `${median(candidateCpu).toFixed(1)} ms CPU (${candidates.length} candidates, ${(candidateChars / 1024).toFixed(0)} KiB)`
    ],
    [
      '  GC pauses in a cold analysis (median; least-CPU rep)',
      `${median(fullGc).toFixed(1)} ms; ${fullGc[fullCpu.indexOf(Math.min(...fullCpu))].toFixed(1)} ms (in-thread pauses, wall time)`
    ],
    ['  of which: rules, engine, GC (the rest)', `${(fullCpuMs - median(copyCpu) - median(factsCpu) - median(modelCpu) - median(candidateCpu)).toFixed(1)} ms CPU`],
    ['first in a fresh process: parse-only / full', `${first.parse.toFixed(1)} ms / ${first.full.toFixed(1)} ms (ratio ${(first.full / first.parse).toFixed(2)}; JavaScript not yet compiled)`],
    ['re-analysis after editing one cell (median)', `${editMs.toFixed(2)} ms (target < 10 ms)`],
    ['re-analysis after one edit (p95 / max of 60)', `${quantile(editTimes, 0.95).toFixed(2)} ms / ${Math.max(...editTimes).toFixed(2)} ms`],
    ['re-analysis CPU time: median / p95 / max', `${median(editCpu).toFixed(2)} / ${quantile(editCpu, 0.95).toFixed(2)} / ${Math.max(...editCpu).toFixed(2)} ms`],
    [
      '  the worst edit: parse / model / rules (GC in it)',
      `${worstParts.map(([, ms]) => ms.toFixed(2)).join(' / ')} ms (${worstGc.toFixed(2)} ms); mostly ${
        worstGc > Math.max(...worstParts.map(([, ms]) => ms)) ? 'GC' : worstParts.reduce((a, b) => (b[1] > a[1] ? b : a))[0]
      }`
    ],
    ['  edits with a GC pause (their pauses, total)', `${editGc.filter(g => g > 0).length} of 60 (${editGc.reduce((a, b) => a + b, 0).toFixed(1)} ms)`],
    ['cells re-parsed per edit', `${Math.min(...parsesPerEdit)}..${Math.max(...parsesPerEdit)}`],
    ['cells whose rules re-ran per edit', `${Math.min(...rerunsPerEdit)}..${Math.max(...rerunsPerEdit)}`]
  ];
  const w = Math.max(...rows.map(r => r[0].length));
  console.log(`analysis speed, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
  for (const [k, v] of rows) {
    console.log(`${k.padEnd(w)}  ${v}`);
  }
}

if (process.argv[2] === '--first') {
  void firstInProcess(process.argv[3]);
} else {
  void main();
}
