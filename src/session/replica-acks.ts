/**
 * When a new session waits for a replica's acknowledgement (`WAIT 1 <ms>`): replication is
 * asynchronous, so a session written just before its primary dies can be missing on the replica
 * promoted in its place (its user is signed out). Waiting only makes sense where a replica can
 * answer: a Sentinel group, or a Cluster whose primaries have replicas; a single server never
 * waits. A wait that no replica answered in time (the replica is down or far behind) is not
 * repeated for a while: a lost replica must not add the whole timeout to every login.
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from '../redis';

/** After a wait no replica answered, logins skip the wait for this long. */
const QUIET_AFTER_MISS_MS = 10_000;

export interface ReplicaAcks {
  /** How long the next session write waits for a replica (0: not at all). */
  waitMs(): number;
  /** How many replicas acknowledged a wait. */
  acknowledged(replicas: number): void;
}

/**
 * A Sentinel group exists to have a replica. A Cluster: the client's slot map lists a replica for
 * some slot (CLUSTER SLOTS lists a replica once it has replicated data; the map is learnt at
 * connection and after each redirection or failover).
 */
function hasReplicas(redis: RedisClient): boolean {
  if (redis instanceof Cluster) return redis.slots.some((owners) => owners.length > 1);
  return (redis.options.sentinels?.length ?? 0) > 0;
}

export function replicaAcks(redis: RedisClient, timeoutMs: number, clock: () => number = Date.now): ReplicaAcks {
  let quietUntil = 0;
  // The slot map is walked at most once a second, not at every login.
  let seen = { replicas: false, at: -Infinity };
  const replicasExist = () => {
    const now = clock();
    if (now - seen.at >= 1_000) seen = { replicas: hasReplicas(redis), at: now };
    return seen.replicas;
  };
  return {
    waitMs: () => (timeoutMs > 0 && clock() >= quietUntil && replicasExist() ? timeoutMs : 0),
    acknowledged(replicas) {
      if (replicas < 1) quietUntil = clock() + QUIET_AFTER_MISS_MS;
    },
  };
}
