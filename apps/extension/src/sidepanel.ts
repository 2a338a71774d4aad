import { reply } from './agent.ts';

const log = document.querySelector<HTMLOListElement>('#log')!;
const form = document.querySelector<HTMLFormElement>('#chat')!;
const input = document.querySelector<HTMLInputElement>('#message')!;

function say(who: 'user' | 'agent', text: string): void {
  const item = document.createElement('li');
  item.className = who;
  item.textContent = text;
  log.append(item);
  item.scrollIntoView();
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const message = input.value.trim();
  if (!message) return;
  input.value = '';
  say('user', message);
  // The side panel has no tab of its own: the page is described by the document's opener tab when known.
  reply(message, { title: document.referrer || 'the current tab', url: document.referrer || 'unknown' }).then(
    (answer) => say('agent', answer.text),
    (err: unknown) => say('agent', `Error: ${err instanceof Error ? err.message : String(err)}`),
  );
});
