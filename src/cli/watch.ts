import { watch, type FSWatcher } from 'node:fs';

/**
 * Calls `onChange` (never two at once) after files under `dirs` change, until `signal` is
 * aborted. Editors write a file in several steps, so changes within `settleMs` make one call.
 */
export async function watchFolders(dirs: string[], onChange: (file: string) => Promise<void>, signal: AbortSignal, settleMs = 150): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let changed = '';
  const fire = () => {
    const file = changed;
    running = running.then(() => onChange(file));
  };
  const watchers: FSWatcher[] = dirs.map((dir) =>
    watch(dir, { recursive: true }, (_event, name) => {
      changed = name ?? dir;
      clearTimeout(timer);
      timer = setTimeout(fire, settleMs);
    }),
  );
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  clearTimeout(timer);
  for (const w of watchers) w.close();
  await running;
}
