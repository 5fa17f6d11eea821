-- What each project cost per week (fork copies counted once).
SELECT s.project, strftime('%Y-W%W', u.ts_ms / 1000, 'unixepoch') AS week,
       round(sum(u.cost), 4) AS cost, count(*) AS calls
FROM usage_v u JOIN sessions_v s ON s.path = u.path
WHERE NOT u.is_fork_copy AND u.ts_ms IS NOT NULL
GROUP BY 1, 2 ORDER BY 2, 1
