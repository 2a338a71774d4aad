import { memory, reply } from './agent.ts';
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

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const message = input.value.trim();
  if (!message) return;
  input.value = '';
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

async function start(): Promise<void> {
  await memory();
  const llm = await loadLlm();
  const parts = [llm ? `LLM: ${llm.model} at ${llm.baseUrl}` : 'No LLM set: replies show the prompt'];
  status.textContent = parts.join(' · ');
  const shared = await startSync();
  if (shared) {
    status.textContent = [...parts, 'sync: connecting'].join(' · ');
    await shared.synced;
    status.textContent = [...parts, 'sync: on'].join(' · ');
  }
  document.body.dataset.ready = 'true';
}
start().catch((err: unknown) => {
  status.textContent = `Error: ${err instanceof Error ? err.message : String(err)}`;
  status.classList.add('error');
  document.body.dataset.ready = 'true';
});
