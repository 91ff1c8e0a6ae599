// name: Sensitive memories
// shows: a table of the user's memories and conversation turns marked sensitive (health,
//   finances, credentials, identity numbers), without their text: what is there and when.
// params: :param user_id => 'alice'
MATCH (item:Memory|Episode {user_id: $user_id})
WHERE item.sensitive = true
RETURN CASE WHEN item:Memory THEN 'memory' ELSE 'episode' END AS kind,
       item.id AS id,
       '[sensitive]' AS text,
       coalesce(item.created_at, item.timestamp) AS at,
       item.invalid_at IS NOT NULL AS superseded
ORDER BY at DESC
LIMIT 200
