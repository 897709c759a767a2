// Audits pages with Lighthouse (12.8.2, tools/npm) in one Chromium:
//   node lighthouse.mjs LIGHTHOUSE_MODULE LAUNCHER_MODULE BASE PATH...
// The two modules are the files of lighthouse and chrome-launcher in the
// npm prefix (this file sits outside it). One browser and one Node
// process for every page cost about half of a lighthouse command per
// page. Prints a JSON array of {"page", "report"}, each report with the
// categories and audits of Lighthouse's result. CHROME_PATH names the
// browser. The Go test (webaudit_norace_test.go) checks the scores.
const { default: lighthouse } = await import(process.argv[2]);
const launcher = await import(process.argv[3]);
const [base, ...pages] = process.argv.slice(4);

const chrome = await launcher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const out = [];
try {
  for (const page of pages) {
    const result = await lighthouse(base + page, {
      port: chrome.port, output: 'json', logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
    });
    const { categories, audits } = result.lhr;
    out.push({ page, report: { categories, audits } });
  }
} finally {
  await chrome.kill();
}
process.stdout.write(JSON.stringify(out));
