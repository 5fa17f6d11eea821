-- Money spent on branches the user left (usage off the current path).
SELECT substr(session_id, 1, 8) AS session, count(*) AS calls, round(sum(cost), 4) AS abandoned_cost
FROM usage_v WHERE NOT on_active_path
GROUP BY session_id ORDER BY abandoned_cost DESC, session_id
