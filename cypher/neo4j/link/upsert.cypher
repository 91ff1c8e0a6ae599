// The relationship type comes from the validated LinkType through fixed branches. The
// target is found in a subquery per source row (an index seek each), so the plan has no
// cartesian product of two disconnected patterns.
MATCH (s:Memory {id: $source_id})
WHERE s.user_id = $user_id
CALL (s) {
  MATCH (t:Memory {id: $target_id})
  WHERE t.user_id = s.user_id
  RETURN t
}
FOREACH (_ IN CASE WHEN $type = 'CAUSES' THEN [1] ELSE [] END |
  MERGE (s)-[r:CAUSES]->(t) SET r += $props)
FOREACH (_ IN CASE WHEN $type = 'REFERS_TO' THEN [1] ELSE [] END |
  MERGE (s)-[r:REFERS_TO]->(t) SET r += $props)
FOREACH (_ IN CASE WHEN $type = 'RELATED_TO' THEN [1] ELSE [] END |
  MERGE (s)-[r:RELATED_TO]->(t) SET r += $props)
FOREACH (_ IN CASE WHEN $type = 'CONFLICTS_WITH' THEN [1] ELSE [] END |
  MERGE (s)-[r:CONFLICTS_WITH]->(t) SET r += $props)
FOREACH (_ IN CASE WHEN $type = 'SUPERSEDES' THEN [1] ELSE [] END |
  MERGE (s)-[r:SUPERSEDES]->(t) SET r += $props)
RETURN s.id AS source_id, t.id AS target_id
