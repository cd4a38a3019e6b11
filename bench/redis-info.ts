/** A number of Redis's INFO text (`name:value` lines), 0 when absent. */
export function infoField(text: string, name: string): number {
  return Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
}

/** Redis's own CPU time so far (INFO cpu, system and user), in seconds. */
export async function redisCpuSeconds(redis: { info(section: string): Promise<string> }): Promise<number> {
  const cpu = await redis.info('cpu');
  return infoField(cpu, 'used_cpu_sys') + infoField(cpu, 'used_cpu_user');
}
