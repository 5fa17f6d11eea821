-- Every current label and the entry it marks.
SELECT substr(session_id, 1, 8) AS session, label, target_id
FROM labels_v ORDER BY session_id, label
