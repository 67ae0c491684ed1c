// vitest-summary.mjs: the js suite's result line from Vitest's JSON report (make test-js).
//
// usage: node scripts/vitest-summary.mjs REPORT.json
// REPORT.json may be relative (to the current directory) or absolute: make test-js
// SUMMARY=/abs/dir passes an absolute one. Prints "js: N tests passed in M files (Vitest)".
import { readFileSync } from 'node:fs';
import path from 'node:path';

const report = JSON.parse(readFileSync(path.resolve(process.argv[2]), 'utf8'));
console.log(`js: ${report.numPassedTests} tests passed in ${report.numTotalTestSuites} files (Vitest)`);
