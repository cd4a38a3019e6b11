/** The slot hashing ioredis itself uses (its own dependency, pinned to the same version). */
declare module 'cluster-key-slot' {
  /** The Redis Cluster slot (0..16383) of a key: CRC16 of its hash tag, or of the whole key without one. */
  function calculateSlot(key: string | Buffer): number;
  namespace calculateSlot {
    /** The slot all these keys share, or -1 when they do not share one. */
    function generateMulti(keys: (string | Buffer)[]): number;
  }
  export default calculateSlot;
}
