import type { RecallContext } from '../verbs/recall.ts';
import type { LifecyclePolicy } from './policy.ts';

/** What the lifecycle verbs need: recall's context (store, indexes, embedder, access stats) and the policy. */
export interface LifecycleContext extends RecallContext {
  lifecycle: LifecyclePolicy;
}
