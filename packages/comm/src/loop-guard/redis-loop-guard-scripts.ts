// Every decision about a chain runs as one Lua script, so two buses sharing Redis cannot both
// take the last hop. The scripts read keys of more than one correlation (a message names the
// chain it was admitted in), so the guard needs one Redis (or one shard), not a cluster.
//
// Time is the guard's clock (ARGV 2), not Redis's: a chain idle longer than the ttl (ARGV 3)
// is gone, with the messages it admitted and its escalations, exactly as in the memory guard.
// PEXPIRE only reclaims the memory of what nobody touches again.

/** ARGV 1 to 3 of every script: prefix, now (ms), ttl (ms). */
const PRELUDE = `
local prefix, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local function key(kind, name) return prefix .. ':' .. kind .. ':' .. name end
local function alive(c)
  local seen = tonumber(redis.call('HGET', key('chain', c), 'seen'))
  -- a chain written before chains kept 'seen' lives until its key expires
  if seen == nil then return redis.call('EXISTS', key('chain', c)) == 1 end
  return seen >= now - ttl
end
local function forgetIfIdle(c)
  if alive(c) then return end
  for _, id in ipairs(redis.call('SMEMBERS', key('ids', c))) do redis.call('DEL', key('message', id)) end
  for _, id in ipairs(redis.call('SMEMBERS', key('escs', c))) do
    redis.call('DEL', key('escalation', id))
    redis.call('ZREM', prefix .. ':escalations', id)
  end
  redis.call('DEL', key('chain', c), key('path', c), key('ids', c), key('escs', c))
end
local function touch(c)
  redis.call('HSET', key('chain', c), 'seen', now)
  for _, k in ipairs({key('chain', c), key('path', c), key('ids', c), key('escs', c)}) do
    redis.call('PEXPIRE', k, ttl)
  end
  for _, id in ipairs(redis.call('SMEMBERS', key('escs', c))) do
    redis.call('PEXPIRE', key('escalation', id), ttl)
  end
end
local function lookup(id)
  local r = redis.call('HMGET', key('message', id), 'correlationId', 'hop', 'fingerprint', 'at')
  if not r[1] then return nil end
  if tonumber(r[4]) < now - ttl or not alive(r[1]) then return nil end
  return r
end
local function record(id, c, hop, fingerprint)
  redis.call('HSET', key('message', id), 'correlationId', c, 'hop', hop, 'fingerprint', fingerprint, 'at', now)
  redis.call('PEXPIRE', key('message', id), ttl)
  redis.call('SADD', key('ids', c), id)
end
local function extendPath(c, from, to)
  if redis.call('LINDEX', key('path', c), -1) ~= from then redis.call('RPUSH', key('path', c), from) end
  redis.call('RPUSH', key('path', c), to)
end
`

/**
 * ARGV 4+: id, from, to, claimed hop, maxHops, candidate escalation id, envelope JSON,
 * createdAt, correlationId, inReplyTo ('' for none), fingerprint text.
 */
export const ADMIT = `${PRELUDE}
local id, from, to = ARGV[4], ARGV[5], ARGV[6]
local claimed, maxHops = tonumber(ARGV[7]), tonumber(ARGV[8])
local candidate, c, inReplyTo = ARGV[9], ARGV[12], ARGV[13]
forgetIfIdle(c)
local chain = key('chain', c)
local state = redis.call('HMGET', chain, 'next', 'limit', 'status', 'open', 'last')
local nextHop = tonumber(state[1]) or 0
local limit = tonumber(state[2]) or maxHops
local status = state[3] or 'active'
touch(c)
if status == 'stopped' then return {'stopped', state[5] or ''} end
if status == 'escalated' then return {'waiting', state[4]} end
local fingerprint = redis.sha1hex(ARGV[14])
local known = lookup(id)
if known then
  if known[3] == fingerprint then return {'duplicate', tostring(nextHop - 1)} end
  return {'conflict', 'id-reused', id, known[1], known[2]}
end
if inReplyTo ~= '' then
  local parent = lookup(inReplyTo)
  if parent and parent[1] ~= c then return {'conflict', 'correlation', inReplyTo, parent[1], parent[2]} end
  if parent and tonumber(parent[2]) + 1 ~= claimed then
    return {'conflict', 'hop', inReplyTo, parent[1], parent[2]}
  end
end
local hop = math.max(claimed, nextHop)
if hop > limit then
  local visited = redis.call('LRANGE', key('path', c), 0, -1)
  if visited[#visited] ~= from then table.insert(visited, from) end
  table.insert(visited, to)
  local esc = key('escalation', candidate)
  redis.call('HSET', esc, 'id', candidate, 'correlationId', c, 'hops', hop - 1,
    'heldHop', hop, 'heldId', id, 'claimed', claimed, 'fingerprint', fingerprint, 'from', from,
    'to', to, 'path', cjson.encode(visited), 'lastMessage', ARGV[10], 'status', 'open',
    'createdAt', ARGV[11])
  redis.call('PEXPIRE', esc, ttl)
  redis.call('SADD', key('escs', c), candidate)
  redis.call('PEXPIRE', key('escs', c), ttl)
  redis.call('ZADD', prefix .. ':escalations', now, candidate)
  redis.call('HSET', chain, 'next', nextHop, 'limit', limit, 'status', 'escalated', 'open', candidate, 'last', candidate)
  return {'escalated', candidate}
end
redis.call('HSET', chain, 'next', hop + 1, 'limit', limit, 'status', status)
record(id, c, claimed, fingerprint)
extendPath(c, from, to)
touch(c)
return {'admitted', tostring(hop)}
`

/** ARGV 4+: id, from, to, hop, maxHops, correlationId, fingerprint text. */
export const OBSERVE = `${PRELUDE}
local id, from, to, hop, maxHops, c = ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]), ARGV[8], ARGV[9]
forgetIfIdle(c)
touch(c)
if lookup(id) then return 0 end
record(id, c, hop, redis.sha1hex(ARGV[10]))
local chain = key('chain', c)
local nextHop = tonumber(redis.call('HGET', chain, 'next')) or 0
redis.call('HSET', chain, 'next', math.max(nextHop, hop + 1))
redis.call('HSETNX', chain, 'limit', maxHops)
redis.call('HSETNX', chain, 'status', 'active')
extendPath(c, from, to)
touch(c)
return 1
`

/** ARGV 4+: message id. Replies correlationId and hop, or nothing. */
export const RECORDED = `${PRELUDE}
local r = lookup(ARGV[4])
if not r then return {} end
return {r[1], r[2]}
`

/** ARGV 4+: escalation id. Replies the escalation's fields and whether its chain is alive. */
const RESOLVABLE = `
local escId = ARGV[4]
local esc = key('escalation', escId)
local fields = redis.call('HMGET', esc, 'status', 'correlationId')
if not fields[1] or not fields[2] or not alive(fields[2]) then return {'missing'} end
if fields[1] ~= 'open' then return {'resolved', fields[1]} end
local c = fields[2]
`

/** ARGV 4+: escalation id, extraHops (checked by the caller), resolvedAt. */
export const ALLOW = `${PRELUDE}${RESOLVABLE}
local extra = tonumber(ARGV[5])
local held = redis.call('HMGET', esc, 'heldHop', 'heldId', 'from', 'to', 'claimed', 'fingerprint')
local heldHop = tonumber(held[1])
redis.call('HSET', esc, 'status', 'allowed', 'extraHops', extra, 'resolvedAt', ARGV[6])
redis.call('HSET', key('chain', c), 'status', 'active', 'open', '', 'limit', heldHop - 1 + extra, 'next', heldHop + 1)
-- escalations written before these fields existed: the held hop, and no fingerprint
record(held[2], c, tonumber(held[5]) or heldHop, held[6] or '')
extendPath(c, held[3], held[4])
touch(c)
return {'ok'}
`

/** ARGV 4+: escalation id, reason, resolvedAt. */
export const STOP = `${PRELUDE}${RESOLVABLE}
redis.call('HSET', esc, 'status', 'stopped', 'reason', ARGV[5], 'resolvedAt', ARGV[6])
redis.call('HSET', key('chain', c), 'status', 'stopped', 'open', '')
touch(c)
return {'ok'}
`

/** ARGV 4+: correlation id. Replies the hops counted, or 0 for an unknown or idle chain. */
export const HOPS = `${PRELUDE}
local c = ARGV[4]
if not alive(c) then return 0 end
return math.max(0, (tonumber(redis.call('HGET', key('chain', c), 'next')) or 0) - 1)
`

/** ARGV 4+: escalation ids. Replies, per id, 1 when its chain is alive, else 0 (and unindexes it). */
export const LIVE = `${PRELUDE}
local result = {}
for index = 4, #ARGV do
  local c = redis.call('HGET', key('escalation', ARGV[index]), 'correlationId')
  if c and alive(c) then
    result[#result + 1] = 1
  else
    result[#result + 1] = 0
    if not c then redis.call('ZREM', prefix .. ':escalations', ARGV[index]) end
  end
end
return result
`
