// Two breadth-first levels in one round trip: every hop from the frontier memories
// (level 1), then every hop from the memories those reach (level 2), each level exactly
// expand_step.cypher's (the hop block below is the same text, twice; a test keeps them
// equal). The second level starts from every memory the first reached: the caller keeps,
// for each walk, only the hops from what that walk reached, so a superset is harmless.
CALL () {
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
  RETURN collect({level: 1, from_id: m.id, to_id: to_id, rel: rel, dir: dir, via: via, weight: weight}) AS first
}
CALL (first) {
  UNWIND first AS hop
  WITH DISTINCT hop.to_id AS fid
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
  RETURN collect({level: 2, from_id: m.id, to_id: to_id, rel: rel, dir: dir, via: via, weight: weight}) AS second
}
RETURN first + second AS hops
