import type { ContextLayer } from '../public/context.ts';
import type { ChatMessage } from '../public/tokenizer.ts';

