/** The few extension APIs this example calls (no @types/chrome dependency). */
declare namespace chrome {
  namespace runtime {
    const onInstalled: { addListener(listener: () => void): void };
    const onMessage: {
      addListener(listener: (message: unknown, sender: unknown, sendResponse: (response: unknown) => void) => boolean | void): void;
    };
    function sendMessage<T = unknown>(message: unknown): Promise<T>;
    function getURL(path: string): string;
  }
  namespace sidePanel {
    function setPanelBehavior(behavior: { openPanelOnActionClick: boolean }): Promise<void>;
  }
  namespace storage {
    interface Area {
      get(keys: string | string[]): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string | string[]): Promise<void>;
    }
    const local: Area;
    const onChanged: { addListener(listener: (changes: Record<string, { newValue?: unknown }>, area: string) => void): void };
  }
  namespace permissions {
    interface Request {
      origins?: string[];
    }
    function request(permissions: Request): Promise<boolean>;
    function contains(permissions: Request): Promise<boolean>;
    function remove(permissions: Request): Promise<boolean>;
    function getAll(): Promise<Request & { permissions?: string[] }>;
  }
  namespace tabs {
    interface Tab {
      id?: number;
      url?: string;
      title?: string;
      active: boolean;
      windowId: number;
      lastAccessed?: number;
    }
    function query(query: { active?: boolean }): Promise<Tab[]>;
  }
  namespace scripting {
    function executeScript<T>(injection: { target: { tabId: number }; func: () => T }): Promise<Array<{ result?: T }>>;
  }
}
