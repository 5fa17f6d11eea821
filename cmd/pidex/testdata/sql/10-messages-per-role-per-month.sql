-- Messages per role and month, on every branch.
SELECT strftime('%Y-%m', ts_ms / 1000, 'unixepoch') AS month, role, count(*) AS messages
FROM messages_v WHERE ts_ms IS NOT NULL
GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2
