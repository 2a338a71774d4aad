/** LLM settings: an OpenAI-compatible endpoint (presets for local servers), model, API key, offline mode. */
import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../app-state.ts';
import { OFFLINE_HELP } from '../offline-reply.ts';
import { seedStory, seedSummary, storySeed } from '../story.ts';

const PRESETS = [
  { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
  { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', model: 'local-model' },
  { name: 'llama.cpp server', baseUrl: 'http://127.0.0.1:8080/v1', model: 'default' },
];

export function SettingsView() {
  const app = useApp();
  const status = app.llmStatus;
  const [baseUrl, setBaseUrl] = useState(status?.settings?.baseUrl ?? '');
  const [model, setModel] = useState(status?.settings?.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const [rememberKey, setRememberKey] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (status?.settings) {
      setBaseUrl(status.settings.baseUrl);
      setModel(status.settings.model);
    }
  }, [status?.settings?.baseUrl, status?.settings?.model]);

  const save = async (clearKey = false) => {
    setProblem(null);
    setSaved(false);
    try {
      const next = await app.llm.save({ baseUrl, model, ...(clearKey ? { apiKey: null } : apiKey ? { apiKey } : {}), rememberKey });
      app.setLlmStatus(next);
      setApiKey('');
      setSaved(true);
      app.announce('LLM settings saved.');
    } catch (err) {
      setProblem((err as Error).message);
    }
  };

  const keyWhere = app.llm.platform === 'electron' ? 'Kept by the main process in the OS keychain (safeStorage); this page never sees it.' : 'Kept for this tab only (sessionStorage) unless you tick the box.';

  return (
    <section class="view settings" aria-labelledby="settings-title">
      <h2 id="settings-title">LLM settings</h2>
      <p class="muted">Any OpenAI-compatible endpoint: a local server (Ollama, LM Studio, llama.cpp’s server) or a hosted one. Without one the agents answer offline from their memories.</p>
      <div class="columns">
        <form class="card" onSubmit={(e) => { e.preventDefault(); void save(); }} aria-label="LLM endpoint">
          <div class="row wrap" role="group" aria-label="Presets">
            {PRESETS.map((p) => (
              <button type="button" class="secondary small" key={p.name} onClick={() => { setBaseUrl(p.baseUrl); setModel(p.model); }}>{p.name}</button>
            ))}
          </div>
          <div class="field">
            <label for="llm-url">Base URL</label>
            <input id="llm-url" value={baseUrl} onInput={(e) => setBaseUrl((e.target as HTMLInputElement).value)} placeholder="http://127.0.0.1:11434/v1" required />
          </div>
          <div class="field">
            <label for="llm-model">Model</label>
            <input id="llm-model" value={model} onInput={(e) => setModel((e.target as HTMLInputElement).value)} placeholder="llama3.2" required />
          </div>
          <div class="field">
            <label for="llm-key">API key {status?.hasApiKey ? '(one is stored; leave empty to keep it)' : '(optional; local servers need none)'}</label>
            <input id="llm-key" type="password" autocomplete="off" value={apiKey} onInput={(e) => setApiKey((e.target as HTMLInputElement).value)} aria-describedby="llm-key-hint" />
            <p class="hint" id="llm-key-hint">{keyWhere}</p>
          </div>
          {app.llm.platform === 'web' ? (
            <div class="check">
              <input id="llm-remember" type="checkbox" checked={rememberKey} onChange={(e) => setRememberKey((e.target as HTMLInputElement).checked)} />
              <label for="llm-remember">Remember the key on this device (localStorage)</label>
            </div>
          ) : null}
          {problem ? <p class="error" role="alert">{problem}</p> : null}
          {saved ? <p class="ok">Saved.</p> : null}
          <div class="row">
            <button type="submit">Save</button>
            {status?.hasApiKey ? <button type="button" class="secondary" onClick={() => void save(true)}>Delete the stored key</button> : null}
          </div>
        </form>
        <div class="card">
          <h3>Offline mode</h3>
          <div class="check">
            <input id="offline" type="checkbox" checked={!app.online} onChange={(e) => app.setOnline(!(e.target as HTMLInputElement).checked)} />
            <label for="offline">Never call the LLM: show the exact prompt and answer from recalled memories</label>
          </div>
          <p class="hint">{OFFLINE_HELP}</p>
          <h3>Story data</h3>
          <p class="muted">The seed story’s {storySeed().length} memories (what after-sales learned about user-1042 over three days, one of them its private note). Seeding twice adds nothing.</p>
          <button type="button" class="secondary" onClick={async () => app.announce(seedSummary(await seedStory(app.runtime.memory)))}>
            Seed the story
          </button>
          <h3>Keyboard</h3>
          <ul class="plain">
            <li><kbd>Alt</kbd>+<kbd>1</kbd>…<kbd>6</kbd> switch views; <kbd>←</kbd> <kbd>→</kbd> move along the tabs</li>
            <li><kbd>Enter</kbd> sends a message, <kbd>Shift</kbd>+<kbd>Enter</kbd> adds a line</li>
          </ul>
        </div>
      </div>
    </section>
  );
}
