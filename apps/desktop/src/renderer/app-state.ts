/** What every view gets: the memory, the LLM client and the shared pieces of app state. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { AppSession } from './app-memory.ts';
import type { LlmStatus } from '../shared/ipc-contract.ts';
import type { TurnRecord } from './agent-turn.ts';
import type { LlmClient } from './llm-client.ts';
import type { Runtime } from './runtime.ts';
import type { AgentId } from './story.ts';
import type { SyncClient } from './sync-client.ts';
import type { ViewId } from './routes.ts';

export interface AppState {
  runtime: Runtime;
  llm: LlmClient;
  llmStatus: LlmStatus | null;
  setLlmStatus(status: LlmStatus): void;
  /** Ask the LLM (when one is set) or answer offline. */
  online: boolean;
  setOnline(online: boolean): void;
  turns: TurnRecord[];
  addTurn(turn: TurnRecord): void;
  session(agent: AgentId): AppSession;
  newConversation(agent: AgentId): void;
  /** Sync of the page's own memory (web twin); null in Electron, whose device store is shared on this machine instead. */
  sync: SyncClient | null;
  /** Memories in the user's namespace (live). */
  userFacts: number;
  navigate(view: ViewId): void;
  /** Announces a message to screen readers and in the status line. */
  announce(message: string): void;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('useApp outside <App>');
  return state;
}
