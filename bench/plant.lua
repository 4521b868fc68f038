-- wrk script of the benches: POST /plants with a new id per request, so every request is a
-- create. Arguments after `--`: <id offset> <token> <numbered|random>. Numbered ids count from
-- offset + thread * 1e9 (the warm-up and the measured run get different offsets); random ids,
-- seeded by that number, land all over a database's index, as clients' ids would.

local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local counter = 0
local base = 0
local random = false
local headers = {}

function init(args)
  base = tonumber(args[1] or "0") + tid * 1e9
  headers["Authorization"] = "Bearer " .. (args[2] or "")
  headers["Content-Type"] = "application/json"
  random = args[3] == "random"
  if random then math.randomseed(base) end
end

function request()
  if random then
    local id = string.format("%d%09d", math.random(1, 999999999), math.random(0, 999999999))
    return wrk.format("POST", "/plants", headers, '{"id":' .. id .. ',"name":"Monstera","tag":"aroid"}')
  end
  counter = counter + 1
  local body = string.format('{"id":%.0f,"name":"Monstera","tag":"aroid"}', base + counter)
  return wrk.format("POST", "/plants", headers, body)
end
