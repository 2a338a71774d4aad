import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Memory } from '@zeromem/core';
import { createApp, type ServiceOptions } from './app.ts';

/** A started service. */
export interface RunningService {
  /** `http://host:port`. */
  url: string;
  /** Stops accepting requests and resolves once open ones are answered (the memory stays open). */
  close(): Promise<void>;
}

/** Where and how to listen, on top of {@link ServiceOptions}. */
export interface StartOptions extends ServiceOptions {
  /** Default `127.0.0.1`: only this machine can connect. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
}

/** Starts the HTTP service over `memory`; resolves once it listens. */
export function startService(memory: Memory, options: StartOptions): Promise<RunningService> {
  const app = createApp(memory, options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8788 }, (info: AddressInfo) => {
      const shown = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shown}:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    server.once('error', reject);
  });
}
