import type { RecallContext, WriteContext } from '../write/verb-context.ts';
import type { LifecyclePolicy } from '../public/lifecycle.ts';

/** What the lifecycle verbs need: recall's context (store, indexes, embedder, access stats), the record copies they purge, and the policy. */
export interface LifecycleContext extends RecallContext, WriteContext {
  lifecycle: LifecyclePolicy;
}
