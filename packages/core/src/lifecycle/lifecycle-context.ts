import type { RecallContext } from '../write/context.ts';
import type { LifecyclePolicy } from './policy.ts';

/** What the lifecycle verbs need: recall's context (store, indexes, embedder, access stats) and the policy. */
export interface LifecycleContext extends RecallContext {
  lifecycle: LifecyclePolicy;
}
