/**
 * The Redis cache store's scripts (redis-cache-store.ts): one script per atomic operation on a
 * group, each touching only keys of the group's own hash tag, so they run on a Redis Cluster too.
 */
// Members of a group are ordered by their last write (a sorted set scored by a write sequence);
// each member's aliases are also kept under `\0<id>` in the aliases hash, so that dropping the
// member (evicted or invalidated) takes its aliases with it and the hash stays bounded.
const FORGET = `
local function forget(prefix, id)
  local removed = redis.call('DEL', prefix .. id)
  redis.call('ZREM', KEYS[1], id)
  local list = redis.call('HGET', KEYS[2], '\\0' .. id)
  if list then
    for _, alias in ipairs(cjson.decode(list)) do
      if redis.call('HGET', KEYS[2], alias) == id then redis.call('HDEL', KEYS[2], alias) end
    end
    redis.call('HDEL', KEYS[2], '\\0' .. id)
  end
  return removed
end
`;

// KEYS: order, aliases, generation, dropped. ARGV: member prefix, TTL, expected generation, most
// members kept, then per member: id, value, alias count, aliases. Nothing is written
// if a drop changed the generation; past the bound the oldest members are dropped. The index
// outlives its members by a TTL, so that a member past its TTL is still known (a miss `expired`).
export const PUT_MEMBERS = `${FORGET}
if (redis.call('GET', KEYS[3]) or '0') ~= ARGV[3] then return 0 end
local prefix, ttl, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local sequence = tonumber(newest[2] or '0')
local i, written = 5, 0
while i <= #ARGV do
  local id, n = ARGV[i], tonumber(ARGV[i + 2])
  redis.call('SET', prefix .. id, ARGV[i + 1], 'PX', ttl)
  sequence = sequence + 1
  redis.call('ZADD', KEYS[1], sequence, id)
  redis.call('HDEL', KEYS[4], id)
  if n > 0 then
    local aliases = {}
    for j = 1, n do
      aliases[j] = ARGV[i + 2 + j]
      redis.call('HSET', KEYS[2], aliases[j], id)
    end
    redis.call('HSET', KEYS[2], '\\0' .. id, cjson.encode(aliases))
  end
  written = written + 1
  i = i + 3 + n
end
local over = redis.call('ZCARD', KEYS[1]) - max
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, over - 1)) do forget(prefix, id) end
end
redis.call('PEXPIRE', KEYS[1], 2 * ttl)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], 2 * ttl) end
return written
`;

// KEYS: order, aliases, generation, dropped. ARGV: member prefix, 'all' or 'some', id count, ids,
// aliases, then the reason. Each dropped id is remembered with the reason (`#dropped`, bounded, as
// long as the index would have lived) so that its next miss says why. Answers the values dropped.
export const DROP_MEMBERS = `${FORGET}
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], 86400000)
local prefix, reason, life = ARGV[1], ARGV[#ARGV], redis.call('PTTL', KEYS[1])
local function remember(id)
  if life > 0 then redis.call('HSET', KEYS[4], id, reason) end
end
local dropped = 0
if ARGV[2] == 'all' then
  local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
  for i = 1, #ids, 500 do
    local batch, reasons = {}, {}
    for j = i, math.min(i + 499, #ids) do
      batch[#batch + 1] = prefix .. ids[j]
      reasons[#reasons + 1] = ids[j]
      reasons[#reasons + 1] = reason
    end
    dropped = dropped + redis.call('DEL', unpack(batch))
    if life > 0 then redis.call('HSET', KEYS[4], unpack(reasons)) end
  end
  redis.call('DEL', KEYS[1], KEYS[2])
else
  local n = tonumber(ARGV[3])
  local function drop(id)
    local removed = forget(prefix, id)
    if removed > 0 then remember(id) end
    dropped = dropped + removed
  end
  for i = 4, 3 + n do drop(ARGV[i]) end
  for i = 4 + n, #ARGV - 1 do
    local id = redis.call('HGET', KEYS[2], ARGV[i])
    if id then
      drop(id)
      redis.call('HDEL', KEYS[2], ARGV[i])
    end
  end
end
if life > 0 and redis.call('EXISTS', KEYS[4]) == 1 then
  if redis.call('HLEN', KEYS[4]) > 4096 then redis.call('DEL', KEYS[4]) else redis.call('PEXPIRE', KEYS[4], math.max(life, redis.call('PTTL', KEYS[4]))) end
end
return dropped
`;

// KEYS: order, aliases. ARGV: member prefix, 'all' or 'some', id count, ids, aliases. What a drop
// would answer, read only (a purge's dry run).
export const COUNT_MEMBERS = `
local prefix, ids = ARGV[1], {}
if ARGV[2] == 'all' then
  ids = redis.call('ZRANGE', KEYS[1], 0, -1)
else
  local n = tonumber(ARGV[3])
  for i = 4, 3 + n do ids[#ids + 1] = ARGV[i] end
  for i = 4 + n, #ARGV do
    local id = redis.call('HGET', KEYS[2], ARGV[i])
    if id then ids[#ids + 1] = id end
  end
end
local seen, count = {}, 0
for _, id in ipairs(ids) do
  if not seen[id] then
    seen[id] = true
    count = count + redis.call('EXISTS', prefix .. id)
  end
end
return count
`;

// KEYS: order, dropped. ARGV: ids. Why each is absent: dropped (with the drop's reason), still in
// the index (its value expired), else never held or evicted.
export const ABSENCES = `
local reasons = {}
for i, id in ipairs(ARGV) do
  local reason = redis.call('HGET', KEYS[2], id)
  if not reason then reason = redis.call('ZSCORE', KEYS[1], id) and 'expired' or 'cold' end
  reasons[i] = reason
end
return reasons
`;

// KEYS: generation, order, aliases, dropped, the member. ARGV: the member's id. One member's read
// (a statement read's lookup), its group's generation and, when it is absent, why (as ABSENCES):
// what a lookup and its miss's reason took four commands for. The group's keys are touched as the
// multi-member read touches them.
export const READ_MEMBER = `
local generation = redis.call('GET', KEYS[1]) or '0'
redis.call('TOUCH', KEYS[2], KEYS[3], KEYS[4])
local value = redis.call('GET', KEYS[5])
if value then return {generation, value} end
local reason = redis.call('HGET', KEYS[4], ARGV[1])
if not reason then reason = redis.call('ZSCORE', KEYS[2], ARGV[1]) and 'expired' or 'cold' end
return {generation, false, reason}
`;

export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], KEYS[1])
  return 1
end
return 0
`;

// KEYS: index. ARGV: group, until (ms), now (ms). Groups whose time has passed are forgotten; the
// index lives as long as its latest group.
export const INDEX_GROUP = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(latest[2]) - tonumber(ARGV[3])))
`;
