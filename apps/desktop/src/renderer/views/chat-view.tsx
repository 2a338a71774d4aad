/**
 * An agent's chat: the guided start while the memory is empty, the turns (with the memory
 * tools each reply used and the exact prompt it was built from), and the composer.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { runTurn, type TurnRecord } from '../agent-turn.ts';
import { useApp } from '../app-state.ts';
import { OFFLINE_HELP } from '../offline-reply.ts';
import { AGENTS, seedStory, seedSummary, storySeed, type AgentDefinition } from '../story.ts';
import { PromptView } from '../components/prompt-view.tsx';

export function ChatView({ agent }: { agent: AgentDefinition }) {
  const app = useApp();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [streaming, setStreaming] = useState<{ user: string; reply: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const abort = useRef<AbortController | null>(null);
  const turns = app.turns.filter((t) => t.agent === agent.id);
  const other = AGENTS.find((a) => a.id !== agent.id)!;
  const configured = Boolean(app.llmStatus?.settings) && app.online;

  useEffect(() => inputRef.current?.focus(), [agent.id]);

  const send = async (message: string) => {
    const trimmed = message.trim();
    if (!trimmed || busy) return;
    setBusy(true);
    setError(null);
    setText('');
    setStreaming({ user: trimmed, reply: '' });
    abort.current = new AbortController();
    try {
      const turn = await runTurn({
        memory: app.runtime.memory,
        session: app.session(agent.id),
        agent,
        llm: app.llm,
        online: app.online,
        text: trimmed,
        seq: app.turns.length + 1,
        onDelta: (delta) => setStreaming((s) => (s ? { ...s, reply: s.reply + delta } : s)),
        signal: abort.current.signal,
      });
      app.addTurn(turn);
      const tools = turn.tools.filter((t) => t.ok).length;
      app.announce(`${agent.name} answered${turn.offline ? ' offline' : ''}${tools ? `, ${tools} memory ${tools === 1 ? 'change' : 'changes'}` : ''}.`);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      abort.current = null;
      setStreaming(null);
      setBusy(false);
      inputRef.current?.focus();
    }
  };

  const seed = async () => {
    app.announce(seedSummary(await seedStory(app.runtime.memory)));
  };

  return (
    <section class="view chat" aria-labelledby="chat-title">
      <div class="view-head">
        <div>
          <h2 id="chat-title">{agent.name}</h2>
          <p class="muted">
            {agent.role} Reads the user’s shared memory and its own notes; budget {agent.budget} tokens per turn.
          </p>
        </div>
        <div class="row">
          <button type="button" class="secondary" onClick={() => app.newConversation(agent.id)} disabled={busy || turns.length === 0}>
            New conversation
          </button>
        </div>
      </div>

      {app.userFacts === 0 && turns.length === 0 ? <FirstMinute onSeed={seed} agent={agent} /> : null}

      {!configured ? (
        <p class="notice" id="offline-note">
          {app.online ? 'No LLM endpoint is set' : 'Offline mode is on'}. {OFFLINE_HELP}{' '}
          <a href="#/settings">Set an endpoint</a>
        </p>
      ) : null}

      <ol class="turns" aria-label={`Conversation with the ${agent.name.toLowerCase()}`}>
        {turns.map((turn) => (
          <Turn key={turn.seq} turn={turn} agent={agent} />
        ))}
        {streaming ? (
          <li class="turn">
            <p class="bubble user"><span class="who">You</span>{streaming.user}</p>
            <p class="bubble agent" aria-busy="true"><span class="who">{agent.name}</span>{streaming.reply || 'Building the context and asking…'}</p>
          </li>
        ) : null}
      </ol>
      {turns.length === 0 && !streaming && app.userFacts > 0 ? (
        <div class="empty">
          <p>
            {agent.id === 'marketing'
              ? `Ask what the ${other.name.toLowerCase()} learned — the user’s facts are shared, its private notes are not.`
              : 'Tell the agent what is wrong; it remembers facts for all of the user’s agents.'}
          </p>
        </div>
      ) : null}

      {error ? <p class="error" role="alert">{error}</p> : null}

      <form class="composer" onSubmit={(e) => { e.preventDefault(); void send(text); }}>
        <label for={`composer-${agent.id}`}>Message to the {agent.name.toLowerCase()}</label>
        <div class="composer-row">
          <textarea
            id={`composer-${agent.id}`}
            ref={inputRef}
            rows={2}
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                void send(text);
              }
            }}
            placeholder={agent.suggestions[0]}
            aria-describedby="composer-hint"
          />
          {busy ? (
            <button type="button" class="secondary" onClick={() => abort.current?.abort()}>Stop</button>
          ) : (
            <button type="submit" disabled={!text.trim()}>Send</button>
          )}
        </div>
        <p id="composer-hint" class="hint">Enter sends, Shift+Enter starts a new line. Try:{' '}
          {agent.suggestions.map((s, i) => (
            <button type="button" key={i} class="link" onClick={() => void send(s)} disabled={busy}>“{s}”</button>
          ))}
        </p>
      </form>
    </section>
  );
}

function Turn({ turn, agent }: { turn: TurnRecord; agent: AgentDefinition }) {
  const { report } = turn.context;
  return (
    <li class="turn" data-turn={turn.seq}>
      <p class="bubble user"><span class="who">You</span>{turn.user}</p>
      <div class={`bubble agent${turn.offline ? ' offline' : ''}`}>
        <span class="who">{agent.name}{turn.offline ? ' — offline' : ''}</span>
        <p class="reply">{turn.reply}</p>
      </div>
      {turn.error ? <p class="error">The LLM failed ({turn.error}); this is the offline reply.</p> : null}
      {turn.tools.length ? (
        <ul class="tools" aria-label="Memory tools used">
          {turn.tools.map((tool, i) => (
            <li key={i} class={tool.ok ? 'ok' : 'failed'}>
              <span class="tool-name">{tool.tool}</span> {tool.summary}
            </li>
          ))}
        </ul>
      ) : null}
      <details class="prompt">
        <summary>
          {turn.offline ? 'The exact prompt that would be sent' : 'The exact prompt sent'}: {report.tokens} of {report.budget} tokens, full history {report.fullHistoryTokens ?? '?'}
        </summary>
        <PromptView messages={turn.prompt} />
      </details>
    </li>
  );
}

function FirstMinute({ onSeed, agent }: { onSeed: () => Promise<void>; agent: AgentDefinition }) {
  const [busy, setBusy] = useState(false);
  const facts = storySeed();
  return (
    <div class="first-minute" aria-labelledby="first-title">
      <h3 id="first-title">Your memory is empty — start in one click</h3>
      <p>
        Two agents of one user share what they learn: the <strong>after-sales</strong> agent records facts, the <strong>marketing</strong> agent recalls them. Everything stays in this browser’s storage; memory operations never call an LLM.
      </p>
      <div class="row">
        <button type="button" onClick={async () => { setBusy(true); await onSeed(); setBusy(false); }} disabled={busy}>
          Seed the story ({facts.length} memories)
        </button>
        <span class="muted">or type a message to the {agent.name.toLowerCase()} below.</span>
      </div>
      <ol class="steps">
        <li>Chat here; facts the agent remembers show up under its reply (with no LLM, write {'“REMEMBER: <fact>”'} yourself).</li>
        <li>Open <a href="#/marketing">Marketing</a> and ask what we know about the user.</li>
        <li>See and edit every memory in <a href="#/inspector">Memory</a>, and the tokens saved per turn in <a href="#/tokens">Tokens</a>.</li>
      </ol>
    </div>
  );
}
