import type { RecallExplain } from '@zeromem/core';
import { memory, NAMESPACE } from './agent.ts';
import { LlmSettings, SyncSettings, loadLlm, loadSync, originPattern } from './settings.ts';

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
const list = $<HTMLUListElement>('#memories');
const query = $<HTMLInputElement>('#query');

/** One bar per recall signal: how much each part of the score came from. */
function explainBars(explain: RecallExplain | undefined): HTMLElement {
  const bars = document.createElement('div');
  bars.className = 'explain';
  const parts: Array<[string, number]> = explain
    ? [['text', explain.textScore], ['vector', explain.vectorScore], ['importance', explain.importance], ['recency', explain.recency]]
    : [];
  for (const [name, value] of parts) {
    // The label sits beside the track, not inside the fill: a fill that holds text cannot draw a zero.
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.dataset.signal = name;
    bar.title = `${name} ${value.toFixed(2)}`;
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = `${name} ${value.toFixed(2)}`;
    const track = document.createElement('span');
    track.className = 'track';
    const fill = document.createElement('span');
    fill.className = 'fill';
    fill.style.width = `${Math.max(0, Math.min(1, value)) * 100}%`;
    track.append(fill);
    bar.append(label, track);
    bars.append(bar);
  }
  return bars;
}

async function render(): Promise<void> {
  const mem = await memory();
  const { items } = await mem.list(NAMESPACE, { limit: 1000 });
  const text = query.value.trim();
  const explains = new Map<string, RecallExplain>();
  if (text) {
    await mem.whenEmbedded();
    for (const hit of (await mem.recall(NAMESPACE, text)).hits) explains.set(hit.id, hit.explain);
  }
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

/** Shows the outcome of an action next to its button. */
function report(target: string, action: () => Promise<string>): void {
  const out = $(target);
  out.textContent = '…';
  action().then(
    (text) => (out.textContent = text),
    (err: unknown) => (out.textContent = `Error: ${err instanceof Error ? err.message : String(err)}`),
  );
}

$<HTMLFormElement>('#search').addEventListener('submit', (event) => {
  event.preventDefault();
  void render();
});

// Export: every memory of the user as zeromem's JSONL, downloaded as a file (no permission needed).
$('#export').addEventListener('click', () =>
  report('#transfer-result', async () => {
    const text = await (await memory()).exportJsonl({ userId: NAMESPACE.userId });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
    link.download = `zeromem-${new Date().toISOString().slice(0, 10)}.jsonl`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    return `Exported ${text.split('\n').filter(Boolean).length - 1} memories.`;
  }),
);

// Import: all or nothing; a memory already stored is kept once.
$<HTMLInputElement>('#import').addEventListener('change', (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (!file) return;
  report('#transfer-result', async () => {
    const result = await (await memory()).importJsonl(await file.text());
    await render();
    return `Imported ${result.imported} memories (${result.deduplicated} already here, ${result.expired} expired).`;
  });
});

// Host permissions are asked here, when the user acts (Chrome requires the click's gesture).
$('#read-pages').addEventListener('click', () =>
  report('#pages-result', async () => ((await chrome.permissions.request({ origins: ['<all_urls>'] })) ? 'Allowed: the agent reads the page you are on.' : 'Not allowed.')),
);

$<HTMLFormElement>('#llm').addEventListener('submit', (event) => {
  event.preventDefault();
  const parsed = LlmSettings.safeParse({
    baseUrl: $<HTMLInputElement>('#llm-url').value.trim(),
    model: $<HTMLInputElement>('#llm-model').value,
    apiKey: $<HTMLInputElement>('#llm-key').value || undefined,
  });
  if (!parsed.success) {
    $('#llm-result').textContent = `Not saved: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
    return;
  }
  const origin = originPattern(parsed.data.baseUrl);
  const asked = chrome.permissions.request({ origins: [origin] }); // called in the gesture, before any await
  report('#llm-result', async () => {
    await chrome.storage.local.set({ llm: parsed.data });
    return (await asked) ? `Saved; the extension may reach ${origin}.` : `Saved, but not allowed to reach ${origin}: replies show the prompt.`;
  });
});

$('#llm-clear').addEventListener('click', () =>
  report('#llm-result', async () => {
    await chrome.storage.local.remove('llm');
    return 'Removed: replies show the prompt.';
  }),
);

$<HTMLFormElement>('#sync').addEventListener('submit', (event) => {
  event.preventDefault();
  const parsed = SyncSettings.safeParse({
    url: $<HTMLInputElement>('#sync-url').value.trim(),
    token: $<HTMLInputElement>('#sync-token').value.trim(),
    encryptionKey: $<HTMLInputElement>('#sync-key').value.trim() || undefined,
  });
  report('#sync-result', async () => {
    if (!parsed.success) return `Not saved: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
    await chrome.storage.local.set({ sync: parsed.data });
    return 'Saved: the side panel syncs from the next time it opens.';
  });
});

$('#sync-clear').addEventListener('click', () =>
  report('#sync-result', async () => {
    await chrome.storage.local.remove('sync');
    return 'Removed: nothing is synced from the next time the side panel opens.';
  }),
);

async function fillSettings(): Promise<void> {
  const llm = await loadLlm();
  if (llm) {
    $<HTMLInputElement>('#llm-url').value = llm.baseUrl;
    $<HTMLInputElement>('#llm-model').value = llm.model;
    $<HTMLInputElement>('#llm-key').value = llm.apiKey ?? '';
  }
  const sync = await loadSync();
  if (sync) {
    $<HTMLInputElement>('#sync-url').value = sync.url;
    $<HTMLInputElement>('#sync-token').value = sync.token;
    $<HTMLInputElement>('#sync-key').value = sync.encryptionKey ?? '';
  }
}

void fillSettings();
void render();
