-- wrk script for bench/run.ts: POST /plants with a unique id per request, so every request
-- is a create (never a replay or a 409). Arguments after `--`: <id offset> <token>.
-- Each thread numbers its own requests from offset + thread * 1e9; bench/run.ts gives the
-- warm-up and the measured run different offsets, so ids never repeat within a server process.

local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local counter = 0
local base = 0
local headers = {}

function init(args)
  base = tonumber(args[1] or "0") + tid * 1e9
  headers["Authorization"] = "Bearer " .. (args[2] or "")
  headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local body = string.format('{"id":%.0f,"name":"Monstera","tag":"aroid"}', base + counter)
  return wrk.format("POST", "/plants", headers, body)
end
