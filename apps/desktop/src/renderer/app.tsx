/** The app shell: header, navigation (click, arrow keys, Alt+1..6), the current view, a status line. */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { LlmStatus } from '../shared/ipc-contract.ts';
import { openAgentSession, type TurnRecord } from './agent-turn.ts';
import type { AppSession } from './app-memory.ts';
import { AppContext, type AppState } from './app-state.ts';
import type { LlmClient } from './llm-client.ts';
import { VIEWS, viewFromHash, type ViewId } from './routes.ts';
import type { Runtime } from './runtime.ts';
import { AGENTS, agentById, userNamespace, type AgentId } from './story.ts';
import { SyncClient, loadSyncSettings } from './sync-client.ts';
import { ChatView } from './views/chat-view.tsx';
import { InspectorView } from './views/inspector-view.tsx';
import { SettingsView } from './views/settings-view.tsx';
import { SyncView } from './views/sync-view.tsx';
import { TokensView } from './views/tokens-view.tsx';

const CONVERSATION_KEY = 'zeromem.conversations';

function conversationIds(): Record<AgentId, string> {
  try {
    const stored = JSON.parse(localStorage.getItem(CONVERSATION_KEY) ?? 'null') as Record<AgentId, string> | null;
    if (stored && AGENTS.every((a) => typeof stored[a.id] === 'string')) return stored;
  } catch {
    /* a fresh set below */
  }
  const fresh = Object.fromEntries(AGENTS.map((a) => [a.id, crypto.randomUUID()])) as Record<AgentId, string>;
  localStorage.setItem(CONVERSATION_KEY, JSON.stringify(fresh));
  return fresh;
}

export function App({ runtime, llm }: { runtime: Runtime; llm: LlmClient }) {
  const [view, setView] = useState<ViewId>(viewFromHash(location.hash));
  const [llmStatus, setLlmStatus] = useState<LlmStatus | null>(null);
  const [online, setOnline] = useState(localStorage.getItem('zeromem.offline') !== '1');
  const [turns, setTurns] = useState<TurnRecord[]>([]);
  const [userFacts, setUserFacts] = useState(0);
  const [semantic, setSemantic] = useState(() => runtime.embedder?.state() ?? null);
  const [message, setMessage] = useState('');
  const [conversations, setConversations] = useState(conversationIds);
  const sessions = useRef(new Map<string, AppSession>());
  const sync = useMemo(() => (runtime.local ? new SyncClient(runtime.local, userNamespace()) : null), [runtime]);
  const mainRef = useRef<HTMLElement>(null);
  const navRef = useRef<HTMLElement>(null);

  useEffect(() => {
    const onHash = () => setView(viewFromHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    llm.status().then(setLlmStatus, () => undefined);
  }, [llm]);

  useEffect(() => {
    if (!runtime.embedder) return undefined;
    setSemantic(runtime.embedder.state());
    return runtime.embedder.onState(setSemantic);
  }, [runtime]);

  useEffect(() => runtime.memory.watch(userNamespace(), { limit: 1000 }, (page) => setUserFacts(page.items.length)), [runtime]);

  useEffect(() => {
    const settings = loadSyncSettings();
    if (sync && settings?.autoConnect) void sync.connect(settings);
  }, [sync]);

  // A view opens at its top with an empty status line: the previous view's scroll and message
  // belong to that view. (A layout effect: it runs before a view's own effects, like the chat's
  // focus on its composer.)
  useLayoutEffect(() => {
    scrollTo(0, 0);
    setMessage('');
  }, [view]);

  const navigate = useCallback((next: ViewId) => {
    if (location.hash !== `#/${next}`) location.hash = `#/${next}`;
    setView(next);
    requestAnimationFrame(() => mainRef.current?.focus({ preventScroll: true }));
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!event.altKey || event.ctrlKey || event.metaKey) return;
      const index = Number(event.key) - 1;
      const target = VIEWS[index];
      if (target) {
        event.preventDefault();
        navigate(target.id);
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [navigate]);

  const state: AppState = {
    runtime,
    llm,
    llmStatus,
    setLlmStatus,
    online,
    setOnline: (value) => {
      localStorage.setItem('zeromem.offline', value ? '0' : '1');
      setOnline(value);
    },
    turns,
    addTurn: (turn) => setTurns((all) => [...all, turn]),
    session: (agent) => {
      const id = conversations[agent];
      let session = sessions.current.get(id);
      if (!session) {
        session = openAgentSession(runtime.memory, agentById(agent), id);
        sessions.current.set(id, session);
      }
      return session;
    },
    newConversation: (agent) => {
      const next = { ...conversations, [agent]: crypto.randomUUID() };
      localStorage.setItem(CONVERSATION_KEY, JSON.stringify(next));
      setConversations(next);
      setTurns((all) => all.filter((t) => t.agent !== agent));
    },
    sync,
    userFacts,
    navigate,
    announce: setMessage,
  };

  const onNavKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft' && event.key !== 'Home' && event.key !== 'End') return;
    const buttons = [...(navRef.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = event.key === 'Home' ? 0 : event.key === 'End' ? buttons.length - 1 : (at + (event.key === 'ArrowRight' ? 1 : -1) + buttons.length) % buttons.length;
    event.preventDefault();
    buttons[next]?.focus();
  };

  const llmLabel = !online ? 'Offline mode' : llmStatus?.settings ? `LLM: ${llmStatus.settings.model}` : 'No LLM set: offline replies';
  const current = VIEWS.find((v) => v.id === view)!;

  return (
    <AppContext.Provider value={state}>
      <a class="skip-link" href="#main" onClick={(e) => { e.preventDefault(); mainRef.current?.focus(); }}>
        Skip to content
      </a>
      <header class="topbar">
        <div class="brand">
          <span class="logo" aria-hidden="true">0</span>
          <span>
            <strong>zeromem</strong> <span class="muted" title={runtime.where}>{runtime.local ? 'memory on this device' : 'the device store, shared with your other tools'}</span>
          </span>
        </div>
        <ul class="badges" aria-label="Status">
          <li class="badge" title="Memories in the user's namespace, which both agents read; the agents' private notes are not counted">{userFacts} shared {userFacts === 1 ? 'fact' : 'facts'}</li>
          <li class={`badge ${semantic?.status === 'ready' ? '' : 'warn'}`} data-semantic={semantic?.status ?? 'off'} title={(semantic?.status === 'failed' ? semantic.problem : runtime.embedderProblem) ?? undefined}>
            {semantic?.status === 'ready' ? 'Semantic search ready' : semantic?.status === 'loading' ? 'Loading the model: word search meanwhile' : 'Embedder off: word search only'}
          </li>
          <li class="badge">{llmLabel}</li>
        </ul>
      </header>
      <nav class="tabs" aria-label="Views" ref={navRef} onKeyDown={onNavKey}>
        {VIEWS.map((v, i) => (
          <button type="button" key={v.id} class="tab" aria-current={v.id === view ? 'page' : undefined} onClick={() => navigate(v.id)} title={`${v.title} (Alt+${i + 1})`}>
            {v.label}
          </button>
        ))}
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1} aria-label={current.title}>
        {view === 'after-sales' || view === 'marketing' ? <ChatView key={view} agent={agentById(view)} /> : null}
        {view === 'inspector' ? <InspectorView /> : null}
        {view === 'tokens' ? <TokensView /> : null}
        {view === 'sync' ? <SyncView /> : null}
        {view === 'settings' ? <SettingsView /> : null}
      </main>
      <footer class="statusline">
        <p role="status" aria-live="polite">{message}</p>
      </footer>
    </AppContext.Provider>
  );
}
