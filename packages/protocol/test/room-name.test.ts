import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ROOM_LENGTH, parseRoomPath } from '../src/index.ts';
import { testSeed } from '../../../test/kit/seed.ts';

// Namespace keys as core builds them: u=<enc>[;a=<enc>][;s=<enc>].
const name = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s));
const namespaceKey = fc
  .record({ userId: name, agentId: fc.option(name, { nil: undefined }), scope: fc.option(name, { nil: undefined }) })
  .map(({ userId, agentId, scope }) => {
    let key = `u=${encodeURIComponent(userId)}`;
    if (agentId !== undefined) key += `;a=${encodeURIComponent(agentId)}`;
    if (scope !== undefined) key += `;s=${encodeURIComponent(scope)}`;
    return key;
  });

describe('room paths', () => {
  it('decode back to every namespace key the client encoded', () => {
    fc.assert(
      fc.property(namespaceKey, (key) => {
        expect(parseRoomPath(`/${encodeURIComponent(key)}`)).toEqual({ room: key });
      }),
      { seed: testSeed('room path round trip'), numRuns: 500 },
    );
  });

  it('never throw and never yield a room with a control character or a raw slash path', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (raw) => {
        const parsed = parseRoomPath(`/${raw}`);
        if ('room' in parsed) {
          expect(parsed.room).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
          expect(raw).not.toContain('/');
          expect(parsed.room.length).toBeGreaterThan(0);
        }
      }),
      { seed: testSeed('room path garbage'), numRuns: 1000 },
    );
  });

  it('refuses the edge cases by name', () => {
    expect(parseRoomPath('/')).toEqual({ problem: 'empty' });
    expect(parseRoomPath('/a/b')).toEqual({ problem: 'nested-path' });
    expect(parseRoomPath('/%ZZ')).toEqual({ problem: 'bad-encoding' });
    expect(parseRoomPath('/%ED%A0%80')).toEqual({ problem: 'bad-encoding' }); // an encoded lone surrogate
    expect(parseRoomPath('/a%0Ab')).toEqual({ problem: 'control-character' });
    expect(parseRoomPath(`/${'a'.repeat(MAX_ROOM_LENGTH)}`)).toEqual({ room: 'a'.repeat(MAX_ROOM_LENGTH) });
    expect(parseRoomPath(`/${'a'.repeat(MAX_ROOM_LENGTH + 1)}`)).toEqual({ problem: 'too-long' });
    // Encoded dot segments are names, not navigation.
    expect(parseRoomPath('/%2E%2E')).toEqual({ room: '..' });
  });
});
