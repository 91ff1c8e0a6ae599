// name: A user's memory graph
// shows: the user's newest memories as hubs, their subject/topic/object/value nodes with the
//   structural edges of each memory, and the links between memories. Sensitive memories
//   are left out (the "Sensitive memories" query counts them without their text).
// params: :param user_id => 'alice'
MATCH (m:Memory {user_id: $user_id})
WHERE NOT coalesce(m.sensitive, false)
WITH m ORDER BY m.created_at DESC LIMIT 100
MATCH (m)-[inc:INCLUDES]->(n:Node)
OPTIONAL MATCH (n)-[edge:MEMORY_TYPE|CORE_RELATION|ATTRIBUTE {memory_id: m.id}]->(part:Node)
OPTIONAL MATCH (m)-[link:CAUSES|REFERS_TO|RELATED_TO|CONFLICTS_WITH|SUPERSEDES]-(other:Memory {user_id: $user_id})
WHERE NOT coalesce(other.sensitive, false)
RETURN m, inc, n, edge, part, link, other
