import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { RevocationList } from '../auth/revocations.ts';
import { type Admission, admit } from '../auth/upgrade-auth.ts';
import type { Coordination } from '../cluster/coordination.ts';
import { CLOSE } from '@zeromem/protocol';
import type { ResolvedOptions } from '../options.ts';
import type { Connections } from './connections.ts';
import { refuseUpgrade } from './http-answers.ts';
import type { SubjectThrottle } from './subject-throttle.ts';

/**
 * Websocket upgrades: the token is checked (and revocations, the subject's connection count
 * and CPU budget) before any websocket exists; an admitted socket goes to {@link Connections}.
 * Nothing that fails for one upgrade or connection reaches the process.
 */
export class Upgrades {
  private nextConnection = 0;

  constructor(
    private readonly config: ResolvedOptions,
    private readonly wss: WebSocketServer,
    private readonly revoked: RevocationList,
    private readonly coordination: Coordination,
    private readonly throttle: SubjectThrottle,
    private readonly connections: Connections,
    /** True once the relay stops: upgrades are refused with 503. */
    private readonly stopping: () => boolean,
  ) {}

  /** Handles the HTTP server's `upgrade` event. */
  handle(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // An unhandled rejection would end the process, and every room with it.
    this.upgrade(request, socket, head).catch((err: Error) => {
      this.config.logger.error('upgrade failed', { error: err.message });
      socket.destroy();
    });
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const log = this.config.logger;
    if (this.stopping()) return refuseUpgrade(socket, 503, 'relay shutting down');
    let decision: Admission | { status: number; reason: string; headers?: Record<string, string> };
    // The check's time on this thread (parsing, verifying, once the subject is known the
    // rest of the upgrade) is charged to the subject; the HMAC itself runs in WebCrypto.
    let started = performance.now();
    let checking = 0;
    try {
      const deciding = admit(request, this.config.secret);
      checking = performance.now() - started;
      decision = await deciding;
    } catch (err) {
      log.error('upgrade failed', { error: (err as Error).message });
      return refuseUpgrade(socket, 500, 'internal error');
    }
    started = performance.now();
    if (this.stopping()) return refuseUpgrade(socket, 503, 'relay shutting down');
    if ('status' in decision) {
      log.info('upgrade refused', { status: decision.status, reason: decision.reason, remote: request.socket.remoteAddress });
      return refuseUpgrade(socket, decision.status, decision.reason, decision.headers);
    }
    const admission = decision;
    this.throttle.charge(admission.subject, checking + performance.now() - started);
    if (this.revoked.revokes(admission)) {
      log.info('upgrade refused', { status: 401, reason: 'token revoked', subject: admission.subject });
      return refuseUpgrade(socket, 401, 'token revoked', { 'WWW-Authenticate': 'Bearer realm="zeromem-relay", error="invalid_token"' });
    }
    if (this.throttle.overdrawn(admission.subject)) {
      log.warn('upgrade refused', { status: 429, reason: 'cpu budget spent', subject: admission.subject });
      return refuseUpgrade(socket, 429, 'this token subject used its share of the relay: retry in a second', { 'Retry-After': '1' });
    }
    const connection = String(++this.nextConnection);
    let counted: boolean;
    try {
      counted = await this.coordination.acquireConnection(admission.subject, connection, this.config.maxConnectionsPerSubject);
    } catch (err) {
      log.error('upgrade refused: connection count unavailable', { status: 503, subject: admission.subject, error: (err as Error).message });
      return refuseUpgrade(socket, 503, 'relay state unavailable, retry', { 'Retry-After': '1' });
    }
    if (!counted) {
      log.warn('upgrade refused', { status: 429, reason: 'too many connections', subject: admission.subject });
      return refuseUpgrade(socket, 429, 'too many connections for this token subject');
    }
    if (this.stopping() || !socket.writable) {
      this.coordination.releaseConnection(admission.subject, connection);
      return this.stopping() ? refuseUpgrade(socket, 503, 'relay shutting down') : undefined;
    }
    this.throttle.measure(admission.subject, () =>
      this.wss.handleUpgrade(request, socket, head, (ws) => {
        this.connections.serve(ws, admission, connection).catch((err: Error) => {
          log.error('connection failed', { room: admission.room, subject: admission.subject, error: err.message });
          ws.close(CLOSE.internalError, 'internal error');
        });
      }),
    );
  }
}
