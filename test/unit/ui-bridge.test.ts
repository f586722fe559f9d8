/**
 * The kernel bridge (src/kernel/bridge.ts) against a fake kernel: what it sends, how it reads
 * replies, and what the user is told when the kernel misbehaves, restarts or lacks the shim.
 */
import { Signal } from '@lumino/signaling';
import { BridgeError, KernelBridge } from '../../src/kernel/bridge';
import { abResult } from './ui-abResult.fixture';

type Json = Record<string, any>;

/** A comm that records what the bridge sends; `reply` plays the shim's answer. */
class FakeComm {
  sent: Json[] = [];
  opened = false;
  isDisposed = false;
  commsOverSubshells: string | undefined = 'perCommTarget';
  onMsg: (msg: any) => void = () => undefined;
  onClose: (msg: any) => void = () => undefined;
  open() {
    this.opened = true;
    return { done: Promise.resolve() };
  }
  send(data: Json) {
    this.sent.push(data);
    this.onSend?.(data);
    return { done: Promise.resolve() };
  }
  onSend?: (data: Json) => void;
  reply(data: unknown) {
    this.onMsg({ content: { data } });
  }
  close() {
    this.isDisposed = true;
  }
  dispose() {
    this.isDisposed = true;
  }
}

const environment = { gpus: [], libraries: [], problems: [], calibration: null, python: '3.11', driver_version: null, runtime_version: null };

class FakeKernel {
  status = 'idle';
  executed: Json[] = [];
  comms: FakeComm[] = [];
  interrupts = 0;
  /** The execute_reply content for `%load_ext gpuoptimize`. */
  loadReply: Json = { status: 'ok' };
  /** How the fake shim answers hello. */
  shimVersion = '0.1.0';
  autoHello = true;
  requestExecute(content: Json) {
    this.executed.push(content);
    return { done: Promise.resolve({ content: this.loadReply }) };
  }
  createComm() {
    const comm = new FakeComm();
    comm.onSend = data => {
      if (data.type === 'hello' && this.autoHello) {
        queueMicrotask(() =>
          comm.reply({ v: 1, id: data.id, type: 'hello_reply', protocol: 1, shim_version: this.shimVersion, environment })
        );
      }
    };
    this.comms.push(comm);
    return comm;
  }
  async interrupt() {
    this.interrupts += 1;
  }
}

class FakeSessionContext {
  constructor(readonly kernel: FakeKernel) {}
  statusChanged = new Signal<this, string>(this);
  kernelChanged = new Signal<this, any>(this);
  get session() {
    return { kernel: this.kernel };
  }
  setStatus(status: string) {
    this.kernel.status = status;
    this.statusChanged.emit(status);
  }
}

function setup(options = {}) {
  const kernel = new FakeKernel();
  const context = new FakeSessionContext(kernel);
  const bridge = new KernelBridge(context as any, options);
  return { kernel, context, bridge };
}

const tick = () => new Promise(resolve => setTimeout(resolve, 0));

test('connect loads the shim silently, keeps the comm off subshells and says hello', async () => {
  const { kernel, bridge } = setup();
  const hello = await bridge.connect();
  expect(kernel.executed).toEqual([
    { code: '%load_ext gpuoptimize', silent: true, store_history: false, allow_stdin: false, stop_on_error: false }
  ]);
  const comm = kernel.comms[0];
  expect(comm.opened).toBe(true);
  expect(comm.commsOverSubshells).toBe('disabled');
  expect(comm.sent[0]).toMatchObject({ v: 1, type: 'hello', client_version: '0.1.0' });
  expect(hello.shim_version).toBe('0.1.0');
  expect(bridge.status).toBe('ready');
  expect(bridge.environment).toEqual(environment);
  // A second connect reuses the connection.
  await bridge.connect();
  expect(kernel.comms).toHaveLength(1);
});

test('a kernel without the shim gets the install command', async () => {
  const { kernel, bridge } = setup();
  kernel.loadReply = { status: 'error', ename: 'ModuleNotFoundError', evalue: "No module named 'gpuoptimize'" };
  await expect(bridge.connect()).rejects.toThrow(
    "The gpuoptimize kernel package is not installed in this kernel's environment: pip install jupyterlab-gpuoptimize"
  );
  expect(bridge.status).toBe('shim-missing');
});

test('an old shim is refused with an upgrade hint', async () => {
  const { kernel, bridge } = setup();
  kernel.shimVersion = '0.0.9';
  await expect(bridge.connect()).rejects.toThrow(/0\.0\.9.*pip install -U jupyterlab-gpuoptimize/);
  expect(bridge.status).toBe('shim-outdated');
});

test('runAB forwards progress, validates the result and resolves with it', async () => {
  const { kernel, bridge } = setup();
  await bridge.connect();
  const comm = kernel.comms[0];
  const progress: number[] = [];
  const run = bridge.runAB({ baseline: 'y = np.exp(x)', candidate: 'y = cp.exp(x)', budgetSeconds: 2, onProgress: p => progress.push(p.runs_done) });
  await tick();
  const request = comm.sent.find(m => m.type === 'run_ab')!;
  expect(request).toMatchObject({ baseline: 'y = np.exp(x)', candidate: 'y = cp.exp(x)', budget_s: 2 });
  comm.reply({ v: 1, id: request.id, type: 'progress', phase: 'baseline', runs_done: 3, elapsed_s: 0.4, budget_s: 2 });
  comm.reply({ v: 1, id: 'someone-else', type: 'progress', phase: 'baseline', runs_done: 99, elapsed_s: 0.4, budget_s: 2 });
  comm.reply({ v: 1, id: request.id, type: 'ab_result', result: abResult() });
  await expect(run).resolves.toMatchObject({ verdict: 'gpu_faster' });
  expect(progress).toEqual([3]);
});

test('a malformed reply rejects its request with a clear message', async () => {
  const { kernel, bridge } = setup();
  await bridge.connect();
  const comm = kernel.comms[0];
  const run = bridge.runAB({ baseline: 'a', candidate: 'b' });
  await tick();
  const request = comm.sent.find(m => m.type === 'run_ab')!;
  comm.reply({ v: 1, id: request.id, type: 'ab_result', result: abResult({ verdict: 'amazing' }) });
  await expect(run).rejects.toThrow(/The kernel sent a malformed reply \(verdict: amazing\)/);
});

test('an error reply rejects with the shim’s message', async () => {
  const { kernel, bridge } = setup();
  await bridge.connect();
  const comm = kernel.comms[0];
  const inspect = bridge.inspect(['x']);
  await tick();
  const request = comm.sent.find(m => m.type === 'inspect')!;
  comm.reply({ v: 1, id: request.id, type: 'error', code: 'bad_field', message: 'names: expected a list of strings' });
  await expect(inspect).rejects.toThrow('names: expected a list of strings');
});

test('a kernel restart rejects pending requests and says hello again when idle', async () => {
  const { kernel, context, bridge } = setup();
  await bridge.connect();
  const run = bridge.runAB({ baseline: 'a', candidate: 'b' });
  await tick();
  context.setStatus('restarting');
  await expect(run).rejects.toThrow(/The kernel restarted/);
  expect(bridge.status).toBe('disconnected');
  context.setStatus('idle');
  await tick();
  await tick();
  expect(kernel.comms).toHaveLength(2);
  expect(bridge.status).toBe('ready');
});

test('a run asked for while the kernel is busy waits, and Cancel drops it without an interrupt', async () => {
  const { kernel, context, bridge } = setup();
  await bridge.connect();
  context.setStatus('busy');
  const states: string[] = [];
  const abort = new AbortController();
  const run = bridge.runAB({ baseline: 'a', candidate: 'b', signal: abort.signal, onQueueState: s => states.push(s) });
  await tick();
  expect(states).toEqual(['waiting-for-kernel']);
  expect(kernel.comms[0].sent.some(m => m.type === 'run_ab')).toBe(false);
  abort.abort();
  await expect(run).rejects.toMatchObject({ code: 'cancelled' });
  expect(kernel.interrupts).toBe(0);
});

test('Cancel of a sent run interrupts the kernel', async () => {
  const { kernel, bridge } = setup();
  await bridge.connect();
  const abort = new AbortController();
  const run = bridge.runAB({ baseline: 'a', candidate: 'b', signal: abort.signal });
  await tick();
  abort.abort();
  expect(kernel.interrupts).toBe(1);
  const request = kernel.comms[0].sent.find(m => m.type === 'run_ab')!;
  kernel.comms[0].reply({ v: 1, id: request.id, type: 'ab_result', result: abResult({ verdict: 'cancelled' }) });
  await expect(run).resolves.toMatchObject({ verdict: 'cancelled' });
});

test('a request the kernel never answers times out', async () => {
  const { bridge } = setup({ requestTimeoutMs: 20 });
  await bridge.connect();
  await expect(bridge.doctor()).rejects.toEqual(expect.any(BridgeError));
  await expect(bridge.doctor()).rejects.toThrow(/did not answer "doctor"/);
});
