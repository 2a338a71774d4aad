import type { RecallExplain } from '@zeromem/core';
import { memory, NAMESPACE } from './agent.ts';

const list = document.querySelector<HTMLUListElement>('#memories')!;
const search = document.querySelector<HTMLFormElement>('#search')!;
const query = document.querySelector<HTMLInputElement>('#query')!;

/** One bar per recall signal: how much each part of the score came from. */
function explainBars(explain: RecallExplain | undefined): HTMLElement {
  const bars = document.createElement('div');
  bars.className = 'explain';
  const parts: Array<[string, number]> = explain
    ? [['text', explain.textScore], ['vector', explain.vectorScore], ['importance', explain.importance], ['recency', explain.recency]]
    : [];
  for (const [name, value] of parts) {
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.title = `${name} ${value.toFixed(2)}`;
    bar.style.width = `${Math.round(Math.max(0, Math.min(1, value)) * 100)}%`;
    bar.textContent = name;
    bars.append(bar);
  }
  return bars;
}

async function render(): Promise<void> {
  const mem = await memory();
  const { items } = await mem.list(NAMESPACE, { limit: 1000 });
  const text = query.value.trim();
  const explains = new Map<string, RecallExplain>();
  if (text) for (const hit of (await mem.recall(NAMESPACE, text)).hits) explains.set(hit.id, hit.explain);
  list.replaceChildren(
    ...items.map((record) => {
      const row = document.createElement('li');
      row.dataset.id = record.id;
      const content = document.createElement('span');
      content.className = 'content';
      content.textContent = record.content;
      const forget = document.createElement('button');
      forget.textContent = 'Forget';
      forget.addEventListener('click', () => {
        void mem.forget(NAMESPACE, record.id).then(render);
      });
      row.append(content, forget, explainBars(explains.get(record.id)));
      return row;
    }),
  );
  document.body.dataset.rendered = String(items.length);
}

search.addEventListener('submit', (event) => {
  event.preventDefault();
  void render();
});
void render();
