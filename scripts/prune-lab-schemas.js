// schema/ holds two kinds of schema: JupyterLab settings (schema/plugin.json, the package's
// `jupyterlab.schemaDir`) and the CLI report contract (schema/cli/report.schema.json).
// jupyter-builder copies everything under schemaDir into the extension, and the server would
// then serve schema/cli/* as a settings plugin with a "/" in its id: /lab/api/settings answers
// 404 and no settings load. Keep only the settings schemas in the built extension.
const { existsSync, readdirSync, rmSync, statSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const pkg = require(join(root, 'package.json'));
const built = join(root, pkg.jupyterlab.outputDir, 'schemas', pkg.name);
if (existsSync(built)) {
  for (const name of readdirSync(built)) {
    const p = join(built, name);
    if (statSync(p).isDirectory() || !(name.endsWith('.json') || name === 'package.json.orig')) {
      rmSync(p, { recursive: true, force: true });
    }
  }
}
