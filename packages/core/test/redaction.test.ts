import { describe, expect, it } from 'vitest';
import type { RedactionOptions } from '../src/index.ts';
import { cnIdValid, ibanValid, luhnValid } from '../src/redact/detectors.ts';
import { expectCode, openTestMemory } from './helpers.ts';

const ns = { userId: 'wang', agentId: 'after-sales' };

async function withRedaction(redaction: RedactionOptions) {
  return openTestMemory({ redaction });
}

describe('redaction on write: the built-in detectors', () => {
  const cases: Array<[string, string, string]> = [
    ['email', 'Reach me at Wang.Li+support@example.com.cn today', 'Reach me at [email] today'],
    ['Chinese mobile', '王先生电话13800138000，周三回访', '王先生电话[phone]，周三回访'],
    ['Chinese mobile, +86 and spaces', 'call +86 138 0013 8000 after 6pm', 'call [phone] after 6pm'],
    ['international phone', 'Berlin office +49 30 1234567, NY +1 415-555-0132.', 'Berlin office [phone], NY [phone].'],
    ['card (Luhn)', 'paid with 4111 1111 1111 1111 yesterday', 'paid with [card] yesterday'],
    ['IBAN (mod 97)', 'refund to DE89 3704 0044 0532 0130 00 please', 'refund to [iban] please'],
    ['resident ID (checksum)', '身份证号11010519491231002X已核验', '身份证号[cn_id]已核验'],
  ];
  it.each(cases)('%s is masked', async (_what, content, stored) => {
    const t = await withRedaction({});
    const { record, redacted } = await t.memory.remember({ namespace: ns, content });
    expect(record.content).toBe(stored);
    expect(redacted!.reduce((sum, c) => sum + c.count, 0)).toBe(stored.split('[').length - 1);
  });

  const lookAlikes: Array<[string, string]> = [
    ['a card failing Luhn', 'order 4111 1111 1111 1112 shipped'],
    ['an ID with a wrong check digit', '编号110105194912310021'],
    ['an ID with a valid check digit but no such birth date (Feb 30)', '编号110105194902300020'],
    ['an IBAN with wrong check digits', 'ref DE88 3704 0044 0532 0130 00'],
    ['a work order and a date', '工单 TS20240315，约定2024-03-20回访'],
    ['a number that is no mobile', 'serial 23800138000 and 1380013800'],
    ['a version and a time', 'v1.2.3 at 12:30:45, build 20240315123045'],
    ['an @-mention', 'ask @wang about it'],
  ];
  it.each(lookAlikes)('%s is left alone', async (_what, content) => {
    const t = await withRedaction({});
    const { record, redacted } = await t.memory.remember({ namespace: ns, content });
    expect(record.content).toBe(content);
    expect(redacted).toBeUndefined();
  });

  it('checksums: Luhn, IBAN mod 97, GB 11643', () => {
    expect([luhnValid('4111111111111111'), luhnValid('4111111111111112')]).toEqual([true, false]);
    expect([ibanValid('GB82WEST12345698765432'), ibanValid('GB82WEST12345698765433')]).toEqual([true, false]);
    expect([cnIdValid('11010519491231002X'), cnIdValid('11010519491231002x'), cnIdValid('110105194912310021')]).toEqual([true, true, false]);
  });
});

describe('redaction: actions, reporting, audit, storage', () => {
  it('mask: never stored in clear (content and metadata strings), reported to the caller, counted in the audit log', async () => {
    const t = await withRedaction({});
    const { id, redacted } = await t.memory.remember({
      namespace: ns,
      content: '王先生 13800138000, wang@example.com',
      metadata: { contact: { phone: '+86 139 0000 1111' }, notes: ['card 4111111111111111'] },
    });
    expect(redacted).toEqual(expect.arrayContaining([{ detector: 'phone', action: 'mask', count: 2 }, { detector: 'email', action: 'mask', count: 1 }, { detector: 'card', action: 'mask', count: 1 }]));
    const record = await t.memory.get(ns, id);
    expect(record!.metadata).toEqual({ contact: { phone: '[phone]' }, notes: ['card [card]'] });
    const dump = await t.dump();
    for (const secret of ['13800138000', 'wang@example.com', '139 0000 1111', '4111111111111111']) expect(dump).not.toContain(secret);
    expect((await t.memory.audit(ns)).at(-1)).toMatchObject({ op: 'remember', redacted: { phone: 2, email: 1, card: 1 } });
  });

  it('hash: a keyed hash, equal values give equal tokens (across writes and in recall queries), other keys other tokens', async () => {
    const redaction: RedactionOptions = { detectors: { phone: 'hash', email: 'mask' }, hashKey: 'a-secret-key-of-16+' };
    const t = await withRedaction(redaction);
    const a = await t.memory.remember({ namespace: ns, content: '来电 138 0013 8000 反馈充电口接触不良' });
    const b = await t.memory.remember({ namespace: ns, content: 'callback number +86 13800138000' });
    const token = /\[phone:[0-9a-f]{12}\]/.exec(a.record.content)![0];
    expect(b.record.content).toContain(token); // the same number, written differently
    expect(a.redacted).toEqual([{ detector: 'phone', action: 'hash', count: 1 }]);
    const { hits } = await t.memory.recall(ns, 'who called from 13800138000');
    expect(hits.map((h) => h.id).sort()).toEqual([a.id, b.id].sort());
    const other = await withRedaction({ ...redaction, hashKey: 'another-secret-key-16' });
    expect((await other.memory.remember({ namespace: ns, content: '来电 138 0013 8000' })).record.content).not.toContain(token);
    expect(await t.dump()).not.toContain('13800138000');
  });

  it('reject: INVALID_INPUT naming the field (not the value), nothing written; per item in a batch', async () => {
    const t = await withRedaction({ detectors: { cn_id: 'reject', email: 'mask' } });
    const err = await expectCode(t.memory.remember({ namespace: ns, content: '身份证11010519491231002X' }), 'INVALID_INPUT', 'content');
    expect(JSON.stringify(err.details) + err.message).not.toContain('11010519491231002X');
    await expectCode(t.memory.remember({ namespace: ns, content: 'ok', metadata: { id: '11010519491231002X' } }), 'INVALID_INPUT', 'metadata.id');
    expect(await t.memory.count(ns)).toBe(0);
    const batch = await t.memory.rememberMany([{ namespace: ns, content: 'fine, mail a@example.org' }, { namespace: ns, content: 'ID 11010519491231002X' }], { skipInvalid: true });
    expect(batch.results.map((r) => r.record.content)).toEqual(['fine, mail [email]']);
    expect(batch.failures).toMatchObject([{ index: 1, code: 'INVALID_INPUT', issues: [{ path: 'content' }] }]);
    expect(await t.dump()).not.toContain('11010519491231002X');
  });

  it('update is redacted too, and counted in its audit entry', async () => {
    const t = await withRedaction({});
    const { id } = await t.memory.remember({ namespace: ns, content: 'no contact yet' });
    const updated = await t.memory.update(ns, id, { content: 'mail wang@example.com', metadata: { phone: '13800138000' } });
    expect(updated.content).toBe('mail [email]');
    expect(updated.metadata).toEqual({ phone: '[phone]' });
    expect((await t.memory.audit(ns)).at(-1)).toMatchObject({ op: 'update', redacted: { email: 1, phone: 1 } });
  });

  it('custom patterns, with any action', async () => {
    const t = await withRedaction({ detectors: { email: 'mask' }, patterns: [{ name: 'employee', pattern: /\bEMP-\d{6}\b/, action: 'mask' }, { name: 'plate', pattern: '粤B[0-9A-Z]{5}', action: 'reject' }] });
    expect((await t.memory.remember({ namespace: ns, content: 'handled by EMP-004211' })).record.content).toBe('handled by [employee]');
    await expectCode(t.memory.remember({ namespace: ns, content: '车牌粤B12345' }), 'INVALID_INPUT', 'content');
  });

  it('a write that redaction would push past maxContentBytes or maxMetadataBytes is INVALID_INPUT saying so; nothing written', async () => {
    // A 2-character value becomes a 20-character token: input within the limits, stored form not.
    const redaction: RedactionOptions = { detectors: {}, patterns: [{ name: 'room', pattern: /\bR\d\b/, action: 'hash' }], hashKey: 'a-hash-key-of-16-chars' };
    const t = await openTestMemory({ redaction, limits: { maxContentBytes: 40, maxMetadataBytes: 40 } });
    const content = 'rooms R1 R2 R3 booked'; // 21 bytes in, 3 x 18 bytes more once hashed
    const err = await expectCode(t.memory.remember({ namespace: ns, content }), 'INVALID_INPUT', 'content');
    expect(err.message).toMatch(/after redaction.*40/);
    await expectCode(t.memory.remember({ namespace: ns, content: 'ok', metadata: { rooms: 'R1 R2' } }), 'INVALID_INPUT', 'metadata');
    const batch = await t.memory.rememberMany([{ namespace: ns, content: 'room R1' }, { namespace: ns, content }], { skipInvalid: true });
    expect(batch.results.map((r) => r.record.content)).toEqual([expect.stringMatching(/^room \[room:[0-9a-f]{12}\]$/)]);
    expect(batch.failures).toMatchObject([{ index: 1, code: 'INVALID_INPUT', issues: [{ path: 'content' }] }]);
    const { id } = batch.results[0]!;
    await expectCode(t.memory.update(ns, id, { content }), 'INVALID_INPUT', 'patch.content');
    expect((await t.memory.get(ns, id))!.version).toBe(1);
    expect(await t.memory.count(ns)).toBe(1);
    // Within the limits after redaction: stored.
    expect((await t.memory.remember({ namespace: ns, content: 'room R3 ok' })).record.content).toMatch(/^room \[room:[0-9a-f]{12}\] ok$/);
  });

  it('maskInContext: stored and read as written, masked in built contexts (and their token counts)', async () => {
    const t = await withRedaction({ detectors: { phone: 'maskInContext', email: 'mask' } });
    const { id } = await t.memory.remember({ namespace: ns, content: '王先生电话13800138000，约定周三回访' });
    expect((await t.memory.get(ns, id))!.content).toBe('王先生电话13800138000，约定周三回访');
    const built = await t.memory.buildContext({ namespace: ns, query: '王先生 回访' });
    expect(built.text).toContain('王先生电话[phone]，约定周三回访');
    expect(built.text + JSON.stringify(built.messages)).not.toContain('13800138000');
    const session = t.memory.session({ namespace: ns, id: 's1' });
    await session.addTurn('user', '我的手机是13900001111');
    expect((await session.context('手机')).text).not.toContain('13900001111');
  });
});

describe('redaction options are validated', () => {
  const bad: Array<[unknown, string]> = [
    ['mask', 'redaction'],
    [{ detectors: { phone: 'blur' } }, 'redaction.detectors.phone'],
    [{ detectors: { passport: 'mask' } }, 'redaction.detectors.passport'],
    [{ detectors: { phone: 'hash' } }, 'redaction.hashKey'],
    [{ detectors: { phone: 'hash' }, hashKey: 'short' }, 'redaction.hashKey'],
    [{ patterns: [{ name: 'Bad Name', pattern: 'x', action: 'mask' }] }, 'redaction.patterns.0.name'],
    [{ patterns: [{ name: 'email', pattern: 'x', action: 'mask' }] }, 'redaction.patterns.0.name'],
    [{ patterns: [{ name: 'p', pattern: '(', action: 'mask' }] }, 'redaction.patterns.0.pattern'],
    [{ patterns: [{ name: 'p', pattern: 'a*', action: 'mask' }] }, 'redaction.patterns.0.pattern'],
    [{ patterns: [{ name: 'p', pattern: 'a', action: 'drop' }] }, 'redaction.patterns.0.action'],
    [{ colour: 1 }, 'redaction.colour'],
  ];
  it.each(bad)('%j', async (redaction, path) => {
    await expectCode(openTestMemory({ redaction } as never), 'INVALID_INPUT', path);
  });
});
