// Create the memory's content nodes; ids that exist (shared subjects) are reused.
// Labels come from the validated node kind through fixed FOREACH branches.
UNWIND $nodes AS n
MERGE (x:Node {id: n.id})
ON CREATE SET x.user_id = $user_id, x.kind = n.kind, x.content = n.content, x.norm = n.norm,
              x.created_at = n.created_at, x.merged_from = n.merged_from
FOREACH (_ IN CASE WHEN n.kind = 'Subject' THEN [1] ELSE [] END | SET x:Subject)
FOREACH (_ IN CASE WHEN n.kind = 'Topic' THEN [1] ELSE [] END | SET x:Topic)
FOREACH (_ IN CASE WHEN n.kind = 'Object' THEN [1] ELSE [] END | SET x:Object)
// topics and objects wait for a vector: the background embedder finds them by this label
FOREACH (_ IN CASE WHEN n.kind IN ['Topic', 'Object'] AND x.embedding IS NULL THEN [1] ELSE [] END |
  SET x:Pending)
FOREACH (_ IN CASE WHEN n.kind = 'Attribute' THEN [1] ELSE [] END | SET x:Attribute)
FOREACH (_ IN CASE WHEN n.kind = 'Value' THEN [1] ELSE [] END | SET x:Value)
RETURN count(x) AS written
