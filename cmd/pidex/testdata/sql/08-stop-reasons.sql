-- Why assistant replies stopped: a field the catalog does not store, read from the files.
SELECT json_extract(entry_json(path, offset), '$.message.stopReason') AS stop_reason, count(*) AS replies
FROM messages_v WHERE role = 'assistant'
GROUP BY 1 ORDER BY replies DESC, stop_reason
