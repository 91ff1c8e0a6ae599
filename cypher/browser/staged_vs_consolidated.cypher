// name: Staged vs consolidated
// shows: a table of the user's memories by status: how many, how many were invalidated,
//   how many still wait for their vectors (:Pending), and the oldest and newest of each.
// params: :param user_id => 'alice'
MATCH (m:Memory {user_id: $user_id})
RETURN m.status AS status,
       count(*) AS memories,
       count(m.invalid_at) AS invalidated,
       sum(CASE WHEN m:Pending THEN 1 ELSE 0 END) AS waiting_for_vectors,
       min(m.created_at) AS oldest,
       max(m.created_at) AS newest
ORDER BY status
