/** The chat messages of a prompt, exactly as sent, one block per message. */
import type { ChatMessage } from '@zeromem/core';

export function PromptView({ messages }: { messages: ChatMessage[] }) {
  return (
    <ol class="prompt-messages">
      {messages.map((message, i) => (
        <li key={i}>
          <span class="role">{message.role}</span>
          <pre tabIndex={0} aria-label={`${message.role} message`}>{message.content}</pre>
        </li>
      ))}
    </ol>
  );
}
