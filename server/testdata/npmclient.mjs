// Drives the real npm client radio-browser-api (6.0.3, tools/npm) against
// a node: RB_MODULE is the client's ESM file, RB_BASE the node's base URL,
// RB_IDS two station uuids and RB_URL a station's stream URL. Prints one
// JSON object: each call's result (station ids, list entries, the click)
// or {"status": N} when the client threw on an HTTP error. The Go test
// (upstream_npm_test.go) checks it against an oracle over the input.
const { RadioBrowserApi } = await import(process.env.RB_MODULE);

const api = new RadioBrowserApi('stationdex-compat-test');
api.setBaseUrl(process.env.RB_BASE);
const [a, b] = process.env.RB_IDS.split(',');
const ids = (stations) => stations.map((s) => s.id);

const calls = {
  all: async () => ids(await api.getAllStations({ limit: 100000 })),
  allWithBroken: async () => ids(await api.getAllStations({ hideBroken: false })),
  searchCountryCode: async () => ids(await api.searchStations({ countryCode: 'PT' })),
  searchTagExact: async () => ids(await api.searchStations({ tag: 'POP', tagExact: true, hideBroken: false })),
  searchBitrate: async () => ids(await api.searchStations({ bitrateMin: '128', codec: 'mp3', hasGeoInfo: true })),
  byCountryCodeExact: async () => ids(await api.getStationsBy('byCountryCodeExact', 'DE')),
  byUuid: async () => ids(await api.getStationsById([b, a])),
  byUrl: async () => ids(await api.getStationByUrl(process.env.RB_URL)),
  countries: async () => api.getCountries(),
  codecs: async () => api.getCodecs(),
  tagsFiltered: async () => api.getTags('JAZ', { order: 'stationcount', reverse: true }),
  click: async () => api.sendStationClick(a),
  vote: async () => api.voteForStation(a),
  substring: async () => ids(await api.searchStations({ name: 'Jazz' })),
  topVote: async () => ids(await api.getStationsByVotes(5)),
  byClickCount: async () => ids(await api.searchStations({ order: 'clickCount', reverse: true, limit: 7, hideBroken: false })),
};

const out = {};
for (const [name, call] of Object.entries(calls)) {
  try {
    out[name] = await call();
  } catch (e) {
    out[name] = { status: e && typeof e.status === 'number' ? e.status : String(e) };
  }
}
process.stdout.write(JSON.stringify(out));
