-- The slowest tool calls (time from the call to its result), a fork's copy counted once.
SELECT DISTINCT call_id, tool, duration_ms,
       substr(COALESCE(json_extract(arguments, '$.command'), json_extract(arguments, '$.query'),
                       json_extract(arguments, '$.path')), 1, 40) AS what
FROM tool_calls_v WHERE duration_ms IS NOT NULL ORDER BY duration_ms DESC, call_id LIMIT 5
