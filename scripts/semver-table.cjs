// semver-table.cjs: writes core/tests/data/semver.json, the answers of node-semver (the copy pi 1.6.0 installs,
// from the oracle: /opt/pi-oracle-1.6.0, or SEMVER=path) to `validRange(r) ? satisfies(v, validRange(r)) : true`
// for the ranges and versions below: what core/src/semver.rs is tested against. Run: node scripts/semver-table.cjs
const semver = require(process.env.SEMVER ?? "/opt/pi-oracle-1.6.0/node_modules/semver");
const ranges = ["^1.0.0","~1.2.0","1.2.3","=1.2.3","v1.2.3",">=1.2.3 <2.0.0",">= 1.2.3","1.x","1.2.x","*","","x","1.2.3 - 2.3.4","1.2 - 2.3.4","1.2.3 - 2.3","1.2.3 - 2","^0.2.3","^0.0.3","^0.0","^0.x","^1.2.x","~1","~0.2","<1.2","<=1.2",">1",">1.2",">=1.x","1.x || 2.x","<1.0.0 || >=3.0.0","^2.0.0-beta.1","latest","next","1.2.3-rc.1","~1.2.3-beta.2",">1.2.3-alpha.3","^1.2.3+build"];
const versions = ["1.0.0","1.2.0","1.2.3","1.2.9","1.3.0","1.9.9","2.0.0","2.3.4","2.3.5","2.4.0","0.0.1","0.0.3","0.0.4","0.1.0","0.2.3","0.2.9","0.3.0","3.0.0","2.0.0-beta.1","2.0.0-beta.2","2.0.0-alpha","1.2.3-rc.1","1.2.3-beta.3","1.2.4-beta.1","1.2.3-alpha.4","v1.2.3","=1.2.3","not-a-version","1.2"];
const rows = [];
for (const r of ranges) {
  const vr = semver.validRange(r);
  for (const v of versions) rows.push([v, r, vr ? semver.satisfies(v, vr) : true]);
}
require("fs").writeFileSync(require("path").join(__dirname, "../core/tests/data/semver.json"), JSON.stringify(rows) + "\n");
