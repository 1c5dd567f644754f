package host

// defaultDigest is nil under js/wasm: the wasm module passes
// Options.Digest backed by the page's WebCrypto, so that crypto/sha256 is
// not linked into the module.
var defaultDigest DigestFunc
