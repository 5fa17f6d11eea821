-- Tokens by model and where pi recorded the call.
SELECT model, source, count(*) AS calls, sum(input) AS input, sum(output) AS output, sum(cache_read) AS cache_read
FROM usage_v WHERE NOT is_fork_copy
GROUP BY model, source ORDER BY model, source
