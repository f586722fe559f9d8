// Merged by @jupyterlab/builder into its own webpack config.
//
// web-tree-sitter and the Python grammar are WebAssembly modules: ship both as plain
// assets and hand their URLs to Parser.init / Language.load (see src/wasmAssets.ts).
// web-tree-sitter's ESM build also contains Node-only branches (fs, module, ...) that
// never run in a browser; they are stubbed out here so webpack does not try to bundle them.
module.exports = {
  module: {
    rules: [
      {
        test: /\.wasm$/,
        type: 'asset/resource',
        generator: { filename: 'wasm/[name].[contenthash:8][ext]' }
      }
    ]
  },
  resolve: {
    fallback: {
      fs: false,
      'fs/promises': false,
      module: false,
      path: false,
      url: false
    }
  }
};
