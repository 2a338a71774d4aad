/** Renderer entry: opens the memory, then renders the app. */
import { render } from 'preact';
import { App } from './app.tsx';
import { createLlmClient } from './llm-client.ts';
import { openRuntime } from './runtime.ts';

const root = document.getElementById('root')!;
openRuntime()
  .then((runtime) => {
    root.textContent = ''; // the boot line: render() keeps what it did not create
    render(<App runtime={runtime} llm={createLlmClient()} />, root);
  })
  .catch((err: unknown) => {
    root.textContent = `The memory could not be opened: ${err instanceof Error ? err.message : String(err)}`;
    root.setAttribute('role', 'alert');
  });
