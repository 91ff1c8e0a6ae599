// CREATE (not MERGE): a duplicate id violates the uniqueness constraint and the whole
// transaction, nodes included, rolls back. :Pending marks it for the background embedder.
CREATE (m:Memory:Pending)
SET m = $props
WITH m
UNWIND $node_ids AS node_id
MATCH (x:Node {id: node_id})
CREATE (m)-[:INCLUDES {user_id: m.user_id}]->(x)
RETURN count(x) AS included
