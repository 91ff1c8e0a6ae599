// Lints Cypher statements with Neo4j's own language tooling, offline.
//
// Reads a JSON array on stdin: [{"name": ..., "text": ..., "parameters": [...],
// "version": "CYPHER 5" | "CYPHER 25", "graph": {"labels": [...],
// "relationshipTypes": [...], "propertyKeys": [...]}}] and prints a JSON array of
// findings: [{"name", "severity": "error"|"warning"|"info"|"hint", "line", "message"}].
// A parameter a statement uses but its callers do not pass is an error
// ("Parameter $x is not defined"); so is a function or procedure Neo4j does not have
// (its catalogue of both, shipped with the pinned package). A label, relationship type
// or property key outside "graph", deprecations and cartesian products are warnings.
import { lintCypherQuery } from '@neo4j-cypher/language-support';
// The package's own catalogue of Neo4j's functions and procedures (its test data: the
// package exports no other copy). The version is pinned by package-lock.json; if a new
// one moves the file, this import fails and so does the lint, loudly.
import { testData } from './node_modules/@neo4j-cypher/language-support/dist/esm/project/language-support/src/tests/testData.js';

const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };
const { functions, procedures } = testData.mockSchema;

let input = '';
for await (const chunk of process.stdin) input += chunk;
const findings = [];
for (const item of JSON.parse(input)) {
  const parameters = Object.fromEntries(item.parameters.map((p) => [p, null]));
  const { diagnostics } = lintCypherQuery(item.text, {
    parameters,
    functions,
    procedures,
    ...(item.graph ?? {}),
    defaultLanguage: item.version ?? 'CYPHER 5',
  });
  for (const d of diagnostics) {
    findings.push({
      name: item.name,
      severity: SEVERITY[d.severity] ?? String(d.severity),
      line: (d.range?.start?.line ?? 0) + 1,
      message: d.message,
    });
  }
}
process.stdout.write(JSON.stringify(findings));
