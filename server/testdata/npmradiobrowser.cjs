// Drives the real npm client radio-browser (2.2.3, tools/npm) against a
// node: RB_MODULE is the client's directory, RB_BASE the node's base URL,
// RB_ID a station uuid, RB_URL its stream URL, RB_NAME a word of its name,
// RB_TAG one of its tags, RB_COUNTRY its country, RB_CODE its country
// code, RB_LANGUAGE its language. Every read call the client has is made
// once, in turn; prints one JSON array of {"call", "result"} or
// {"call", "error"} (the client throws "Status Code: N" on an HTTP
// error). The Go test (rbapi_clients_test.go) replays each request the
// node recorded and checks the client's result against the node's own
// answer.
const RadioBrowser = require(process.env.RB_MODULE);

RadioBrowser.service_url = process.env.RB_BASE + '/';
const env = process.env;
const by = (type, searchterm, extra = {}) => () => RadioBrowser.getStations({ by: type, searchterm, ...extra });

const calls = [
  ['countries', () => RadioBrowser.getCategory('countries', { order: 'stationcount', reverse: true, limit: 50 })],
  ['countriesFiltered', () => RadioBrowser.getCategory('countries', { searchterm: env.RB_CODE.toLowerCase() })],
  ['countrycodes', () => RadioBrowser.getCategory('countrycodes', { hidebroken: true })],
  ['codecs', () => RadioBrowser.getCategory('codecs')],
  ['states', () => RadioBrowser.getCategory('states', { limit: 100 })],
  ['statesOfCountry', () => RadioBrowser.getCategory('states', { country: env.RB_COUNTRY, searchterm: 'a' })],
  ['languages', () => RadioBrowser.getCategory('languages', { order: 'stationcount', reverse: true, limit: 40 })],
  ['tags', () => RadioBrowser.getCategory('tags', { searchterm: env.RB_TAG, limit: 40 })],
  ['getCountries', () => RadioBrowser.getCountries({ limit: 5 })],
  ['getCodecs', () => RadioBrowser.getCodecs()],
  ['getStates', () => RadioBrowser.getStates({ limit: 5 })],
  ['getLanguages', () => RadioBrowser.getLanguages({ limit: 5 })],
  ['getTags', () => RadioBrowser.getTags({ limit: 5 })],
  ['stations', () => RadioBrowser.getStations({ limit: 20, offset: 3, order: 'votes', reverse: true })],
  ['byuuid', by('uuid', env.RB_ID)],
  ['byname', by('name', env.RB_NAME, { limit: 25 })],
  ['bynameexact', by('nameexact', env.RB_FULLNAME)],
  ['bycodec', by('codec', 'mp3', { limit: 10 })],
  ['bycodecexact', by('codecexact', 'MP3', { limit: 10, hidebroken: true })],
  ['bycountry', by('country', env.RB_COUNTRY, { limit: 10 })],
  ['bycountryexact', by('countryexact', env.RB_COUNTRY, { limit: 10 })],
  ['bycountrycodeexact', by('countrycodeexact', env.RB_CODE, { limit: 10, order: 'clickcount', reverse: true })],
  ['bystate', by('state', 'a', { limit: 10 })],
  ['bystateexact', by('stateexact', env.RB_STATE || 'x', { limit: 10 })],
  ['bylanguage', by('language', env.RB_LANGUAGE, { limit: 10 })],
  ['bylanguageexact', by('languageexact', env.RB_LANGUAGE, { limit: 10 })],
  ['bytag', by('tag', env.RB_TAG, { limit: 10 })],
  ['bytagexact', by('tagexact', env.RB_TAG, { limit: 10 })],
  ['byurl', by('url', env.RB_URL)],
  ['topclick', by('topclick', undefined, { limit: 5 })],
  ['topvote', by('topvote', undefined, { limit: 5, hidebroken: true })],
  ['lastclick', by('lastclick', undefined, { limit: 5 })],
  ['lastchange', by('lastchange', undefined, { limit: 5 })],
  ['broken', by('broken', undefined, { limit: 5 })],
  ['improvable', by('improvable', undefined, { limit: 5 })],
  ['search', () => RadioBrowser.searchStations({ name: env.RB_NAME, tagList: env.RB_TAG, limit: 10, order: 'clickcount', reverse: true, hidebroken: true })],
  ['searchUnknownParameter', () => RadioBrowser.searchStations({ search: env.RB_NAME, limit: 5 })],
  ['clickStation', () => RadioBrowser.clickStation(env.RB_ID)],
  ['getServerStats', () => RadioBrowser.getServerStats()],
  ['getServerMirrors', () => RadioBrowser.getServerMirrors()],
  ['getServerConfig', () => RadioBrowser.getServerConfig()],
  ['getChecks', () => RadioBrowser.getChecks(env.RB_ID)],
  ['getChecksteps', () => RadioBrowser.getChecksteps([env.RB_ID])],
  ['getClicks', () => RadioBrowser.getClicks(env.RB_ID, 60)],
];

(async () => {
  const out = [];
  for (const [call, run] of calls) {
    try {
      out.push({ call, result: await run() });
    } catch (e) {
      out.push({ call, error: String(e && e.message) });
    }
  }
  process.stdout.write(JSON.stringify(out));
})();
