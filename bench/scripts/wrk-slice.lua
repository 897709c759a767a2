-- wrk script for the cold mix: the request paths (one a line, file given
-- after --, then the number of threads) are cut into one slice per thread,
-- and each thread walks its slice in order, so every path is sent once
-- until a slice runs out. A thread whose slice runs out starts it again and
-- counts a wrap: the suite sizes the duration so that this does not happen,
-- and reports the wraps. Prints the summary as one JSON line prefixed
-- WRKJSON, as wrk-mix.lua does, plus the wraps and the slice sizes.
local paths = {}
local first, last, counter = 1, 0, 1
wraps = 0 -- global: read by done() through thread:get
local nthreads = 0
local threads = {}

function setup(thread)
  thread:set("tid", nthreads)
  nthreads = nthreads + 1
  table.insert(threads, thread)
end

function init(args)
  local all = {}
  for line in io.lines(args[1]) do
    all[#all + 1] = line
  end
  local total = tonumber(args[2]) or 1
  if #all < total then
    error("fewer request paths than threads in " .. tostring(args[1]))
  end
  local t = tid or 0
  first = math.floor(t * #all / total) + 1
  last = math.floor((t + 1) * #all / total)
  for i = first, last do
    paths[#paths + 1] = all[i]
  end
  counter = 1
end

function request()
  local p = paths[counter]
  counter = counter + 1
  if counter > #paths then
    counter = 1
    wraps = wraps + 1
  end
  return wrk.format("GET", p)
end

function done(summary, latency, requests)
  local w, n = 0, 0
  for _, t in ipairs(threads) do
    w = w + (t:get("wraps") or 0)
    n = n + 1
  end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,' ..
    '"wraps":%d,"threads":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), w, n))
end
