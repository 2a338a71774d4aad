import { afterEach, describe, expect, it, vi } from 'vitest';
import { mulberry32 } from './mulberry32.ts';
import { replaying, testSeed } from './seed.ts';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('the seed of a seeded test', () => {
  it('comes from FC_SEED when set, and is printed with the line that replays it', () => {
    vi.stubEnv('FC_SEED', '42');
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(testSeed('a property')).toBe(42);
    expect(replaying()).toBe(true);
    expect(log).toHaveBeenCalledWith('fast-check seed 42 (a property); replay with FC_SEED=42');
  });

  it('is a fresh integer otherwise, still printed; another variable can name it', () => {
    vi.stubEnv('FC_SEED', '');
    vi.stubEnv('FAULT_SEED', '');
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const seed = testSeed('faults', 'FAULT_SEED');
    expect(Number.isInteger(seed) && seed >= 0).toBe(true);
    expect(replaying('FAULT_SEED')).toBe(false);
    expect(log).toHaveBeenCalledWith(`seed ${seed} (faults); replay with FAULT_SEED=${seed}`);
  });

  it('refuses a value that is not an integer', () => {
    vi.stubEnv('FC_SEED', 'abc');
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(() => testSeed('x')).toThrow('FC_SEED must be an integer, got abc');
  });
});

describe('mulberry32', () => {
  it('gives the same numbers in [0, 1) for the same seed, the sequence every earlier copy gave', () => {
    const a = mulberry32(1);
    const first = Array.from({ length: 3 }, a);
    expect(first).toEqual(Array.from({ length: 3 }, mulberry32(1)));
    // mulberry32(1)'s first values, as the copies in the tests and benchmarks computed them.
    expect(first.map((x) => x.toFixed(9))).toEqual(['0.627073941', '0.002735721', '0.527447040']);
    expect(Array.from({ length: 1000 }, mulberry32(9)).every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
