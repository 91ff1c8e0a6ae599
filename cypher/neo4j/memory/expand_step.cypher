// One breadth-first level: every hop from the frontier memories. Links are followed in
// both directions; a shared content node is walked through unless it is a hub (in more
// than $hub_cap memories). Reached memories belong to the user and, unless asked, are
// still valid.
UNWIND $frontier AS fid
MATCH (m:Memory {id: fid})
WHERE m.user_id = $user_id
CALL {
  WITH m
  MATCH (m)-[r:CAUSES|REFERS_TO|RELATED_TO|CONFLICTS_WITH|SUPERSEDES]->(n:Memory)
  WHERE type(r) IN $types AND n.user_id = $user_id
    AND ($include_invalid OR n.invalid_at IS NULL)
  RETURN n.id AS to_id, type(r) AS rel, 'out' AS dir, null AS via
  UNION
  WITH m
  MATCH (m)<-[r:CAUSES|REFERS_TO|RELATED_TO|CONFLICTS_WITH|SUPERSEDES]-(n:Memory)
  WHERE type(r) IN $types AND n.user_id = $user_id
    AND ($include_invalid OR n.invalid_at IS NULL)
  RETURN n.id AS to_id, type(r) AS rel, 'in' AS dir, null AS via
  UNION
  WITH m
  MATCH (m)-[:INCLUDES]->(x:Node)
  WHERE $shared AND x.user_id = $user_id AND COUNT { (x)<-[:INCLUDES]-() } <= $hub_cap
  MATCH (x)<-[:INCLUDES]-(n:Memory)
  WHERE n <> m AND n.user_id = $user_id AND ($include_invalid OR n.invalid_at IS NULL)
  RETURN n.id AS to_id, $shared_rel AS rel, 'both' AS dir, x.content AS via
}
RETURN m.id AS from_id, to_id, rel, dir, via
