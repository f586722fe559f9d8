/**
 * The frontend <-> kernel protocol (version 1).
 *
 * Transport: a Jupyter comm with target name `gpuoptimize`, registered in the kernel by
 * `%load_ext gpuoptimize` (python_shim/gpuoptimize/api.py). Every message, both ways, is a
 * JSON object with `v` (protocol version), `id` (the request id; responses and events echo
 * it) and `type`. The Python twin of these definitions is api.py; keep them in step.
 *
 * Requests (frontend -> kernel):
 *   hello             {client_version}                        -> hello_reply
 *   inspect           {names: string[]}                       -> inspect_reply
 *   register_candidate{cell_id, baseline, candidate, rule?}   -> ok
 *   run_ab            {cell_id?, baseline, candidate, budget_s?, rtol?, atol?,
 *                      allow_side_effects?, source_hash?}     -> progress* then ab_result
 *   doctor            {calibrate?: boolean}                   -> doctor_reply
 * Cancelling a run is a kernel interrupt (the shell channel is busy while a run executes,
 * so a `cancel` message could not be read before the run ends); the run then ends with an
 * ab_result whose verdict is "cancelled".
 * Any request may instead be answered by `error` {code, message}; the kernel's codes are
 * bad_message, bad_version, unknown_type, bad_field and internal.
 */

export const PROTOCOL_VERSION = 1;
export const COMM_TARGET = 'gpuoptimize';
/** The lowest shim version this frontend works with. */
export const MIN_SHIM_VERSION = '0.1.0';
/** MIME type of an A/B result, in comm replies and in `%%gpuoptimize` cell outputs. */
export const AB_MIME = 'application/vnd.gpuoptimize.ab+json';

export interface Envelope {
  v: number;
  id: string;
  type: string;
}

export interface HelloRequest extends Envelope {
  type: 'hello';
  client_version: string;
}
export interface InspectRequest extends Envelope {
  type: 'inspect';
  names: string[];
}
export interface RegisterCandidateRequest extends Envelope {
  type: 'register_candidate';
  cell_id: string;
  baseline: string;
  candidate: string;
  rule?: string;
}
export interface RunABRequest extends Envelope {
  type: 'run_ab';
  cell_id?: string;
  baseline: string;
  candidate: string;
  budget_s?: number;
  rtol?: number;
  atol?: number;
  allow_side_effects?: boolean;
  /**
   * Hash of the cell source when the run was asked for; the result says if it changed.
   * The kernel's own hash (python_shim/gpuoptimize/harness.py `source_hash`) is the first
   * 16 hex digits of SHA-256 of the stripped UTF-8 text, a leading %%gpuoptimize line
   * removed. The kernel marks a run stale when the latest register_candidate for `cell_id`
   * was made for other text than both `baseline` and `source_hash`.
   */
  source_hash?: string;
}
export interface DoctorRequest extends Envelope {
  type: 'doctor';
  calibrate?: boolean;
}
export type Request =
  | HelloRequest
  | InspectRequest
  | RegisterCandidateRequest
  | RunABRequest
  | DoctorRequest;

export interface GpuInfo {
  index: number;
  name: string;
  memory_bytes: number;
  compute_capability: string;
}
export interface LibraryStatus {
  name: string;
  available: boolean;
  version: string | null;
  error: string | null;
}
export interface Problem {
  code: string;
  message: string;
  fix: string;
}
/** Bandwidths in bytes per second (copies count bytes read plus written, except
 * host_to_device: bytes moved); launch_overhead_s is seconds per small kernel launch. */
export interface Calibration {
  host_bandwidth: number | null;
  device_bandwidth: number | null;
  host_to_device: number | null;
  launch_overhead_s: number | null;
  /**
   * Bytes the doctor copied to measure them (each copy reads and writes this much): NumPy's
   * host copy, CuPy's device copy (max(8 x L2, 256 MiB), bounded by free device memory) and the
   * host->device copy. Absent from shims before they were recorded; null when not measured.
   */
  host_copy_bytes?: number | null;
  device_copy_bytes?: number | null;
  host_to_device_bytes?: number | null;
}
export interface Environment {
  gpus: GpuInfo[];
  driver_version: string | null;
  runtime_version: string | null;
  libraries: LibraryStatus[];
  problems: Problem[];
  calibration: Calibration | null;
  python: string;
}

export interface HelloReply extends Envelope {
  type: 'hello_reply';
  protocol: number;
  shim_version: string;
  environment: Environment;
}
export interface InspectReply extends Envelope {
  type: 'inspect_reply';
  values: Record<
    string,
    {
      type: string;
      shape?: number[];
      dtype?: string;
      bytes?: number;
      device?: 'host' | 'gpu';
    } | null
  >;
}
export interface OkReply extends Envelope {
  type: 'ok';
}
export interface DoctorReply extends Envelope {
  type: 'doctor_reply';
  environment: Environment;
}
export interface ProgressEvent extends Envelope {
  type: 'progress';
  phase: 'baseline' | 'candidate' | 'compare';
  runs_done: number;
  elapsed_s: number;
  budget_s: number;
}

export interface SideStats {
  status: 'ok' | 'error' | 'timeout' | 'cancelled' | 'oom' | 'skipped';
  first_run_s: number | null;
  median_s: number | null;
  /** Interquartile range of the timed runs. */
  iqr_s: number | null;
  min_s: number | null;
  runs: number;
  times_s: number[];
  /** Device-only time (CUDA events) where the side ran on a GPU. */
  device_s: number | null;
  /** Host<->device transfer time inside one run, where measured. */
  transfer_s: number | null;
  peak_device_bytes: number | null;
  error: string | null;
  /**
   * Median wall time of an empty cell under the same timing (synchronize, clock, events,
   * exec): the fixed cost inside every timed run, reported and never subtracted. Optional:
   * absent from kernels older than this field.
   */
  timer_overhead_s?: number | null;
  /** The same fixed cost as the CUDA events see it, where the side has events. */
  device_timer_overhead_s?: number | null;
}

export interface OutputComparison {
  name: string;
  status: 'equal' | 'not_equal' | 'unverified' | 'statistical';
  method: string;
  max_abs_err: number | null;
  max_rel_err: number | null;
  detail: string | null;
}

export type Verdict =
  | 'gpu_faster'
  | 'gpu_slower'
  | 'not_equal'
  | 'error'
  | 'cancelled'
  | 'stale'
  | 'refused'
  | 'no_gpu';

export interface ABResult {
  version: 1;
  baseline: SideStats;
  candidate: SideStats;
  speedup: {
    end_to_end: number | null;
    device: number | null;
    /** 95% confidence interval of the end-to-end speedup. */
    ci95: [number, number] | null;
  };
  match: {
    status: 'equal' | 'not_equal' | 'unverified' | 'statistical';
    outputs: OutputComparison[];
  };
  device: GpuInfo | null;
  versions: Record<string, string>;
  verdict: Verdict;
  /** One line: why the GPU lost, why the run stopped, or what was refused. */
  reason: string | null;
  warnings: string[];
  stale: boolean;
}

export interface ABResultMessage extends Envelope {
  type: 'ab_result';
  result: ABResult;
}
export interface ErrorReply extends Envelope {
  type: 'error';
  code: string;
  message: string;
}

export type Response =
  | HelloReply
  | InspectReply
  | OkReply
  | DoctorReply
  | ProgressEvent
  | ABResultMessage
  | ErrorReply;

// ---------------------------------------------------------------------------
// Validation on receipt. Small hand-written checks: the messages are few and flat, and a
// schema library would be the largest thing in the bundle.

export class ProtocolError extends Error {}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
function isNum(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}
function isNumOrNull(x: unknown): boolean {
  return x === null || isNum(x);
}
function isStrOrNull(x: unknown): boolean {
  return x === null || typeof x === 'string';
}

function checkSide(x: unknown, where: string): void {
  if (!isObject(x)) {
    throw new ProtocolError(`${where}: not an object`);
  }
  const statuses = ['ok', 'error', 'timeout', 'cancelled', 'oom', 'skipped'];
  if (!statuses.includes(x.status as string)) {
    throw new ProtocolError(`${where}.status: ${String(x.status)}`);
  }
  for (const k of [
    'first_run_s',
    'median_s',
    'iqr_s',
    'min_s',
    'device_s',
    'transfer_s',
    'peak_device_bytes'
  ]) {
    if (!isNumOrNull(x[k])) {
      throw new ProtocolError(`${where}.${k}: expected number or null`);
    }
  }
  if (!isNum(x.runs) || !Array.isArray(x.times_s) || !x.times_s.every(isNum)) {
    throw new ProtocolError(`${where}: runs/times_s malformed`);
  }
  if (!isStrOrNull(x.error)) {
    throw new ProtocolError(`${where}.error: expected string or null`);
  }
  for (const k of ['timer_overhead_s', 'device_timer_overhead_s']) {
    if (k in x && x[k] !== undefined && !isNumOrNull(x[k])) {
      throw new ProtocolError(`${where}.${k}: expected number or null`);
    }
  }
}

/** Throws ProtocolError unless `x` is a well-formed ABResult. */
export function validateABResult(x: unknown): ABResult {
  if (!isObject(x) || x.version !== 1) {
    throw new ProtocolError('ab result: missing or unknown version');
  }
  checkSide(x.baseline, 'baseline');
  checkSide(x.candidate, 'candidate');
  const s = x.speedup;
  if (!isObject(s) || !isNumOrNull(s.end_to_end) || !isNumOrNull(s.device)) {
    throw new ProtocolError('speedup malformed');
  }
  if (
    s.ci95 !== null &&
    !(Array.isArray(s.ci95) && s.ci95.length === 2 && s.ci95.every(isNum))
  ) {
    throw new ProtocolError('speedup.ci95 malformed');
  }
  const m = x.match;
  const matchStatuses = ['equal', 'not_equal', 'unverified', 'statistical'];
  if (
    !isObject(m) ||
    !matchStatuses.includes(m.status as string) ||
    !Array.isArray(m.outputs)
  ) {
    throw new ProtocolError('match malformed');
  }
  for (const o of m.outputs) {
    if (
      !isObject(o) ||
      typeof o.name !== 'string' ||
      !matchStatuses.includes(o.status as string) ||
      typeof o.method !== 'string'
    ) {
      throw new ProtocolError('match.outputs entry malformed');
    }
  }
  const verdicts = [
    'gpu_faster',
    'gpu_slower',
    'not_equal',
    'error',
    'cancelled',
    'stale',
    'refused',
    'no_gpu'
  ];
  if (!verdicts.includes(x.verdict as string)) {
    throw new ProtocolError(`verdict: ${String(x.verdict)}`);
  }
  if (!isStrOrNull(x.reason) || !Array.isArray(x.warnings)) {
    throw new ProtocolError('reason/warnings malformed');
  }
  if (typeof x.stale !== 'boolean') {
    throw new ProtocolError('stale malformed');
  }
  return x as unknown as ABResult;
}

function checkEnvironment(x: unknown): void {
  if (
    !isObject(x) ||
    !Array.isArray(x.gpus) ||
    !Array.isArray(x.libraries) ||
    !Array.isArray(x.problems)
  ) {
    throw new ProtocolError('environment malformed');
  }
}

/**
 * Throws ProtocolError unless `x` is an Environment whose GPUs and calibration the cost model
 * can read (the CLI's `--device` file: `%gpuoptimize doctor --calibrate --json`).
 */
export function validateEnvironment(x: unknown): Environment {
  checkEnvironment(x);
  const env = x as Record<string, unknown>;
  for (const g of env.gpus as unknown[]) {
    if (!isObject(g) || typeof g.name !== 'string' || !isNum(g.memory_bytes)) {
      throw new ProtocolError('environment.gpus entry malformed');
    }
  }
  const cal = env.calibration;
  if (cal !== undefined && cal !== null) {
    if (!isObject(cal)) {
      throw new ProtocolError('environment.calibration malformed');
    }
    for (const k of ['host_bandwidth', 'device_bandwidth', 'host_to_device', 'launch_overhead_s', 'host_copy_bytes', 'device_copy_bytes', 'host_to_device_bytes']) {
      if (cal[k] !== undefined && !isNumOrNull(cal[k])) {
        throw new ProtocolError(`environment.calibration.${k}: expected number or null`);
      }
    }
  }
  return x as unknown as Environment;
}

/** Throws ProtocolError unless `x` is a well-formed response of a known type. */
export function validateResponse(x: unknown): Response {
  if (!isObject(x)) {
    throw new ProtocolError('message is not an object');
  }
  if (x.v !== PROTOCOL_VERSION) {
    throw new ProtocolError(`protocol version ${String(x.v)}, expected ${PROTOCOL_VERSION}`);
  }
  if (typeof x.id !== 'string' || typeof x.type !== 'string') {
    throw new ProtocolError('message without id or type');
  }
  switch (x.type) {
    case 'hello_reply':
      if (typeof x.shim_version !== 'string' || !isNum(x.protocol)) {
        throw new ProtocolError('hello_reply malformed');
      }
      checkEnvironment(x.environment);
      break;
    case 'doctor_reply':
      checkEnvironment(x.environment);
      break;
    case 'inspect_reply':
      if (!isObject(x.values)) {
        throw new ProtocolError('inspect_reply malformed');
      }
      break;
    case 'ok':
      break;
    case 'progress':
      if (!isNum(x.runs_done) || !isNum(x.elapsed_s) || !isNum(x.budget_s)) {
        throw new ProtocolError('progress malformed');
      }
      break;
    case 'ab_result':
      validateABResult(x.result);
      break;
    case 'error':
      if (typeof x.code !== 'string' || typeof x.message !== 'string') {
        throw new ProtocolError('error malformed');
      }
      break;
    default:
      throw new ProtocolError(`unknown message type ${x.type}`);
  }
  return x as unknown as Response;
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map(p => parseInt(p, 10) || 0);
  const pb = b.split(/[.+-]/).map(p => parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) {
      return d < 0 ? -1 : 1;
    }
  }
  return 0;
}
