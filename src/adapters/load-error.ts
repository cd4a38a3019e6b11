/** A broken adapter: the message names the file at fault. Stops the start. */
export class AdapterLoadError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`adapter ${file}: ${detail}`);
    this.name = 'AdapterLoadError';
  }
}
