// Memories of one user with their INCLUDES memberships, one row per memory. CREATE (not
// MERGE): a duplicate id violates the uniqueness constraint and the whole transaction,
// nodes included, rolls back. :Pending marks them for the background embedder.
UNWIND $memories AS mem
CREATE (m:Memory:Pending)
SET m = mem.props
WITH m, mem
UNWIND mem.node_ids AS node_id
MATCH (x:Node {id: node_id})
CREATE (m)-[:INCLUDES {user_id: m.user_id}]->(x)
RETURN count(x) AS included
