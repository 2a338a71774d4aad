/** Sync: relay URL and token, state, peers online, pending changes, encryption. */
import { useEffect, useState } from 'preact/hooks';
import { generateNamespaceKey } from '@zeromem/sync';
import { useApp } from '../app-state.ts';
import { loadSyncSettings, saveSyncSettings, type SyncClient, type SyncSettings, type SyncSnapshot } from '../sync-client.ts';

const STATE_TEXT: Record<SyncSnapshot['state'], string> = {
  off: 'Not connected',
  connecting: 'Connecting…',
  connected: 'Connected',
  offline: 'Offline (changes wait on this device)',
  failed: 'Failed',
};

export function SyncView() {
  const { sync, runtime } = useApp();
  if (!sync) {
    return (
      <section class="view sync" aria-labelledby="sync-title">
        <h2 id="sync-title">Sync between devices</h2>
        <p class="notice">
          The desktop app keeps its memory in this machine’s device store (<code>{runtime.where}</code>), which Claude Desktop’s and Cursor’s
          zeromem-mcp and the zeromem CLI share. To sync it with other devices, run <code>zeromem-mcp --share</code> with a relay; the web twin syncs
          its own browser memory from this view.
        </p>
      </section>
    );
  }
  return <RelaySync sync={sync} />;
}

function RelaySync({ sync }: { sync: SyncClient }) {
  const { announce } = useApp();
  const [snapshot, setSnapshot] = useState<SyncSnapshot>(sync.snapshot());
  const [settings, setSettings] = useState<SyncSettings>(loadSyncSettings() ?? { url: 'ws://127.0.0.1:8787', token: '', encryptionKey: '', deviceName: navigator.platform ? `${navigator.platform} browser` : 'this device', autoConnect: true });
  const [busy, setBusy] = useState(false);
  useEffect(() => sync.subscribe(setSnapshot), [sync]);
  const set = (patch: Partial<SyncSettings>) => setSettings((s) => ({ ...s, ...patch }));
  const active = snapshot.state !== 'off';

  const connect = async () => {
    setBusy(true);
    saveSyncSettings(settings);
    await sync.connect(settings);
    setBusy(false);
    announce(`Sync: ${STATE_TEXT[sync.snapshot().state]}.`);
  };
  const disconnect = async () => {
    await sync.disconnect();
    saveSyncSettings({ ...settings, autoConnect: false });
    announce('Sync disconnected.');
  };

  return (
    <section class="view sync" aria-labelledby="sync-title">
      <h2 id="sync-title">Sync between devices</h2>
      <p class="muted">
        Shares the user’s namespace (room <code>{snapshot.room}</code>) through a zeromem relay. Each agent’s private namespace never leaves this device.
      </p>
      <div class="columns">
        <form class="card" onSubmit={(e) => { e.preventDefault(); void connect(); }} aria-label="Relay settings">
          <div class="field">
            <label for="sync-url">Relay URL</label>
            <input id="sync-url" value={settings.url} onInput={(e) => set({ url: (e.target as HTMLInputElement).value })} placeholder="ws://127.0.0.1:8787" required />
          </div>
          <div class="field">
            <label for="sync-token">Token</label>
            <input id="sync-token" type="password" autocomplete="off" value={settings.token} onInput={(e) => set({ token: (e.target as HTMLInputElement).value })} required aria-describedby="sync-token-hint" />
            <p class="hint" id="sync-token-hint">
              Mint one where the relay runs: <code>npx zeromem-relay token --room '{snapshot.room}' --ttl 12h</code>
            </p>
          </div>
          <div class="field">
            <label for="sync-key">Encryption key (optional, the same on every device)</label>
            <div class="composer-row">
              <input id="sync-key" type="password" autocomplete="off" value={settings.encryptionKey} onInput={(e) => set({ encryptionKey: (e.target as HTMLInputElement).value })} />
              <button type="button" class="secondary" onClick={() => set({ encryptionKey: generateNamespaceKey() })}>New key</button>
            </div>
          </div>
          <div class="field">
            <label for="sync-device">This device’s name (what peers see)</label>
            <input id="sync-device" value={settings.deviceName} onInput={(e) => set({ deviceName: (e.target as HTMLInputElement).value })} />
          </div>
          <div class="check">
            <input id="sync-auto" type="checkbox" checked={settings.autoConnect} onChange={(e) => set({ autoConnect: (e.target as HTMLInputElement).checked })} />
            <label for="sync-auto">Connect when the app starts</label>
          </div>
          <div class="row">
            <button type="submit" disabled={busy || !settings.url || !settings.token}>{active ? 'Reconnect' : 'Connect'}</button>
            <button type="button" class="secondary" onClick={() => void disconnect()} disabled={!active}>Disconnect</button>
          </div>
        </form>
        <div class="card" aria-labelledby="sync-status-title">
          <h3 id="sync-status-title">Status</h3>
          <dl class="facts">
            <dt>State</dt>
            <dd data-testid="sync-state" class={`state-${snapshot.state}`}>{STATE_TEXT[snapshot.state]}</dd>
            <dt>Peers online</dt>
            <dd data-testid="sync-peers">
              {snapshot.peers.length === 0 ? 'none' : (
                <ul>
                  {snapshot.peers.map((peer) => <li key={peer.clientId}>{peer.agentName ?? 'unnamed'} on {peer.deviceName ?? 'unknown device'}{peer.readOnly ? ' (read-only)' : ''}</li>)}
                </ul>
              )}
            </dd>
            <dt>Pending changes</dt>
            <dd data-testid="sync-pending">{snapshot.pending}</dd>
            <dt>Encryption</dt>
            <dd>{snapshot.encrypted ? 'On (AES-GCM, end to end)' : 'Off (the relay can read the records)'}</dd>
            <dt>Access</dt>
            <dd>{snapshot.readOnly ? 'Read-only token' : 'Read and write'}</dd>
            {snapshot.rejected ? (<><dt>Refused records</dt><dd>{snapshot.rejected}</dd></>) : null}
          </dl>
          {snapshot.error ? <p class="error" role="alert">{snapshot.error}</p> : null}
          {snapshot.state === 'off' ? (
            <div class="empty">
              <p>Start a relay, then paste its URL and a token:</p>
              <pre tabIndex={0}>{`export ZEROMEM_RELAY_SECRET="$(openssl rand -base64 48)"\nnpx zeromem-relay --port 8787 --data-dir ./relay-data`}</pre>
            </div>
          ) : null}
        </div>
      </div>
    </section>
  );
}
