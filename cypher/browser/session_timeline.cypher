// name: A session's timeline
// shows: the episodes (raw conversation turns and summaries) of one chat session, chained
//   NEXT in time order; sensitive turns are left out.
// params: :param user_id => 'alice'
//         :param session_id => 's1'
MATCH (e:Episode {user_id: $user_id, session_id: $session_id})
WHERE NOT coalesce(e.sensitive, false)
OPTIONAL MATCH (e)-[next:NEXT]->(after:Episode)
WHERE NOT coalesce(after.sensitive, false)
RETURN e, next, after
ORDER BY e.timestamp
