// How many items of all users wait for a vector.
MATCH (n:Pending)
RETURN count(n) AS pending
