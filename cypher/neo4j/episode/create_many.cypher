// New episodes; each waits for its vector (:Pending) unless it is kept out of search
// (searchable false: a LangGraph item put with index=False is never embedded).
UNWIND $episodes AS e
CREATE (n:Episode)
SET n = e
FOREACH (_ IN CASE WHEN e.searchable THEN [1] ELSE [] END | SET n:Pending)
RETURN count(n) AS created
