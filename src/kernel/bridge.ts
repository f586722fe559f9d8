/**
 * The link between one notebook's session and the gpuoptimize kernel shim.
 *
 * The bridge loads the shim (`%load_ext gpuoptimize`, executed silently so that nothing
 * appears in the notebook or its history), opens a comm with target `gpuoptimize`, says hello
 * (protocol and shim version check), then sends requests and matches replies to them by id.
 * Everything the kernel sends is validated (protocol.ts) before anyone sees it.
 *
 * It also owns the awkward parts of talking to a live kernel:
 * - A/B runs are serialised here, so a second Benchmark waits its turn and can be cancelled
 *   without interrupting the kernel; a run asked for while the kernel is busy with a user's
 *   cell waits here (reported as queued) until the kernel is idle, for the same reason.
 * - Kernel restarts and kernel changes reject every pending request with a message that says
 *   what happened, and the bridge says hello again once the new kernel is idle.
 * - Timeouts: short requests have a fixed limit; A/B runs have an inactivity limit that
 *   restarts with every progress event (a run can legitimately take a while).
 *
 * This module has no UI: the model (src/ui/model.ts) turns its states into words.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { CommsOverSubshells, Kernel, KernelMessage } from '@jupyterlab/services';
import { JSONObject, UUID } from '@lumino/coreutils';
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import {
  ABResult,
  COMM_TARGET,
  compareVersions,
  Environment,
  HelloReply,
  InspectReply,
  MIN_SHIM_VERSION,
  PROTOCOL_VERSION,
  ProgressEvent,
  ProtocolError,
  Response,
  RunABRequest,
  validateResponse
} from './protocol';

/** The version of this frontend, sent in hello (kept equal to package.json's). */
export const CLIENT_VERSION = '0.1.0';

/** The command a user runs to install the shim, shown whenever it is missing or too old. */
export const SHIM_INSTALL_COMMAND = 'pip install jupyterlab-gpuoptimize';

/**
 * Where the bridge stands with the current kernel.
 * - `no-kernel`: the notebook has no kernel (or it is dead).
 * - `disconnected`: a kernel exists; the shim has not been loaded yet.
 * - `connecting`: loading the shim and waiting for hello.
 * - `ready`: hello answered with a compatible shim; `environment` is set.
 * - `shim-missing`: `%load_ext gpuoptimize` raised ModuleNotFoundError.
 * - `shim-outdated`: the shim answered but is older than MIN_SHIM_VERSION or speaks
 *   another protocol version.
 * - `failed`: anything else went wrong while connecting; `error` says what.
 */
export type BridgeStatus =
  | 'no-kernel'
  | 'disconnected'
  | 'connecting'
  | 'ready'
  | 'shim-missing'
  | 'shim-outdated'
  | 'failed';

/** Why a request did not get its answer. `code` is stable; `message` is for people. */
export class BridgeError extends Error {
  constructor(
    readonly code:
      | 'shim-missing'
      | 'shim-outdated'
      | 'no-kernel'
      | 'kernel-restarted'
      | 'kernel-changed'
      | 'timeout'
      | 'protocol'
      | 'kernel-error'
      | 'cancelled'
      | 'comm-closed'
      | 'load-failed',
    message: string
  ) {
    super(message);
  }
}

export interface RunABOptions {
  cellId?: string;
  baseline: string;
  candidate: string;
  budgetSeconds?: number;
  rtol?: number;
  atol?: number;
  allowSideEffects?: boolean;
  sourceHash?: string;
  /** Called with every validated progress event. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Called when the run's waiting state changes: `waiting-for-previous` (another benchmark
   * of ours is running), `waiting-for-kernel` (sent, but the kernel is busy with a cell),
   * `running` (the first progress event came back).
   */
  onQueueState?: (state: RunQueueState) => void;
  /** Abort while queued drops the run (the kernel is not touched); once sent, interrupts the kernel. */
  signal?: AbortSignal;
}

export type RunQueueState = 'waiting-for-previous' | 'waiting-for-kernel' | 'running';

export interface BridgeOptions {
  /** Limit for hello, inspect and doctor replies (ms). */
  requestTimeoutMs?: number;
  /** How long an A/B run may go without any message before it is given up (ms, minimum). */
  runInactivityTimeoutMs?: number;
}

interface PendingRequest {
  type: string;
  resolve: (reply: Response) => void;
  reject: (error: Error) => void;
  onEvent?: (event: ProgressEvent) => void;
  timer: ReturnType<typeof setTimeout> | null;
  /** Restarts the timeout (A/B runs do it on every progress event). */
  armTimer: () => void;
}

/** A live comm connection to one kernel; dropped whole on restart or kernel change. */
interface Connection {
  kernel: Kernel.IKernelConnection;
  comm: Kernel.IComm;
  hello: HelloReply;
}

export class KernelBridge implements IDisposable {
  constructor(
    readonly sessionContext: ISessionContext,
    options: BridgeOptions = {}
  ) {
    this._requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this._runInactivityTimeoutMs = options.runInactivityTimeoutMs ?? 120_000;
    sessionContext.statusChanged.connect(this._onKernelStatus, this);
    sessionContext.kernelChanged.connect(this._onKernelChanged, this);
    this._status = this._kernel() ? 'disconnected' : 'no-kernel';
  }

  /** Emits whenever `status`, `environment`, `error` or `kernelBusy` change. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }
  get status(): BridgeStatus {
    return this._status;
  }
  /** What hello reported about the kernel's machine, once `ready`. */
  get environment(): Environment | null {
    return this._connection?.hello.environment ?? null;
  }
  get shimVersion(): string | null {
    return this._connection?.hello.shim_version ?? null;
  }
  /** The last connection failure, for people. */
  get error(): string | null {
    return this._error;
  }
  /** True while the kernel is executing something (a user's cell or one of our runs). */
  get kernelBusy(): boolean {
    return this.sessionContext.session?.kernel?.status === 'busy';
  }
  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Loads the shim and says hello; resolves with the hello reply. Idempotent: concurrent
   * callers share one attempt, and a ready bridge answers at once.
   */
  connect(): Promise<HelloReply> {
    const kernel = this._kernel();
    if (!kernel) {
      return Promise.reject(
        new BridgeError('no-kernel', 'This notebook has no running kernel. Start one, then try again.')
      );
    }
    if (this._connection && this._connection.kernel === kernel) {
      return Promise.resolve(this._connection.hello);
    }
    if (!this._connecting) {
      this._setStatus('connecting', null);
      const attempt = this._connect(kernel);
      this._connecting = attempt;
      attempt.then(
        hello => {
          if (this._connecting === attempt) {
            this._connecting = null;
            this._setStatus('ready', null);
          }
          return hello;
        },
        (err: Error) => {
          if (this._connecting === attempt) {
            this._connecting = null;
            const status: BridgeStatus =
              err instanceof BridgeError && err.code === 'shim-missing'
                ? 'shim-missing'
                : err instanceof BridgeError && err.code === 'shim-outdated'
                  ? 'shim-outdated'
                  : this._kernel()
                    ? 'failed'
                    : 'no-kernel';
            this._setStatus(status, err.message);
          }
        }
      );
    }
    return this._connecting;
  }

  /** Asks the shim's doctor again (optionally measuring bandwidths); updates `environment`. */
  async doctor(calibrate = false): Promise<Environment> {
    const reply = await this._request('doctor', { calibrate });
    if (reply.type !== 'doctor_reply') {
      throw new BridgeError('protocol', `Expected doctor_reply, got ${reply.type}`);
    }
    if (this._connection) {
      this._connection.hello = { ...this._connection.hello, environment: reply.environment };
      this._changed.emit();
    }
    return reply.environment;
  }

  /** What the kernel holds under these names (type, shape, dtype, bytes). */
  async inspect(names: string[]): Promise<InspectReply['values']> {
    const reply = await this._request('inspect', { names });
    if (reply.type !== 'inspect_reply') {
      throw new BridgeError('protocol', `Expected inspect_reply, got ${reply.type}`);
    }
    return reply.values;
  }

  /**
   * Tells the shim which candidate belongs to a cell, so that running the cell with
   * `%%gpuoptimize` (no `# %% gpu` split) times it against this rewrite.
   */
  async registerCandidate(
    cellId: string,
    baseline: string,
    candidate: string,
    rule?: string
  ): Promise<void> {
    const fields: JSONObject = { cell_id: cellId, baseline, candidate };
    if (rule !== undefined) {
      fields.rule = rule;
    }
    const reply = await this._request('register_candidate', fields);
    if (reply.type !== 'ok') {
      throw new BridgeError('protocol', `Expected ok, got ${reply.type}`);
    }
  }

  /**
   * Runs baseline and candidate side by side in the kernel and resolves with the validated
   * result. Runs are serialised: this one starts when the previous one has ended.
   */
  runAB(options: RunABOptions): Promise<ABResult> {
    const previous = this._runQueue;
    const run = (async (): Promise<ABResult> => {
      if (this._runsInFlight > 0) {
        options.onQueueState?.('waiting-for-previous');
      }
      this._runsInFlight += 1;
      try {
        await previous.catch(() => undefined);
        if (options.signal?.aborted) {
          throw new BridgeError('cancelled', 'Cancelled before it started.');
        }
        await this.connect();
        const fields: Partial<RunABRequest> = {
          baseline: options.baseline,
          candidate: options.candidate
        };
        if (options.cellId !== undefined) {
          fields.cell_id = options.cellId;
        }
        if (options.budgetSeconds !== undefined) {
          fields.budget_s = options.budgetSeconds;
        }
        if (options.rtol !== undefined) {
          fields.rtol = options.rtol;
        }
        if (options.atol !== undefined) {
          fields.atol = options.atol;
        }
        if (options.allowSideEffects !== undefined) {
          fields.allow_side_effects = options.allowSideEffects;
        }
        if (options.sourceHash !== undefined) {
          fields.source_hash = options.sourceHash;
        }
        // A busy kernel is running a user's cell: wait here rather than queue the run inside
        // the kernel, so Cancel can drop it without interrupting the user's cell.
        if (this.kernelBusy) {
          options.onQueueState?.('waiting-for-kernel');
          await this._waitForIdle(options.signal);
        }
        options.onQueueState?.('running');
        let sawProgress = false;
        const onAbort = () => {
          void this.interrupt();
        };
        options.signal?.addEventListener('abort', onAbort);
        try {
          const reply = await this._request('run_ab', fields as JSONObject, {
            timeoutMs: Math.max(
              this._runInactivityTimeoutMs,
              (options.budgetSeconds ?? 0) * 4000
            ),
            onEvent: event => {
              if (!sawProgress) {
                sawProgress = true;
                options.onQueueState?.('running');
              }
              options.onProgress?.(event);
            }
          });
          if (reply.type !== 'ab_result') {
            throw new BridgeError('protocol', `Expected ab_result, got ${reply.type}`);
          }
          return reply.result;
        } finally {
          options.signal?.removeEventListener('abort', onAbort);
        }
      } finally {
        this._runsInFlight -= 1;
      }
    })();
    this._runQueue = run.then(
      () => undefined,
      () => undefined
    );
    return run;
  }

  /**
   * Resolves when the kernel is idle; rejects on abort (cancelled) or when the kernel restarts,
   * changes or dies while waiting.
   */
  private _waitForIdle(signal?: AbortSignal): Promise<void> {
    const kernel = this._kernel();
    return new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        this.sessionContext.statusChanged.disconnect(onStatus);
        this.sessionContext.kernelChanged.disconnect(onKernelChanged);
        signal?.removeEventListener('abort', onAbort);
      };
      const onStatus = (_: ISessionContext, status: Kernel.Status) => {
        if (status === 'idle') {
          cleanup();
          resolve();
        } else if (status === 'restarting' || status === 'autorestarting' || status === 'dead') {
          cleanup();
          reject(
            new BridgeError(
              'kernel-restarted',
              'The kernel restarted before the benchmark could start. Nothing was run; start it again when the kernel is ready.'
            )
          );
        }
      };
      const onKernelChanged = () => {
        cleanup();
        reject(new BridgeError('kernel-changed', "The notebook's kernel changed before the benchmark could start."));
      };
      const onAbort = () => {
        cleanup();
        reject(new BridgeError('cancelled', 'Cancelled before it started.'));
      };
      if (!kernel || kernel.status === 'idle') {
        resolve();
        return;
      }
      this.sessionContext.statusChanged.connect(onStatus);
      this.sessionContext.kernelChanged.connect(onKernelChanged);
      signal?.addEventListener('abort', onAbort);
    });
  }

  /** Interrupts the kernel: how a running A/B run is cancelled (see protocol.ts). */
  async interrupt(): Promise<void> {
    const kernel = this._kernel();
    if (kernel) {
      await kernel.interrupt();
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._drop(new BridgeError('comm-closed', 'The notebook was closed.'));
    Signal.clearData(this);
  }

  // -------------------------------------------------------------------------

  private _kernel(): Kernel.IKernelConnection | null {
    return this.sessionContext.session?.kernel ?? null;
  }

  private async _connect(kernel: Kernel.IKernelConnection): Promise<HelloReply> {
    await this._loadShim(kernel);
    if (this._kernel() !== kernel) {
      throw new BridgeError('kernel-changed', 'The kernel changed while connecting.');
    }
    const comm = kernel.createComm(COMM_TARGET);
    // JupyterLab 4.6 sends comm messages to a kernel subshell (a thread) by default. An A/B
    // run must not: it would run concurrently with the user's cells, and a kernel interrupt
    // (SIGINT reaches the main thread only) could not cancel it. Use the main shell.
    (comm as Kernel.IComm & { commsOverSubshells?: CommsOverSubshells }).commsOverSubshells =
      CommsOverSubshells.Disabled;
    comm.onMsg = msg => this._onCommMessage(comm, msg);
    comm.onClose = () => {
      if (this._connection?.comm === comm) {
        this._drop(
          new BridgeError('comm-closed', 'The kernel closed the gpuoptimize connection.')
        );
        this._setStatus(this._kernel() ? 'disconnected' : 'no-kernel', null);
      }
    };
    this._comm = comm;
    await comm.open({}).done;
    const reply = await this._request('hello', { client_version: CLIENT_VERSION }, { comm });
    if (reply.type !== 'hello_reply') {
      throw new BridgeError('protocol', `Expected hello_reply, got ${reply.type}`);
    }
    if (reply.protocol !== PROTOCOL_VERSION) {
      comm.close();
      throw new BridgeError(
        'shim-outdated',
        `The kernel's gpuoptimize package speaks protocol ${reply.protocol}; this JupyterLab extension speaks ${PROTOCOL_VERSION}. Install matching versions: ${SHIM_INSTALL_COMMAND}`
      );
    }
    if (compareVersions(reply.shim_version, MIN_SHIM_VERSION) < 0) {
      comm.close();
      throw new BridgeError(
        'shim-outdated',
        `The kernel's gpuoptimize package is version ${reply.shim_version}; this extension needs ${MIN_SHIM_VERSION} or later: pip install -U jupyterlab-gpuoptimize, then restart the kernel.`
      );
    }
    this._connection = { kernel, comm, hello: reply };
    return reply;
  }

  /** `%load_ext gpuoptimize`, silently: no output, no history, no execution count. */
  private async _loadShim(kernel: Kernel.IKernelConnection): Promise<void> {
    const future = kernel.requestExecute({
      code: '%load_ext gpuoptimize',
      silent: true,
      store_history: false,
      allow_stdin: false,
      stop_on_error: false
    });
    let reply: KernelMessage.IExecuteReplyMsg;
    try {
      reply = await future.done;
    } catch (err) {
      throw new BridgeError(
        'load-failed',
        `Could not load the gpuoptimize kernel extension: ${(err as Error).message}`
      );
    }
    const content = reply.content;
    if (content.status === 'error') {
      if (content.ename === 'ModuleNotFoundError' || content.ename === 'ImportError') {
        throw new BridgeError(
          'shim-missing',
          `The gpuoptimize kernel package is not installed in this kernel's environment: ${SHIM_INSTALL_COMMAND}`
        );
      }
      throw new BridgeError(
        'load-failed',
        `Loading the gpuoptimize kernel extension failed: ${content.ename}: ${content.evalue}`
      );
    }
    if (content.status === 'aborted') {
      throw new BridgeError(
        'load-failed',
        'Loading the gpuoptimize kernel extension was aborted (the kernel was interrupted).'
      );
    }
  }

  private _request(
    type: string,
    fields: JSONObject,
    opts: {
      comm?: Kernel.IComm;
      timeoutMs?: number;
      onEvent?: (event: ProgressEvent) => void;
    } = {}
  ): Promise<Response> {
    const comm = opts.comm ?? this._connection?.comm;
    if (!comm) {
      return this.connect().then(() => this._request(type, fields, opts));
    }
    const id = UUID.uuid4();
    const timeoutMs = opts.timeoutMs ?? this._requestTimeoutMs;
    return new Promise<Response>((resolve, reject) => {
      const pending: PendingRequest = {
        type,
        resolve,
        reject,
        onEvent: opts.onEvent,
        timer: null,
        armTimer: () => {
          if (pending.timer !== null) {
            clearTimeout(pending.timer);
          }
          pending.timer = setTimeout(() => {
            this._pending.delete(id);
            reject(
              new BridgeError(
                'timeout',
                `The kernel did not answer "${type}" within ${Math.round(timeoutMs / 1000)} s.`
              )
            );
          }, timeoutMs);
        }
      };
      this._pending.set(id, pending);
      pending.armTimer();
      const message = { v: PROTOCOL_VERSION, id, type, ...fields };
      try {
        comm.send(message);
      } catch (err) {
        this._settle(id);
        reject(
          new BridgeError('comm-closed', `Could not send to the kernel: ${(err as Error).message}`)
        );
      }
    });
  }

  private _onCommMessage(comm: Kernel.IComm, msg: KernelMessage.ICommMsgMsg): void {
    if (comm !== this._comm) {
      return;
    }
    const data: unknown = msg.content.data;
    let response: Response;
    try {
      response = validateResponse(data);
    } catch (err) {
      // Reject the request the malformed message names, if any; otherwise it is noise.
      const id =
        typeof data === 'object' && data !== null
          ? (data as { id?: unknown }).id
          : undefined;
      const pending = typeof id === 'string' ? this._settle(id) : undefined;
      const why = err instanceof ProtocolError ? err.message : String(err);
      if (pending) {
        pending.reject(
          new BridgeError('protocol', `The kernel sent a malformed reply (${why}).`)
        );
      } else {
        console.warn('gpuoptimize: ignoring malformed message from the kernel:', why, data);
      }
      return;
    }
    const pending = this._pending.get(response.id);
    if (!pending) {
      return; // A reply to a request we gave up on (timeout, restart).
    }
    if (response.type === 'progress') {
      pending.armTimer();
      pending.onEvent?.(response);
      return;
    }
    this._settle(response.id);
    if (response.type === 'error') {
      pending.reject(new BridgeError('kernel-error', response.message));
    } else {
      pending.resolve(response);
    }
  }

  /** Removes a pending request and its timer; returns it so the caller can settle it. */
  private _settle(id: string): PendingRequest | undefined {
    const pending = this._pending.get(id);
    if (pending) {
      if (pending.timer !== null) {
        clearTimeout(pending.timer);
      }
      this._pending.delete(id);
    }
    return pending;
  }

  /** Forgets the connection and rejects everything pending with `reason`. */
  private _drop(reason: BridgeError): void {
    const pendings = [...this._pending.keys()].map(id => this._settle(id)!);
    for (const pending of pendings) {
      pending.reject(reason);
    }
    const comm = this._comm;
    this._comm = null;
    this._connection = null;
    this._connecting = null;
    if (comm && !comm.isDisposed) {
      try {
        comm.dispose();
      } catch {
        // The kernel may already be gone; nothing to clean up then.
      }
    }
  }

  private _onKernelStatus(_: ISessionContext, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      const hadConnection = this._connection !== null || this._connecting !== null;
      this._drop(
        new BridgeError(
          'kernel-restarted',
          'The kernel restarted, so the request was lost. Nothing in the notebook changed; run it again when the kernel is ready.'
        )
      );
      this._reconnectWhenIdle = this._reconnectWhenIdle || hadConnection;
      this._setStatus('disconnected', null);
    } else if (status === 'dead') {
      this._drop(new BridgeError('no-kernel', 'The kernel died.'));
      this._setStatus('no-kernel', 'The kernel died.');
    } else if (status === 'idle' && this._reconnectWhenIdle) {
      // Say hello again so the device status comes back without a click.
      this._reconnectWhenIdle = false;
      this.connect().catch(() => undefined);
    } else {
      this._changed.emit(); // kernelBusy may have changed
    }
  }

  private _onKernelChanged(
    _: ISessionContext,
    change: { oldValue: Kernel.IKernelConnection | null; newValue: Kernel.IKernelConnection | null }
  ): void {
    const hadConnection = this._connection !== null || this._connecting !== null;
    this._drop(
      new BridgeError(
        'kernel-changed',
        "The notebook's kernel changed, so the request was lost. Run it again."
      )
    );
    this._reconnectWhenIdle = hadConnection && change.newValue !== null;
    this._setStatus(change.newValue ? 'disconnected' : 'no-kernel', null);
  }

  private _setStatus(status: BridgeStatus, error: string | null): void {
    this._status = status;
    this._error = error;
    this._changed.emit();
  }

  private readonly _requestTimeoutMs: number;
  private readonly _runInactivityTimeoutMs: number;
  private readonly _changed = new Signal<this, void>(this);
  private readonly _pending = new Map<string, PendingRequest>();
  private _status: BridgeStatus;
  private _error: string | null = null;
  private _comm: Kernel.IComm | null = null;
  private _connection: Connection | null = null;
  private _connecting: Promise<HelloReply> | null = null;
  private _reconnectWhenIdle = false;
  private _runQueue: Promise<void> = Promise.resolve();
  private _runsInFlight = 0;
  private _isDisposed = false;
}
