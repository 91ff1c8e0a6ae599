// The stored turn of a session said first after $at (the new turns, $exclude, left out):
// new turns said before it go before it.
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.session_id = $session_id AND e.timestamp > $at
  AND NOT e.id IN $exclude
RETURN e.id AS id, e.timestamp AS timestamp
ORDER BY e.timestamp, e.id
LIMIT 1
