// name: Conflicts and superseded memories
// shows: each newer memory that contradicts an older one (CONFLICTS_WITH) and replaces it
//   (SUPERSEDES); the older memory carries invalid_at and is hidden from default searches.
// params: :param user_id => 'alice'
MATCH (newer:Memory {user_id: $user_id})-[rel:CONFLICTS_WITH|SUPERSEDES]->(older:Memory)
RETURN newer, rel, older
