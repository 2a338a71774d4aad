import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { expect } from 'vitest';

const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
export const TOKEN = 'test-token-0123456789abcdef';
export const SECRET = 'a-token-secret-of-at-least-32-bytes!!';

/** A started `zeromem-server` child process (the bin's source under node --import tsx; the package test runs the built one). */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  /** Stops it with SIGTERM and waits for the exit (and removes the store it was given by default). */
  stop: () => Promise<number | null>;
}

/**
 * Spawns the service with `args` (a free port, the test token) and resolves once it listens.
 * Its store is on disk: in `env.ZEROMEM_HOME` when given (kept), else in a new temporary
 * directory removed by `stop`.
 */
export async function startServiceProcess(args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
  const home = env.ZEROMEM_HOME === undefined ? mkdtempSync(join(tmpdir(), 'zeromem-serve-')) : undefined;
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, '--port', '0', ...args], {
    env: { ...process.env, ZEROMEM_SERVE_TOKEN: TOKEN, ...(home ? { ZEROMEM_HOME: home } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code))).then((code) => {
    if (home) rmSync(home, { recursive: true, force: true });
    return code;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(stdout);
    if (match) {
      return { child, url: match[1]!, stdout: () => stdout, stderr: () => stderr, exited, stop: () => (child.kill('SIGTERM'), exited) };
    }
    if (child.exitCode !== null) {
      await exited;
      throw new Error(`service exited early (${child.exitCode}): ${stderr}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A response: status, headers and the parsed JSON body (or the text). */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * Calls the service and validates the answer against its own /openapi.json: the route
 * (`template`, e.g. `/v1/memories/{id}`) must document the status, and a JSON body must
 * match the documented schema.
 */
export class Client {
  #validators = new Map<string, (body: unknown) => boolean>();
  #doc: any;
  readonly checked = new Set<string>();

  constructor(
    readonly url: string,
    readonly token: string | undefined = TOKEN,
  ) {}

  async load(): Promise<void> {
    this.#doc = await (await fetch(`${this.url}/openapi.json`)).json();
  }

  get doc(): any {
    return this.#doc;
  }

  async call(
    method: string,
    template: string,
    options: { params?: Record<string, string>; query?: Record<string, string | string[] | undefined>; body?: unknown; raw?: string; headers?: Record<string, string>; token?: string | null } = {},
  ): Promise<Answer> {
    let path = template;
    for (const [name, value] of Object.entries(options.params ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value));
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) search.append(name, v);
    }
    const token = options.token === undefined ? this.token : options.token;
    const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers };
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.url}${path}${search.size ? `?${search}` : ''}`, { method: method.toUpperCase(), headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    const isJson = /^application\/json\b/.test(response.headers.get('content-type') ?? '');
    const answer: Answer = { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text };
    this.#validate(method.toLowerCase(), template, answer);
    return answer;
  }

  #validate(method: string, template: string, answer: Answer): void {
    const operation = this.#doc.paths?.[template]?.[method];
    if (!operation) {
      // An unknown route or method: still the error format.
      expect(answer.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) } });
      return;
    }
    const documented = operation.responses?.[String(answer.status)];
    expect(documented, `${method} ${template} answered ${answer.status}, which /openapi.json does not list: ${JSON.stringify(answer.body)}`).toBeDefined();
    this.checked.add(`${method} ${template} ${answer.status}`);
    const [mediaType, media] = Object.entries(documented.content ?? {})[0] ?? [];
    if (!media) return;
    const key = `${method} ${template} ${answer.status}`;
    let validate = this.#validators.get(key);
    if (!validate) {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajv.addSchema({ $id: 'doc', components: this.#doc.components }, 'doc');
      const schema = JSON.parse(JSON.stringify((media as { schema: unknown }).schema).replaceAll('"#/components/', '"doc#/components/'));
      const compiled = ajv.compile(schema);
      validate = (body) => {
        const ok = compiled(body);
        if (!ok) throw new Error(`${key}: response does not match /openapi.json: ${ajv.errorsText(compiled.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
        return ok;
      };
      this.#validators.set(key, validate);
    }
    if (mediaType === 'application/json') validate(answer.body);
    else expect(typeof answer.body).toBe('string');
  }
}
