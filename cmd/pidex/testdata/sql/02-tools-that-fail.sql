-- Which tools fail most.
SELECT tool, count(*) AS calls, sum(is_error) AS errors, round(100.0 * sum(is_error) / count(*), 1) AS error_pct
FROM tool_calls_v GROUP BY tool ORDER BY errors DESC, calls DESC, tool LIMIT 8
