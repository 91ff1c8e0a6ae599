// Counts for one user ($user_id) or, with $user_id null, the whole store.
CALL () { MATCH (m:Memory) WHERE $user_id IS NULL OR m.user_id = $user_id
       RETURN count(m) AS memories,
              count(CASE WHEN m.status = 'staged' THEN 1 END) AS staged,
              count(m.invalid_at) AS invalid,
              count(m.embedding) AS memory_vectors }
CALL () { MATCH (n:Node) WHERE $user_id IS NULL OR n.user_id = $user_id
       WITH n.kind AS kind, count(*) AS nodes, count(n.embedding) AS embedded
       RETURN collect({kind: kind, nodes: nodes, embedded: embedded}) AS node_rows }
CALL () { MATCH (:Node)-[r:MEMORY_TYPE|CORE_RELATION|ATTRIBUTE]->(:Node)
       WHERE $user_id IS NULL OR r.user_id = $user_id RETURN count(r) AS structural_edges }
CALL () { MATCH (a:Memory)-[r:CAUSES|REFERS_TO|RELATED_TO|CONFLICTS_WITH|SUPERSEDES]->(:Memory)
       WHERE $user_id IS NULL OR a.user_id = $user_id RETURN count(r) AS links }
CALL () { MATCH (e:Episode) WHERE $user_id IS NULL OR e.user_id = $user_id
       RETURN count(e) AS episodes, count(e.embedding) AS episode_vectors }
CALL () { MATCH (v:KnowledgeVersion) WHERE $user_id IS NULL OR v.user_id = $user_id
       RETURN count(v) AS knowledge_versions }
CALL () { MATCH (k:Knowledge) WHERE $user_id IS NULL OR k.user_id = $user_id
       RETURN count(k) AS knowledge_points, count(k.embedding) AS knowledge_vectors }
RETURN memories, staged, invalid, memory_vectors, node_rows, structural_edges, links,
       episodes, episode_vectors, knowledge_versions, knowledge_points, knowledge_vectors
