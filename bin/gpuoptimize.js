#!/usr/bin/env node
// `npx gpuoptimize` from the repository: runs the bundled CLI (built by `npm run build:cli`).
const { existsSync } = require('fs');
const { join } = require('path');
const bundle = join(__dirname, '..', 'python_shim', 'gpuoptimize', 'cli_bundle', 'gpuoptimize.cjs');
if (!existsSync(bundle)) {
  process.stderr.write('gpuoptimize: the CLI is not built yet: run `npm run build:cli`\n');
  process.exit(2);
}
require(bundle);
