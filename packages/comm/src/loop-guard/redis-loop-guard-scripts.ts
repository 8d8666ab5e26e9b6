// Every decision about a chain runs as one Lua script, so two buses sharing Redis cannot both
// take the last hop.

/** KEYS: chain, path, ids, escalation, escalation index. ARGV: see `admit` in the guard. */
export const ADMIT = `
local chain, path, ids, esc, index = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, from, to = ARGV[1], ARGV[2], ARGV[3]
local claimed, maxHops, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local state = redis.call('HMGET', chain, 'next', 'limit', 'status', 'open', 'last')
local nextHop = tonumber(state[1]) or 0
local limit = tonumber(state[2]) or maxHops
local status = state[3] or 'active'
if status == 'stopped' then return {'stopped', state[5] or ''} end
if redis.call('SISMEMBER', ids, id) == 1 then return {'admitted', tostring(nextHop - 1)} end
if status == 'escalated' then return {'waiting', state[4]} end
local hop = math.max(claimed, nextHop)
if hop > limit then
  local visited = redis.call('LRANGE', path, 0, -1)
  if visited[#visited] ~= from then table.insert(visited, from) end
  table.insert(visited, to)
  redis.call('HSET', esc, 'id', ARGV[7], 'correlationId', ARGV[11], 'hops', hop - 1,
    'heldHop', hop, 'heldId', id, 'from', from, 'to', to, 'path', cjson.encode(visited),
    'lastMessage', ARGV[8], 'status', 'open', 'createdAt', ARGV[9])
  redis.call('PEXPIRE', esc, ttl)
  redis.call('ZADD', index, ARGV[10], ARGV[7])
  redis.call('HSET', chain, 'next', nextHop, 'limit', limit, 'status', 'escalated', 'open', ARGV[7], 'last', ARGV[7])
  redis.call('PEXPIRE', chain, ttl)
  return {'escalated', ARGV[7]}
end
redis.call('HSET', chain, 'next', hop + 1, 'limit', limit, 'status', status)
redis.call('SADD', ids, id)
if redis.call('LINDEX', path, -1) ~= from then redis.call('RPUSH', path, from) end
redis.call('RPUSH', path, to)
redis.call('PEXPIRE', chain, ttl)
redis.call('PEXPIRE', path, ttl)
redis.call('PEXPIRE', ids, ttl)
return {'admitted', tostring(hop)}
`

/** KEYS: chain, path, ids. ARGV: id, from, to, hop, maxHops, ttl. */
export const OBSERVE = `
local chain, path, ids = KEYS[1], KEYS[2], KEYS[3]
if redis.call('SADD', ids, ARGV[1]) == 0 then return 0 end
local nextHop = tonumber(redis.call('HGET', chain, 'next')) or 0
redis.call('HSET', chain, 'next', math.max(nextHop, tonumber(ARGV[4]) + 1))
redis.call('HSETNX', chain, 'limit', ARGV[5])
redis.call('HSETNX', chain, 'status', 'active')
if redis.call('LINDEX', path, -1) ~= ARGV[2] then redis.call('RPUSH', path, ARGV[2]) end
redis.call('RPUSH', path, ARGV[3])
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[6]) end
return 1
`

/** KEYS: escalation, chain, path, ids. ARGV: extraHops, resolvedAt, ttl. */
export const ALLOW = `
local esc, chain, path, ids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local status = redis.call('HGET', esc, 'status')
if not status then return {'missing'} end
if status ~= 'open' then return {'resolved', status} end
local held = redis.call('HMGET', esc, 'heldHop', 'heldId', 'from', 'to')
local heldHop = tonumber(held[1])
redis.call('HSET', esc, 'status', 'allowed', 'extraHops', ARGV[1], 'resolvedAt', ARGV[2])
redis.call('HSET', chain, 'status', 'active', 'open', '', 'limit', heldHop - 1 + tonumber(ARGV[1]), 'next', heldHop + 1)
redis.call('SADD', ids, held[2])
if redis.call('LINDEX', path, -1) ~= held[3] then redis.call('RPUSH', path, held[3]) end
redis.call('RPUSH', path, held[4])
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[3]) end
return {'ok'}
`

/** KEYS: escalation, chain. ARGV: reason, resolvedAt, ttl. */
export const STOP = `
local esc, chain = KEYS[1], KEYS[2]
local status = redis.call('HGET', esc, 'status')
if not status then return {'missing'} end
if status ~= 'open' then return {'resolved', status} end
redis.call('HSET', esc, 'status', 'stopped', 'reason', ARGV[1], 'resolvedAt', ARGV[2])
redis.call('HSET', chain, 'status', 'stopped', 'open', '')
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[3]) end
return {'ok'}
`
