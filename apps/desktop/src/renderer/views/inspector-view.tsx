/**
 * The memory inspector: every memory of a namespace (live: another agent, tab or device
 * writing shows up at once), the files Claude's memory tool keeps there (a file tree, each
 * file with its versions), its profile (the current fact of every other key, each key's
 * versions on a time line), hybrid search with each hit's score breakdown, filters,
 * edit, forget (with its audit entry), consolidation (dry run first), export and import.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { AuditEntry, ConsolidateResult, Layer, ListOptions, Memory, MemoryRecord, Namespace, RecallHit, RecordFilter } from '@zeromem/core';
import { useApp } from '../app-state.ts';
import { FactTimeline } from '../components/fact-timeline.tsx';
import { MemoryFileTree, type MemoryFile } from '../components/memory-file-tree.tsx';
import { ScoreBar, ScoreLegend, describeScore } from '../components/score-bar.tsx';
import { agentNamespace, userNamespace } from '../story.ts';

const SCOPES = [
  { id: 'user', label: 'User (shared)', ns: () => userNamespace() },
  { id: 'after-sales', label: 'After-sales (private)', ns: () => agentNamespace('after-sales') },
  { id: 'marketing', label: 'Marketing (private)', ns: () => agentNamespace('marketing') },
] as const;

/** A scope's id: one of the story's, or `ns:<json>` for another namespace the store holds (the device store's, e.g. zeromem-mcp's). */
type ScopeId = string;

function namespaceLabel(ns: Namespace): string {
  return [ns.userId, ns.agentId && `agent ${ns.agentId}`, ns.scope && `scope ${ns.scope}`].filter(Boolean).join(' / ');
}
const LAYERS: Layer[] = ['long_term', 'knowledge', 'session'];
const TIMES = [
  { id: 'any', label: 'Any time', ms: 0 },
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '1d', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
] as const;

function formatTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

export function InspectorView() {
  const app = useApp();
  const memory = app.runtime.memory;
  const [scope, setScope] = useState<ScopeId>('user');
  const [others, setOthers] = useState<Namespace[]>([]);
  const [query, setQuery] = useState('');
  const [submitted, setSubmitted] = useState('');
  const [tag, setTag] = useState('');
  const [layer, setLayer] = useState<Layer | ''>('');
  const [tier, setTier] = useState<'' | 'hot' | 'cold'>('');
  const [time, setTime] = useState<(typeof TIMES)[number]['id']>('any');
  const [items, setItems] = useState<MemoryRecord[]>([]);
  const [hits, setHits] = useState<RecallHit[] | null>(null);
  const [vectorMode, setVectorMode] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [audit, setAudit] = useState<AuditEntry | null>(null);
  const [plan, setPlan] = useState<ConsolidateResult | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [facts, setFacts] = useState<Array<{ key: string; versions: MemoryRecord[] }>>([]);
  const [files, setFiles] = useState<MemoryFile[]>([]);
  const ns: Namespace = useMemo(() => SCOPES.find((s) => s.id === scope)?.ns() ?? (JSON.parse(scope.slice(3)) as Namespace), [scope]);

  // The other namespaces the store holds (in Electron, the device store's: what zeromem-mcp and the CLI wrote).
  useEffect(() => {
    const story = new Set(SCOPES.map((s) => JSON.stringify(s.ns())));
    memory.listNamespaces().then((all) => setOthers(all.filter((n) => !story.has(JSON.stringify(n)))), () => undefined);
  }, [memory, items]);

  const filter: RecordFilter = useMemo(() => {
    const f: RecordFilter = {};
    if (tag) f.tags = { any: [tag] };
    if (layer) f.layer = layer;
    const window = TIMES.find((t) => t.id === time)!.ms;
    if (window) f.createdAt = { from: Date.now() - window };
    return f;
  }, [tag, layer, time]);

  // The list, live.
  useEffect(() => {
    const options: ListOptions = { ...filter, limit: 200 };
    return memory.watch(ns, options, (page) => setItems(page.items));
  }, [memory, ns, filter]);

  // The memory tool's files with their histories, and the profile (every other key) with every version of each key, read again when the list changes.
  useEffect(() => {
    let cancelled = false;
    (async () => {
      // Loaded when the inspector first reads, a chunk of its own: the page's first load grows by 3.9 KB gzipped instead of 9.
      const { createMemoryTool } = await import('@zeromem/tools');
      // Only files() and history() run here: they read (list, profile, get, audit), which every AppMemory does (the device store's too).
      const tool = createMemoryTool(memory as unknown as Memory, { namespace: ns });
      const entries = await tool.files();
      const withVersions = await Promise.all(entries.map(async (entry) => ({ ...entry, versions: await tool.history(entry.path) })));
      const fileVersions = new Set(withVersions.map((file) => file.versions.at(-1)?.id));
      const profile = (await memory.profile(ns)).filter((fact) => !fileVersions.has(fact.id));
      const keyed = await Promise.all(profile.map(async ({ key }) => ({ key, versions: (await memory.list(ns, { key, includeClosed: true, order: 'asc', limit: 100 })).items })));
      if (cancelled) return;
      setFiles(withVersions);
      setFacts(keyed);
    })().catch((err: Error) => setProblem(err.message));
    return () => {
      cancelled = true;
    };
  }, [memory, ns, items]);

  // A search re-runs when the list changes (another writer) as well.
  useEffect(() => {
    if (!submitted.trim()) {
      setHits(null);
      return;
    }
    let cancelled = false;
    memory
      .recall(ns, submitted, { k: 10, filters: filter, includeCold: tier !== 'hot', trackAccess: false })
      .then((result) => {
        if (cancelled) return;
        setHits(result.hits);
        setVectorMode(result.vector);
      })
      .catch((err: Error) => setProblem(err.message));
    return () => {
      cancelled = true;
    };
  }, [memory, ns, submitted, filter, tier, items]);

  const allTags = [...new Set(items.flatMap((r) => r.tags))].sort();
  // A memory that is a file's current version shows as that file (its path), not as a keyed fact.
  const fileOf = new Map(files.map((file) => [file.versions.at(-1)?.id, file.path]));
  const byTier = (r: MemoryRecord) => !tier || r.tier === tier;
  const rows = hits ? hits.filter((h) => byTier(h.record)) : null;
  const listed = items.filter(byTier);
  const maxScore = Math.max(0.0001, ...(rows ?? []).map((h) => h.score));

  const forget = async (record: MemoryRecord) => {
    setProblem(null);
    const removed = await memory.forget(ns, record.id, { actor: 'inspector' });
    if (!removed) return setProblem(`${record.id} was already gone.`);
    const entries = await memory.audit(ns, { limit: 1000 });
    const entry = [...entries].reverse().find((e) => e.id === record.id && e.op === 'forget') ?? null;
    setAudit(entry);
    app.announce(`Forgot ${record.id}. Audit entry ${entry ? `#${entry.seq}` : 'written'}.`);
  };

  const exportJson = async () => {
    const text = await memory.exportJsonl({ namespace: ns });
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `zeromem-${scope.startsWith('ns:') ? namespaceLabel(ns).replace(/[^\w-]+/g, '-') : scope}-${new Date().toISOString().slice(0, 10)}.jsonl`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { records: number }; // every record, replaced versions of facts too
    app.announce(`Exported ${header.records} memories.`);
  };

  const importFile = async (file: File | undefined) => {
    if (!file) return;
    setProblem(null);
    try {
      const result = await memory.importJsonl(await file.text(), { actor: 'inspector' });
      app.announce(`Imported ${result.imported} memories (${result.deduplicated} already here, ${result.expired} expired).`);
    } catch (err) {
      setProblem(`Import refused, nothing was written: ${(err as Error).message}`);
    }
  };

  const consolidate = async (dryRun: boolean) => {
    setProblem(null);
    const result = await memory.consolidate(ns, { dryRun, actor: 'inspector' });
    setPlan(dryRun ? result : null);
    if (!dryRun) app.announce(`Merged ${result.groups.length} groups of near-duplicates.`);
  };

  return (
    <section class="view inspector" aria-labelledby="inspector-title">
      <div class="view-head">
        <div>
          <h2 id="inspector-title">Memory inspector</h2>
          <p class="muted">Everything the agents know, as stored on this device. Changes by another agent, tab or device appear here as they happen.</p>
        </div>
        <div class="row wrap">
          <button type="button" class="secondary" onClick={() => void consolidate(true)}>Consolidate (dry run)</button>
          <button type="button" class="secondary" onClick={() => void exportJson()} disabled={items.length === 0}>Export</button>
          <label class="button secondary file">
            Import
            <input type="file" accept=".jsonl,application/x-ndjson,application/json" class="visually-hidden" onChange={(e) => void importFile((e.target as HTMLInputElement).files?.[0])} />
          </label>
        </div>
      </div>

      <form class="filters" onSubmit={(e) => { e.preventDefault(); setSubmitted(query); }} aria-label="Search and filters">
        <div class="field grow">
          <label for="insp-search">{app.runtime.embedder ? 'Search (hybrid: words and meaning)' : 'Search (by words: no embedder here)'}</label>
          <div class="composer-row">
            <input id="insp-search" type="search" value={query} onInput={(e) => { const v = (e.target as HTMLInputElement).value; setQuery(v); if (!v) setSubmitted(''); }} placeholder="e.g. how to contact the user" />
            <button type="submit">Search</button>
          </div>
        </div>
        <div class="field">
          <label for="insp-scope">Namespace</label>
          <select id="insp-scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as ScopeId)}>
            {SCOPES.map((s) => <option key={s.id} value={s.id}>{s.label}</option>)}
            {others.map((n) => <option key={JSON.stringify(n)} value={`ns:${JSON.stringify(n)}`}>{namespaceLabel(n)}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="insp-tag">Tag</label>
          <select id="insp-tag" value={tag} onChange={(e) => setTag((e.target as HTMLSelectElement).value)}>
            <option value="">Any tag</option>
            {allTags.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="insp-layer">Layer</label>
          <select id="insp-layer" value={layer} onChange={(e) => setLayer((e.target as HTMLSelectElement).value as Layer | '')}>
            <option value="">Any layer</option>
            {LAYERS.map((l) => <option key={l} value={l}>{l}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="insp-tier">Tier</label>
          <select id="insp-tier" value={tier} onChange={(e) => setTier((e.target as HTMLSelectElement).value as '' | 'hot' | 'cold')}>
            <option value="">Hot and cold</option>
            <option value="hot">Hot</option>
            <option value="cold">Cold</option>
          </select>
        </div>
        <div class="field">
          <label for="insp-time">Created</label>
          <select id="insp-time" value={time} onChange={(e) => setTime((e.target as HTMLSelectElement).value as typeof time)}>
            {TIMES.map((t) => <option key={t.id} value={t.id}>{t.label}</option>)}
          </select>
        </div>
      </form>

      {problem ? <p class="error" role="alert">{problem}</p> : null}
      {audit ? (
        <p class="notice audit" data-testid="audit-entry">
          Forgotten. Audit entry #{audit.seq}: <code>{audit.op}</code> of <code>{audit.id}</code> by {audit.actor} at {formatTime(audit.at)} — the log keeps ids, never content.{' '}
          <button type="button" class="link" onClick={() => setAudit(null)}>Dismiss</button>
        </p>
      ) : null}

      {plan ? <ConsolidationPlan plan={plan} onApply={() => void consolidate(false)} onCancel={() => setPlan(null)} /> : null}

      {rows ? (
        <div>
          <div class="row between wrap">
            <h3>{rows.length} {rows.length === 1 ? 'hit' : 'hits'} for “{submitted}” <span class="muted">(vectors: {vectorMode})</span></h3>
            <ScoreLegend />
          </div>
          {rows.length === 0 ? <p class="empty">Nothing matches. Try other words, or clear the filters.</p> : null}
          <ol class="records">
            {rows.map((hit) => (
              <RecordRow key={hit.id} record={hit.record} ns={ns} filePath={fileOf.get(hit.id)} editing={editing === hit.id} onEdit={setEditing} onForget={forget}>
                <div class="score">
                  <ScoreBar score={hit.score} explain={hit.explain} max={maxScore} />
                  <p class="hint">{describeScore(hit.score, hit.explain)}</p>
                </div>
              </RecordRow>
            ))}
          </ol>
        </div>
      ) : (
        <div>
          {files.length > 0 ? <MemoryFileTree files={files} /> : null}
          {facts.length > 0 ? (
            <section class="profile" aria-labelledby="profile-title" data-testid="profile">
              <h3 id="profile-title">Profile <span class="muted">the fact that holds now for every key, and its versions over time</span></h3>
              {facts.map((fact) => <FactTimeline key={fact.key} factKey={fact.key} versions={fact.versions} now={Date.now()} />)}
            </section>
          ) : null}
          <h3 data-testid="list-count">{listed.length} {listed.length === 1 ? 'memory' : 'memories'} <span class="muted">newest first</span></h3>
          {listed.length === 0 ? (
            <div class="empty">
              <p>{items.length === 0 && !tag && !layer && time === 'any' ? 'No memories here yet. Seed the story from a chat view, or chat with an agent: what it remembers lands here.' : 'No memory matches these filters.'}</p>
              {items.length === 0 ? <a href="#/after-sales">Go to the after-sales chat</a> : null}
            </div>
          ) : null}
          <ol class="records">
            {listed.map((record) => (
              <RecordRow key={record.id} record={record} ns={ns} filePath={fileOf.get(record.id)} editing={editing === record.id} onEdit={setEditing} onForget={forget} />
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}

/**
 * One memory. A file of Claude's memory tool (`filePath`) shows its path instead of its key and
 * has no Edit: an edit in place would replace the text with no version of its own, and a
 * file keeps every edit as a version; files change through the memory tool. Its Forget says
 * what it does: it forgets this version, and the one before (if any) becomes the file's text.
 */
function RecordRow({ record, ns, filePath, editing, onEdit, onForget, children }: { record: MemoryRecord; ns: Namespace; filePath?: string | undefined; editing: boolean; onEdit: (id: string | null) => void; onForget: (r: MemoryRecord) => Promise<void>; children?: preact.ComponentChildren }) {
  return (
    <li class="record" data-id={record.id}>
      {editing ? (
        <EditForm record={record} ns={ns} onDone={() => onEdit(null)} />
      ) : (
        <>
          <p class={filePath ? 'content file-text' : 'content'}>{record.content}</p>
          <ul class="meta" aria-label="Details">
            <li><span class="pill">{record.layer}</span></li>
            <li><span class="pill">{record.tier}</span></li>
            {filePath ? <li><span class="pill key">{filePath}</span> Claude’s memory file</li> : record.key ? <li><span class="pill key">{record.key}</span>{record.validFrom === null ? '' : ` since ${formatTime(record.validFrom)}`}</li> : null}
            <li>importance {record.importance.toFixed(2)}</li>
            {record.tags.map((t) => <li key={t}><span class="tag">#{t}</span></li>)}
            <li class="muted">{record.source} · {formatTime(record.createdAt)}{record.expiresAt ? ` · expires ${formatTime(record.expiresAt)}` : ''}</li>
            <li class="muted mono">{record.id}</li>
          </ul>
          {children}
          <div class="row">
            {filePath ? null : <button type="button" class="secondary small" onClick={() => onEdit(record.id)} aria-label={`Edit: ${record.content.slice(0, 60)}`}>Edit</button>}
            {filePath ? (
              <button type="button" class="danger small" onClick={() => void onForget(record)} aria-label={`Forget this version of ${filePath}`}>Forget this version</button>
            ) : (
              <button type="button" class="danger small" onClick={() => void onForget(record)} aria-label={`Forget: ${record.content.slice(0, 60)}`}>Forget</button>
            )}
          </div>
        </>
      )}
    </li>
  );
}

function EditForm({ record, ns, onDone }: { record: MemoryRecord; ns: Namespace; onDone: () => void }) {
  const app = useApp();
  const [content, setContent] = useState(record.content);
  const [importance, setImportance] = useState(String(record.importance));
  const [tags, setTags] = useState(record.tags.join(', '));
  const [ttl, setTtl] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const base = `edit-${record.id}`;
  const save = async () => {
    setProblem(null);
    const ttlValue = ttl.trim();
    try {
      await app.runtime.memory.update(ns, record.id, {
        content,
        importance: Number(importance),
        tags: tags.split(',').map((t) => t.trim()).filter(Boolean),
        ...(ttlValue === 'none' ? { expiresAt: null } : ttlValue ? { ttl: ttlValue } : {}),
      }, { actor: 'inspector' });
      app.announce(`Saved ${record.id}.`);
      onDone();
    } catch (err) {
      setProblem((err as Error).message);
    }
  };
  return (
    <form class="edit" onSubmit={(e) => { e.preventDefault(); void save(); }} aria-label={`Edit ${record.id}`}>
      <label for={`${base}-content`}>Content</label>
      <textarea id={`${base}-content`} rows={3} value={content} onInput={(e) => setContent((e.target as HTMLTextAreaElement).value)} />
      <div class="row wrap">
        <div class="field">
          <label for={`${base}-importance`}>Importance (0–1)</label>
          <input id={`${base}-importance`} type="number" min="0" max="1" step="0.05" value={importance} onInput={(e) => setImportance((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field grow">
          <label for={`${base}-tags`}>Tags (comma separated)</label>
          <input id={`${base}-tags`} value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for={`${base}-ttl`}>TTL (e.g. 7d; “none” never expires)</label>
          <input id={`${base}-ttl`} value={ttl} onInput={(e) => setTtl((e.target as HTMLInputElement).value)} placeholder={record.expiresAt ? 'keep expiry' : 'never expires'} />
        </div>
      </div>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <div class="row">
        <button type="submit">Save</button>
        <button type="button" class="secondary" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}

function ConsolidationPlan({ plan, onApply, onCancel }: { plan: ConsolidateResult; onApply: () => void; onCancel: () => void }) {
  return (
    <div class="notice plan" aria-labelledby="plan-title">
      <h3 id="plan-title">Consolidation dry run: {plan.groups.length} {plan.groups.length === 1 ? 'group' : 'groups'} of near-duplicates (threshold {plan.threshold})</h3>
      {plan.groups.length === 0 ? <p>No near-duplicates: nothing to merge.</p> : (
        <ol>
          {plan.groups.map((group, i) => (
            <li key={i}>
              Keep <code>{group.keepId}</code> as “{group.record.content}”; merge away {group.mergedIds.map((id) => <code key={id}>{id} </code>)}
              {group.similarity !== null ? ` (similarity ≥ ${group.similarity.toFixed(2)})` : ' (same words)'}
            </li>
          ))}
        </ol>
      )}
      <div class="row">
        {plan.groups.length ? <button type="button" onClick={onApply}>Merge {plan.groups.length} {plan.groups.length === 1 ? 'group' : 'groups'}</button> : null}
        <button type="button" class="secondary" onClick={onCancel}>Close</button>
      </div>
    </div>
  );
}
