/**
 * The seed of a seeded test (a fast-check property, a seeded fuzz or fault run): the
 * environment variable `env` (default `FC_SEED`) replays a failure, else a fresh random
 * one. Printed either way, with the line that replays it, so every failing run can be
 * repeated exactly.
 *
 * @example
 * fc.assert(fc.property(...), { seed: testSeed('room path round trip') });
 * // prints: fast-check seed 123 (room path round trip); replay with FC_SEED=123
 */
export function testSeed(label: string, env = 'FC_SEED'): number {
  const fromEnv = process.env[env];
  const seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Math.floor(Math.random() * 0x7fffffff);
  if (!Number.isInteger(seed)) throw new Error(`${env} must be an integer, got ${fromEnv}`);
  console.log(`${env === 'FC_SEED' ? 'fast-check seed' : 'seed'} ${seed} (${label}); replay with ${env}=${seed}`);
  return seed;
}

/** True when the run replays a given seed (`env` is set), so a test can skip the seeds it adds of its own. */
export function replaying(env = 'FC_SEED'): boolean {
  const value = process.env[env];
  return value !== undefined && value !== '';
}
