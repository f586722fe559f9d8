// Webpack's asset/resource modules: importing a .wasm file yields its URL.
declare module '*.wasm' {
  const url: string;
  export default url;
}
