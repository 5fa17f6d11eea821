-- Which sessions read or edited a file whose path mentions "session".
SELECT substr(session_id, 1, 8) AS session, tool, count(*) AS calls
FROM tool_calls_v
WHERE tool IN ('read', 'edit', 'write')
  AND COALESCE(json_extract(arguments, '$.path'), json_extract(arguments, '$.file_path')) LIKE '%session%'
GROUP BY session_id, tool ORDER BY calls DESC, session_id, tool
