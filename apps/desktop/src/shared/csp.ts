/**
 * The Content-Security-Policy of the renderer. The page gets it as a meta tag (web twin and
 * Electron alike); Electron's app:// handler also sends the stricter header form, whose
 * connect-src has no http(s): there the LLM is called by the main process.
 *
 * 'wasm-unsafe-eval' lets WebAssembly compile (core's SIMD kernel, onnxruntime-web); no
 * script is ever evaluated from a string and no inline script or style runs.
 */
const COMMON = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
];

/** The web twin: the page itself calls the LLM endpoint the user set, which can be anywhere. */
export const WEB_CSP = [...COMMON, "connect-src 'self' http: https: ws: wss:"].join('; ');

/** Electron: only the relay (websocket) and the app's own files. */
export const ELECTRON_CSP = [...COMMON, "connect-src 'self' ws: wss:", "frame-ancestors 'none'"].join('; ');
