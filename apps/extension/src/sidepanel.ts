import { memory, reply } from './agent.ts';
import type { ChatMessage } from '@zeromem/app-shared/openai-stream';
import { currentPage } from './page.ts';
import { loadLlm } from './settings.ts';
import { startSync } from './sync.ts';

const log = document.querySelector<HTMLOListElement>('#log')!;
const form = document.querySelector<HTMLFormElement>('#chat')!;
const input = document.querySelector<HTMLInputElement>('#message')!;
const status = document.querySelector<HTMLParagraphElement>('#status')!;

function say(who: 'user' | 'agent', text: string): HTMLLIElement {
  const item = document.createElement('li');
  item.className = who;
  item.textContent = text;
  log.append(item);
  item.scrollIntoView();
  return item;
}

/** The messages an LLM was sent, folded under its reply. */
function promptDetails(prompt: ChatMessage[]): HTMLElement {
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'The prompt sent';
  details.append(summary, prompt.map((m) => `[${m.role}]\n${m.content}`).join('\n\n'));
  return details;
}

const empty = document.querySelector<HTMLElement>('#empty')!;
// The empty state's examples fill the composer.
for (const example of empty.querySelectorAll<HTMLButtonElement>('[data-example]')) {
  example.addEventListener('click', () => {
    input.value = example.dataset.example ?? '';
    input.focus();
  });
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const message = input.value.trim();
  if (!message) return;
  input.value = '';
  empty.hidden = true;
  say('user', message);
  const answer = say('agent', '…');
  let streamed = '';
  // `data-done` marks a finished reply (the text grows while an LLM streams it).
  currentPage()
    .then((page) =>
      reply(message, page, (piece) => {
        streamed += piece;
        answer.textContent = streamed;
      }),
    )
    .then(
      (result) => {
        answer.textContent = result.text;
        if (result.offline) answer.classList.add('offline');
        else if (result.prompt) answer.append(promptDetails(result.prompt));
      },
      (err: unknown) => {
        answer.textContent = `Error: ${err instanceof Error ? err.message : String(err)}`;
        answer.classList.add('error');
      },
    )
    .finally(() => {
      answer.dataset.done = 'true';
    });
});

let syncState = '';
async function showStatus(): Promise<void> {
  const llm = await loadLlm();
  status.textContent = [llm ? `LLM: ${llm.model} at ${llm.baseUrl}` : 'No LLM set: replies show the prompt', ...(syncState ? [`sync: ${syncState}`] : [])].join(' · ');
}

async function start(): Promise<void> {
  await memory();
  await showStatus();
  chrome.storage.onChanged.addListener(() => void showStatus());
  const shared = await startSync();
  if (shared) {
    syncState = 'connecting';
    await showStatus();
    await shared.synced;
    syncState = 'on';
    await showStatus();
  }
  document.body.dataset.ready = 'true';
}
start().catch((err: unknown) => {
  status.textContent = `Error: ${err instanceof Error ? err.message : String(err)}`;
  status.classList.add('error');
  document.body.dataset.ready = 'true';
});
