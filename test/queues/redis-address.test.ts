import { describe, expect, it } from 'vitest';
import { partitionOf } from '../../src/queues/partitions.ts';
import { clusterAddress, isClusterAddress, parseRedisAddress, redisAddressOf } from '../../src/queues/redis.ts';

describe('Redis addresses', () => {
  it('names a cluster by its seeds, with the scheme and credentials of the seeds', () => {
    expect(clusterAddress(['redis-1:7000', 'redis-2:7000'])).toBe('redis+cluster://redis-1:7000,redis-2:7000');
    const tls = clusterAddress(['rediss://svc:p%40ss@redis-1:7000', 'rediss://svc:p%40ss@[::1]:7001']);
    expect(tls).toBe('rediss+cluster://svc:p%40ss@redis-1:7000,[::1]:7001');
    expect(parseRedisAddress(tls)).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'redis-1', port: 7000 },
        { host: '::1', port: 7001 },
      ],
      options: { username: 'svc', password: 'p@ss', tls: {} },
    });
    expect(isClusterAddress(tls)).toBe(true);
  });

  it('reads one server as before', () => {
    expect(parseRedisAddress('redis://u:pw@cache:6380/3')).toEqual({ kind: 'single', options: { host: 'cache', port: 6380, db: 3, username: 'u', password: 'pw' } });
    expect(isClusterAddress('redis://cache:6379')).toBe(false);
  });

  it('picks the cluster when REDIS_CLUSTER_NODES is set, else REDIS_URL, else none (a private Redis)', () => {
    expect(redisAddressOf({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: ['a:1', 'b:2'] })).toBe('redis+cluster://a:1,b:2');
    expect(redisAddressOf({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: undefined })).toBe('redis://r:6379');
    expect(redisAddressOf({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined })).toBeUndefined();
  });
});

describe('queue partitions', () => {
  it('puts a VIN in the same partition whatever its case, and spreads a fleet evenly', () => {
    const vin = 'V1RTUALV1N0000001';
    expect(partitionOf(vin, 4)).toBe(partitionOf(vin.toLowerCase(), 4));
    expect(partitionOf(vin, 1)).toBe(0);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 10_000; i++) counts[partitionOf(`WDB${String(i).padStart(14, '0')}`, 4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(2_200);
  });
});
