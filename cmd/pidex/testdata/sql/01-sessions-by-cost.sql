-- The five most expensive sessions, with their project and size.
SELECT project, COALESCE(name, substr(first_message, 1, 40)) AS session, message_count, round(cost, 4) AS cost
FROM sessions_v ORDER BY cost DESC, session_id LIMIT 5
