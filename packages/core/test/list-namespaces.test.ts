import { describe, expect, it } from 'vitest';
import { expectCode, openTestMemory } from './helpers.ts';

describe('listNamespaces', () => {
  it('lists every namespace holding records once, ordered by key; one user\'s with userId', async () => {
    const t = await openTestMemory();
    const namespaces = [{ userId: 'ab' }, { userId: 'ab', agentId: 'sales' }, { userId: 'ab', agentId: 'sales', scope: 'q3' }, { userId: 'ab ' }, { userId: 'abc' }, { userId: '王' }];
    for (const namespace of namespaces) {
      for (let i = 0; i < 3; i++) await t.memory.remember({ namespace, content: `note ${i} of ${JSON.stringify(namespace)}` });
    }
    const all = await t.memory.listNamespaces();
    expect(all).toHaveLength(namespaces.length);
    expect(all).toEqual(expect.arrayContaining(namespaces));
    // "ab " and "abc" sort among ab's own keys; they are other users.
    expect(await t.memory.listNamespaces({ userId: 'ab' })).toEqual([{ userId: 'ab' }, { userId: 'ab', agentId: 'sales' }, { userId: 'ab', agentId: 'sales', scope: 'q3' }]);
    expect(await t.memory.listNamespaces({ userId: '王' })).toEqual([{ userId: '王' }]);
    expect(await t.memory.listNamespaces({ userId: 'nobody' })).toEqual([]);
    await t.memory.forgetNamespace({ userId: 'ab', agentId: 'sales' });
    expect(await t.memory.listNamespaces({ userId: 'ab' })).toEqual([{ userId: 'ab' }, { userId: 'ab', agentId: 'sales', scope: 'q3' }]);
  });

  it('refuses a bad userId or unknown options', async () => {
    const t = await openTestMemory();
    await expectCode(t.memory.listNamespaces({ userId: '' }), 'INVALID_INPUT', 'userId');
    await expectCode(t.memory.listNamespaces({ userId: 7 } as never), 'INVALID_INPUT', 'userId');
    await expectCode(t.memory.listNamespaces({ user: 'a' } as never), 'INVALID_INPUT', 'user');
  });
});
