/** A small seeded PRNG (mulberry32): fault tests pick kill moments and tools reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed every fault and fuzz test uses unless SIDEFILE_TEST_SEED overrides it (to explore). */
export const TEST_SEED = Number(process.env.SIDEFILE_TEST_SEED ?? 20261130);
