/** Something a role started and must stop on shutdown (workers, servers, clients). */
export interface Running {
  name: string;
  /** Stops taking work, finishes what is in flight, closes connections. */
  close(): Promise<void>;
}
