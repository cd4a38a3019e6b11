/** This process's CPU time (user and system), in ms, since the last `take()`. */
export function cpuCounter(): { take(): number } {
  let since = process.cpuUsage();
  return {
    take() {
      const used = process.cpuUsage(since);
      since = process.cpuUsage();
      return (used.user + used.system) / 1000;
    },
  };
}
