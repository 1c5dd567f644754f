// Vite configuration of the one-page consumer built by e2e/vite.test.mjs.
// Nothing mcphost-specific: the defaults must be enough.
export default {
  logLevel: 'warn',
  build: { emptyOutDir: true },
}
