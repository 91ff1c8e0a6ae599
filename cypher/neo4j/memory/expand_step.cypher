// One breadth-first level: every hop from the frontier memories. Links are followed in
// both directions; a shared content node is walked through unless it is a hub (in more
// than $hub_cap memories) or listed in $skip. Reached memories belong to the user and,
// unless asked, are still valid. weight: link importance x confidence, or 1 / degree.
UNWIND $frontier AS fid
MATCH (m:Memory {id: fid})
WHERE m.user_id = $user_id
CALL (m) {
  MATCH (m)-[r:CAUSES|REFERS_TO|RELATED_TO|CONFLICTS_WITH|SUPERSEDES]->(n:Memory)
  WHERE type(r) IN $types AND n.user_id = $user_id
    AND ($include_invalid OR n.invalid_at IS NULL)
  RETURN n.id AS to_id, type(r) AS rel, 'out' AS dir, null AS via,
         coalesce(r.importance, 1.0) * coalesce(r.confidence, 1.0) AS weight
  UNION
  MATCH (m)<-[r:CAUSES|REFERS_TO|RELATED_TO|CONFLICTS_WITH|SUPERSEDES]-(n:Memory)
  WHERE type(r) IN $types AND n.user_id = $user_id
    AND ($include_invalid OR n.invalid_at IS NULL)
  RETURN n.id AS to_id, type(r) AS rel, 'in' AS dir, null AS via,
         coalesce(r.importance, 1.0) * coalesce(r.confidence, 1.0) AS weight
  UNION
  MATCH (m)-[:INCLUDES]->(x:Node)
  WHERE $shared AND x.user_id = $user_id AND NOT x.id IN $skip
  WITH m, x, COUNT { (x)<-[:INCLUDES]-() } AS degree
  WHERE degree <= $hub_cap
  MATCH (x)<-[:INCLUDES]-(n:Memory)
  WHERE n <> m AND n.user_id = $user_id AND ($include_invalid OR n.invalid_at IS NULL)
  RETURN n.id AS to_id, $shared_rel AS rel, 'both' AS dir, x.content AS via,
         1.0 / degree AS weight
}
RETURN m.id AS from_id, to_id, rel, dir, via, weight
