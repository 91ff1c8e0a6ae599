// name: Conflicts and superseded memories
// shows: each newer memory that contradicts an older one (CONFLICTS_WITH) and replaces it
//   (SUPERSEDES, also written by corrections); the older memory carries invalid_at and is
//   hidden from default searches. Sensitive memories are not shown.
// params: :param user_id => 'alice'
MATCH (newer:Memory {user_id: $user_id})-[rel:CONFLICTS_WITH|SUPERSEDES]->(older:Memory)
WHERE NOT coalesce(newer.sensitive, false) AND NOT coalesce(older.sensitive, false)
RETURN newer, rel, older
