// Lints Cypher statements with Neo4j's own language tooling, offline.
//
// Reads a JSON array on stdin: [{"name": ..., "text": ..., "parameters": [...],
// "version": "CYPHER 5" | "CYPHER 25"}] and prints a JSON array of findings:
// [{"name", "severity": "error"|"warning"|"info"|"hint", "line", "message"}].
// A parameter a statement uses but its callers do not pass is an error
// ("Parameter $x is not defined"); deprecations and cartesian products are warnings.
import { lintCypherQuery } from '@neo4j-cypher/language-support';

const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

let input = '';
for await (const chunk of process.stdin) input += chunk;
const findings = [];
for (const item of JSON.parse(input)) {
  const parameters = Object.fromEntries(item.parameters.map((p) => [p, null]));
  const { diagnostics } = lintCypherQuery(item.text, {
    parameters,
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
