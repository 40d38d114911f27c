/**
 * Property tests draw new random cases on every local run, to keep finding what no example
 * thought of. CI runs them with one fixed seed, so that a red CI is reproducible and a green
 * one cannot turn red by chance; `FC_SEED=<n>` replays a run (fast-check prints the seed of a
 * failure).
 */
import fc from 'fast-check';

const seed = process.env.FC_SEED ?? (process.env.CI ? '20261122' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
