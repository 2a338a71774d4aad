/** The views and their hash routes (#/after-sales, #/inspector, ...), in navigation order. */
export const VIEWS = [
  { id: 'after-sales', label: 'After-sales', title: 'Chat with the after-sales agent' },
  { id: 'marketing', label: 'Marketing', title: 'Chat with the marketing agent' },
  { id: 'inspector', label: 'Memory', title: 'Memory inspector' },
  { id: 'tokens', label: 'Tokens', title: 'Tokens per turn' },
  { id: 'sync', label: 'Sync', title: 'Sync between devices' },
  { id: 'settings', label: 'Settings', title: 'LLM settings' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

export function viewFromHash(hash: string): ViewId {
  const id = hash.replace(/^#\/?/, '');
  return (VIEWS.find((v) => v.id === id)?.id ?? 'after-sales') as ViewId;
}
