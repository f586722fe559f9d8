/** Entry point of the bundled command (python_shim/gpuoptimize/cli_bundle/gpuoptimize.cjs). */
import { main } from './main';

void main(process.argv.slice(2), {
  stdout: s => process.stdout.write(s),
  stderr: s => process.stderr.write(s),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env
}).then(code => {
  process.exitCode = code;
});
