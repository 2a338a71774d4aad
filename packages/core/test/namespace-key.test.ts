import { namespaceKey, parseNamespaceKey } from '../src/model/namespace.ts';
import { expect, it } from 'vitest';

it('parseNamespaceKey reads back every key namespaceKey writes, and only the canonical spelling', () => {
  for (const namespace of [{ userId: 'wang' }, { userId: 'wang', agentId: 'after-sales' }, { userId: 'a;b=c', scope: '100% 王' }, { userId: 'u', agentId: 'a', scope: 's' }]) {
    expect(parseNamespaceKey(namespaceKey(namespace))).toEqual(namespace);
  }
  for (const bad of ['', 'wang', 'u=', 'a=x;u=wang', 'u=wang;s=x;a=y', 'u=wang;x=1', 'u=%E7', 'u=%77ang', 'u=wang;a=']) expect(parseNamespaceKey(bad), bad).toBeUndefined();
});
