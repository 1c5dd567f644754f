// Bundles the JS comparison stack (bench/jsstack.js) into bench/dist/jsstack.js
// the way a web team ships an app: one fully minified ES module, browser builds
// of every dependency (app mode, not lib mode, which keeps whitespace).
// Run from bench/: node ../e2e/node_modules/vite/bin/vite.js build
// (scripts/bench-browser.sh links bench/node_modules to e2e/node_modules first).
export default {
  logLevel: "error",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    minify: "esbuild",
    sourcemap: false,
    modulePreload: false,
    rollupOptions: {
      input: { jsstack: "jsstack.js" },
      preserveEntrySignatures: "strict",
      output: { entryFileNames: "[name].js", chunkFileNames: "[name].js", inlineDynamicImports: false },
    },
  },
};
