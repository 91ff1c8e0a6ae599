// Every user with memories or episodes.
CALL () {
  MATCH (m:Memory) RETURN DISTINCT m.user_id AS user_id
  UNION
  MATCH (e:Episode) RETURN DISTINCT e.user_id AS user_id
}
RETURN user_id
ORDER BY user_id
LIMIT $limit
