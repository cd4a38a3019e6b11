/**
 * Deterministic pseudo-random variation: the same (seed, minute, channel) always gives the same
 * number, so behaviour stays a pure function of VIN and simulated time (no Math.random).
 */

/** FNV-1a of a string, as an unsigned 32-bit integer. Seeds are VINs or scenario seeds. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Uniform in [0, 1) from a seed, a minute (any integer) and a channel (one per signal). */
export function noise(seed: number, minute: number, channel: number): number {
  // A murmur3-style finaliser over the three inputs: cheap and well mixed.
  let h = seed ^ Math.imul(channel + 1, 0x9e3779b1);
  h = Math.imul(h ^ (minute | 0), 0x85ebca6b);
  h ^= Math.floor(minute / 4294967296);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x27d4eb2f);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

/** Uniform in [-1, 1). */
export const signedNoise = (seed: number, minute: number, channel: number): number => noise(seed, minute, channel) * 2 - 1;

export const round = (value: number, decimals: number): number => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};
