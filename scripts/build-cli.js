// Bundles the CLI into one CommonJS file with the two wasm files beside it, inside the
// Python package, so `pip install` gives a working `gpuoptimize` command (Node is the
// only thing it needs at run time).
const { build } = require('esbuild');
const { copyFileSync, mkdirSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const outDir = join(root, 'python_shim', 'gpuoptimize', 'cli_bundle');
const version = require(join(root, 'package.json')).version;

mkdirSync(outDir, { recursive: true });
build({
  entryPoints: [join(root, 'src', 'cli', 'bin.ts')],
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  outfile: join(outDir, 'gpuoptimize.cjs'),
  define: { __CLI_VERSION__: JSON.stringify(version) },
  // web-tree-sitter's ESM build reads import.meta.url, which a CommonJS bundle lacks: use
  // its CommonJS build (the package's `require` export) for the Node command.
  absWorkingDir: root,
  alias: { 'web-tree-sitter': './node_modules/web-tree-sitter/tree-sitter.cjs' },
  logLevel: 'warning'
}).then(() => {
  copyFileSync(require.resolve('web-tree-sitter/tree-sitter.wasm'), join(outDir, 'tree-sitter.wasm'));
  copyFileSync(
    require.resolve('tree-sitter-python/tree-sitter-python.wasm'),
    join(outDir, 'tree-sitter-python.wasm')
  );
}).catch(() => process.exit(1));
