/**
 * A port this process must listen on is taken (EADDRINUSE), said in words that name the setting
 * to change: the bare Node message ("listen EADDRINUSE: address already in
 * use 127.0.0.1:8080") leaves a new user guessing which of the service's ports it was.
 */
export class PortInUseError extends Error {
  constructor(
    readonly setting: string,
    readonly port: number,
  ) {
    super(`Port ${port} is already in use (${setting}). Stop what listens there, or start with another port: ${setting}=${port + 1} npm start`);
    this.name = 'PortInUseError';
  }
}

/** Runs `listen`; a taken port becomes a {@link PortInUseError} naming `setting`. */
export async function listenOn<T>(setting: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(setting, port);
    throw err;
  }
}
