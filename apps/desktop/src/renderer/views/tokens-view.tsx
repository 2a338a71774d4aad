/**
 * Tokens per turn: what each layer injected (stacked) against what resending the full
 * history would cost (the line), and the selected turn's context report.
 */
import { useEffect, useState } from 'preact/hooks';
import { CONTEXT_LAYERS, type MemoryRecord } from '@zeromem/core';
import type { TurnRecord } from '../agent-turn.ts';
import { useApp } from '../app-state.ts';
import { ChartCanvas } from '../components/chart-canvas.tsx';
import { agentById, agentNamespace, userNamespace } from '../story.ts';

const LAYER_COLORS: Record<string, string> = { system: '#5b6470', profile: '#7a3fb0', session: '#1f5fbf', long_term: '#1b7f4d', knowledge: '#b35900' };

export function TokensView() {
  const { turns } = useApp();
  const [selected, setSelected] = useState<number | null>(null);
  const turn = turns.find((t) => t.seq === selected) ?? turns.at(-1);

  if (turns.length === 0) {
    return (
      <section class="view" aria-labelledby="tokens-title">
        <h2 id="tokens-title">Tokens per turn</h2>
        <div class="empty">
          <p>No turns yet. Each chat turn builds a context within its budget; its tokens per layer, and what the full history would have cost, appear here.</p>
          <a href="#/after-sales">Start with the after-sales agent</a>
        </div>
      </section>
    );
  }

  const labels = turns.map((t) => `#${t.seq} ${t.agent}`);
  const injected = turns.reduce((sum, t) => sum + t.context.report.tokens, 0);
  const history = turns.reduce((sum, t) => sum + (t.context.report.fullHistoryTokens ?? 0), 0);
  const summary = `Over ${turns.length} turns the contexts injected ${injected} tokens; resending the full history each turn would have cost ${history}.`;

  return (
    <section class="view tokens" aria-labelledby="tokens-title">
      <h2 id="tokens-title">Tokens per turn</h2>
      <p class="lead">{summary}</p>
      <ChartCanvas
        height={260}
        label={`Bar chart. ${summary}`}
        config={{
          type: 'bar',
          data: {
            labels,
            datasets: [
              ...CONTEXT_LAYERS.map((layer) => ({ type: 'bar' as const, label: `${layer} (injected)`, data: turns.map((t) => t.context.report.layers[layer].tokens), backgroundColor: LAYER_COLORS[layer], stack: 'context' })),
              { type: 'line' as const, label: 'full history', data: turns.map((t) => t.context.report.fullHistoryTokens ?? 0), borderColor: '#b3123b', backgroundColor: '#b3123b', pointRadius: 4 },
            ],
          },
          options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: 'tokens' } } }, plugins: { legend: { position: 'bottom' } } },
        }}
      />
      <div class="table-wrap">
        <table>
          <caption>Tokens per turn (the chart’s numbers)</caption>
          <thead>
            <tr><th scope="col">Turn</th>{CONTEXT_LAYERS.map((l) => <th scope="col" key={l}>{l}</th>)}<th scope="col">Context</th><th scope="col">Budget</th><th scope="col">Full history</th><th scope="col"><span class="visually-hidden">Report</span></th></tr>
          </thead>
          <tbody>
            {turns.map((t) => (
              <tr key={t.seq} aria-current={t === turn ? 'true' : undefined}>
                <th scope="row">#{t.seq} {t.agent}</th>
                {CONTEXT_LAYERS.map((l) => <td key={l}>{t.context.report.layers[l].tokens}</td>)}
                <td>{t.context.report.tokens}</td>
                <td>{t.context.report.budget}</td>
                <td>{t.context.report.fullHistoryTokens ?? '–'}</td>
                <td><button type="button" class="link" onClick={() => setSelected(t.seq)} aria-label={`Show the context report of turn ${t.seq}`}>Report</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {turn ? <ContextReport turn={turn} /> : null}
    </section>
  );
}

function ContextReport({ turn }: { turn: TurnRecord }) {
  const { runtime } = useApp();
  const { report } = turn.context;
  const [contents, setContents] = useState<Record<string, MemoryRecord | undefined>>({});
  useEffect(() => {
    let cancelled = false;
    const namespaces = { profile: agentNamespace(turn.agent), session: agentNamespace(turn.agent), long_term: userNamespace(), knowledge: agentNamespace(turn.agent) } as const;
    void (async () => {
      const found: Record<string, MemoryRecord | undefined> = {};
      for (const item of [...report.included, ...report.dropped]) {
        if (item.layer === 'system') continue;
        found[item.id] = await runtime.memory.get(namespaces[item.layer], item.id, { rewarm: false });
      }
      if (!cancelled) setContents(found);
    })();
    return () => {
      cancelled = true;
    };
  }, [turn, runtime]);
  const text = (id: string, layer: string) => (layer === 'system' ? 'the agent’s instructions' : (contents[id]?.content ?? '(since forgotten or expired)'));
  return (
    <div class="report" aria-labelledby="report-title">
      <h3 id="report-title">Context report of turn #{turn.seq} ({agentById(turn.agent).name})</h3>
      <p>
        {report.tokens} of {report.budget} tokens ({report.tokenizer}; text {report.textTokens}, as chat messages {report.messageTokens}). The full history would be {report.fullHistoryTokens ?? '?'} tokens
        {report.fullHistoryTokens && report.fullHistoryTokens > report.tokens
          ? `: ${Math.round((1 - report.tokens / report.fullHistoryTokens) * 100)}% saved`
          : ': the memory is still small enough to fit whole, so nothing is saved yet; the saving grows with every fact and turn while the context stays within its budget'}
        .
      </p>
      <h4>Included ({report.included.length})</h4>
      <ul class="report-items">
        {report.included.map((item) => (
          <li key={`${item.layer}-${item.id}`}>
            <span class="pill">{item.layer}</span> {text(item.id, item.layer)} <span class="muted">{item.tokens} tokens{item.score !== null ? `, score ${item.score.toFixed(3)}` : ''}{item.truncated ? ', cut' : ''}</span>
          </li>
        ))}
      </ul>
      <h4>Dropped ({report.dropped.length})</h4>
      {report.dropped.length === 0 ? <p class="muted">Nothing was left out: everything relevant fit.</p> : (
        <ul class="report-items">
          {report.dropped.map((item) => (
            <li key={`${item.layer}-${item.id}`}>
              <span class="pill">{item.layer}</span> {text(item.id, item.layer)} <span class="muted">{item.tokens} tokens — {item.reason === 'duplicate' ? `same as ${item.duplicateOf}` : item.reason === 'quota' ? 'the layers’ quotas together were spent' : 'the total budget was full'}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
