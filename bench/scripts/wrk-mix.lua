-- wrk script: cycle through the query mix (one request path per line of the
-- file given after --), each thread starting at a different point, and
-- print the summary as one JSON line prefixed WRKJSON for the suite.
local paths = {}
local counter = 1
local nthreads = 0

function setup(thread)
  thread:set("tid", nthreads)
  nthreads = nthreads + 1
end

function init(args)
  for line in io.lines(args[1]) do
    paths[#paths + 1] = line
  end
  if #paths == 0 then
    error("no request paths in " .. tostring(args[1]))
  end
  counter = ((tid or 0) * 7919) % #paths + 1
end

function request()
  local p = paths[counter]
  counter = counter % #paths + 1
  return wrk.format("GET", p)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
