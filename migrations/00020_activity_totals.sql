-- +goose Up
-- Whole-history activity sums (issue 36: pidex stats over all of a
-- 10,000-session history took 219 ms, where summing the per-file rows was
-- most of it). A report with no window, no period, no group and no
-- filter but the branch (the plain `pidex stats`) reads these few rows
-- instead of one row per file (query/stats.go, statsQuery.total).
--
-- Triggers on the per-file tables keep them equal to those rows summed,
-- whichever path writes them (an ingest, an append, a file removed, a
-- fork's siblings derived again): an insert adds its row, a delete
-- subtracts it. A maximum cannot be subtracted: when the deleted row held
-- it, it is taken again from the remaining rows. A REAL sum that
-- overflowed to infinity is summed again from the rows likewise, so
-- subtracting never leaves a wrong finite or NaN value. `file_rows` counts the
-- per-file rows summed; a key with none is deleted.
--
-- session_activity keeps its session's branch points (sessions.
-- branch_points), so that the report's sessions step reads that one
-- table. Triggers copy them, so that a build that predates the column
-- (the same derivation, fewer migrations) keeps them too when it writes.
ALTER TABLE session_activity ADD COLUMN branch_points INTEGER NOT NULL DEFAULT 0;
UPDATE session_activity SET branch_points = COALESCE((SELECT s.branch_points FROM sessions s WHERE s.file_id = session_activity.file_id), 0);
-- +goose StatementBegin
CREATE TRIGGER session_activity_branch_points AFTER INSERT ON session_activity BEGIN
    UPDATE session_activity SET branch_points = COALESCE((SELECT s.branch_points FROM sessions s WHERE s.file_id = NEW.file_id), 0)
    WHERE file_id = NEW.file_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER sessions_branch_points AFTER UPDATE OF branch_points ON sessions BEGIN
    UPDATE session_activity SET branch_points = NEW.branch_points WHERE file_id = NEW.file_id;
END;
-- +goose StatementEnd

CREATE TABLE activity_all (
    active INTEGER NOT NULL,
    file_rows INTEGER NOT NULL,
    entries INTEGER NOT NULL,
    user_turns INTEGER NOT NULL,
    assistant_calls INTEGER NOT NULL,
    tool_calls INTEGER NOT NULL,
    tool_results INTEGER NOT NULL,
    tool_errors INTEGER NOT NULL,
    user_commands INTEGER NOT NULL,
    stop_error INTEGER NOT NULL,
    stop_aborted INTEGER NOT NULL,
    stop_length INTEGER NOT NULL,
    active_ms INTEGER NOT NULL,
    turns_timed INTEGER NOT NULL,
    latency_ms INTEGER NOT NULL,
    max_latency_ms INTEGER NOT NULL,
    compactions INTEGER NOT NULL,
    context_before INTEGER NOT NULL,
    max_context_before INTEGER NOT NULL,
    prompt_input REAL    NOT NULL,
    prompt_cache_read REAL    NOT NULL,
    prompt_cache_write REAL    NOT NULL,
    PRIMARY KEY (active)
) WITHOUT ROWID;
INSERT INTO activity_all SELECT active, count(*), sum(entries), sum(user_turns), sum(assistant_calls), sum(tool_calls), sum(tool_results), sum(tool_errors), sum(user_commands), sum(stop_error), sum(stop_aborted), sum(stop_length), sum(active_ms), sum(turns_timed), sum(latency_ms), max(max_latency_ms), sum(compactions), sum(context_before), max(max_context_before), total(prompt_input), total(prompt_cache_read), total(prompt_cache_write) FROM activity_file GROUP BY active;

CREATE TABLE activity_tools_all (
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    active INTEGER NOT NULL,
    file_rows INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    results INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    result_bytes INTEGER NOT NULL,
    timed INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    max_duration_ms INTEGER NOT NULL,
    PRIMARY KEY (kind, name, active)
) WITHOUT ROWID;
INSERT INTO activity_tools_all SELECT kind, name, active, count(*), sum(calls), sum(results), sum(errors), sum(result_bytes), sum(timed), sum(duration_ms), max(max_duration_ms) FROM activity_tools_file GROUP BY kind, name, active;

-- The heatmap's sums, by quarter hour (bucket) and by hour (bucket / 4,
-- what a zone whose offsets are whole hours reads).
CREATE TABLE activity_quarters (
    bucket INTEGER NOT NULL,
    active INTEGER NOT NULL,
    file_rows INTEGER NOT NULL,
    active_ms INTEGER NOT NULL,
    user_turns INTEGER NOT NULL,
    PRIMARY KEY (bucket, active)
) WITHOUT ROWID;
INSERT INTO activity_quarters SELECT bucket, active, count(*), sum(active_ms), sum(user_turns) FROM activity GROUP BY bucket, active;
CREATE TABLE activity_hours (
    hour INTEGER NOT NULL,
    active INTEGER NOT NULL,
    file_rows INTEGER NOT NULL,
    active_ms INTEGER NOT NULL,
    user_turns INTEGER NOT NULL,
    PRIMARY KEY (hour, active)
) WITHOUT ROWID;
INSERT INTO activity_hours SELECT bucket / 4, active, count(*), sum(active_ms), sum(user_turns) FROM activity WHERE bucket >= 0 GROUP BY bucket / 4, active;

-- The writer deletes and inserts these rows, never updates them.
-- +goose StatementBegin
CREATE TRIGGER activity_all_add AFTER INSERT ON activity_file BEGIN
    INSERT INTO activity_all (active, file_rows, entries, user_turns, assistant_calls, tool_calls, tool_results, tool_errors, user_commands, stop_error, stop_aborted, stop_length, active_ms, turns_timed, latency_ms, max_latency_ms, compactions, context_before, max_context_before, prompt_input, prompt_cache_read, prompt_cache_write)
    VALUES (NEW.active, 1, NEW.entries, NEW.user_turns, NEW.assistant_calls, NEW.tool_calls, NEW.tool_results, NEW.tool_errors, NEW.user_commands, NEW.stop_error, NEW.stop_aborted, NEW.stop_length, NEW.active_ms, NEW.turns_timed, NEW.latency_ms, NEW.max_latency_ms, NEW.compactions, NEW.context_before, NEW.max_context_before, NEW.prompt_input, NEW.prompt_cache_read, NEW.prompt_cache_write)
    ON CONFLICT (active) DO UPDATE SET
        file_rows = file_rows + 1,
        entries = entries + excluded.entries,
        user_turns = user_turns + excluded.user_turns,
        assistant_calls = assistant_calls + excluded.assistant_calls,
        tool_calls = tool_calls + excluded.tool_calls,
        tool_results = tool_results + excluded.tool_results,
        tool_errors = tool_errors + excluded.tool_errors,
        user_commands = user_commands + excluded.user_commands,
        stop_error = stop_error + excluded.stop_error,
        stop_aborted = stop_aborted + excluded.stop_aborted,
        stop_length = stop_length + excluded.stop_length,
        active_ms = active_ms + excluded.active_ms,
        turns_timed = turns_timed + excluded.turns_timed,
        latency_ms = latency_ms + excluded.latency_ms,
        max_latency_ms = max(max_latency_ms, excluded.max_latency_ms),
        compactions = compactions + excluded.compactions,
        context_before = context_before + excluded.context_before,
        max_context_before = max(max_context_before, excluded.max_context_before),
        prompt_input = prompt_input + excluded.prompt_input,
        prompt_cache_read = prompt_cache_read + excluded.prompt_cache_read,
        prompt_cache_write = prompt_cache_write + excluded.prompt_cache_write;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER activity_all_subtract AFTER DELETE ON activity_file BEGIN
    UPDATE activity_all SET
        file_rows = file_rows - 1,
        entries = entries - OLD.entries,
        user_turns = user_turns - OLD.user_turns,
        assistant_calls = assistant_calls - OLD.assistant_calls,
        tool_calls = tool_calls - OLD.tool_calls,
        tool_results = tool_results - OLD.tool_results,
        tool_errors = tool_errors - OLD.tool_errors,
        user_commands = user_commands - OLD.user_commands,
        stop_error = stop_error - OLD.stop_error,
        stop_aborted = stop_aborted - OLD.stop_aborted,
        stop_length = stop_length - OLD.stop_length,
        active_ms = active_ms - OLD.active_ms,
        turns_timed = turns_timed - OLD.turns_timed,
        latency_ms = latency_ms - OLD.latency_ms,
        max_latency_ms = CASE WHEN OLD.max_latency_ms < max_latency_ms THEN max_latency_ms ELSE (SELECT COALESCE(max(x.max_latency_ms), 0) FROM activity_file x WHERE x.active = OLD.active) END,
        compactions = compactions - OLD.compactions,
        context_before = context_before - OLD.context_before,
        max_context_before = CASE WHEN OLD.max_context_before < max_context_before THEN max_context_before ELSE (SELECT COALESCE(max(x.max_context_before), 0) FROM activity_file x WHERE x.active = OLD.active) END,
        prompt_input = CASE WHEN prompt_input < 9e999 THEN prompt_input - OLD.prompt_input ELSE (SELECT total(x.prompt_input) FROM activity_file x WHERE x.active = OLD.active) END,
        prompt_cache_read = CASE WHEN prompt_cache_read < 9e999 THEN prompt_cache_read - OLD.prompt_cache_read ELSE (SELECT total(x.prompt_cache_read) FROM activity_file x WHERE x.active = OLD.active) END,
        prompt_cache_write = CASE WHEN prompt_cache_write < 9e999 THEN prompt_cache_write - OLD.prompt_cache_write ELSE (SELECT total(x.prompt_cache_write) FROM activity_file x WHERE x.active = OLD.active) END
    WHERE active = OLD.active;
    DELETE FROM activity_all WHERE active = OLD.active AND file_rows = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER activity_tools_all_add AFTER INSERT ON activity_tools_file BEGIN
    INSERT INTO activity_tools_all (kind, name, active, file_rows, calls, results, errors, result_bytes, timed, duration_ms, max_duration_ms)
    VALUES (NEW.kind, NEW.name, NEW.active, 1, NEW.calls, NEW.results, NEW.errors, NEW.result_bytes, NEW.timed, NEW.duration_ms, NEW.max_duration_ms)
    ON CONFLICT (kind, name, active) DO UPDATE SET
        file_rows = file_rows + 1,
        calls = calls + excluded.calls,
        results = results + excluded.results,
        errors = errors + excluded.errors,
        result_bytes = result_bytes + excluded.result_bytes,
        timed = timed + excluded.timed,
        duration_ms = duration_ms + excluded.duration_ms,
        max_duration_ms = max(max_duration_ms, excluded.max_duration_ms);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER activity_tools_all_subtract AFTER DELETE ON activity_tools_file BEGIN
    UPDATE activity_tools_all SET
        file_rows = file_rows - 1,
        calls = calls - OLD.calls,
        results = results - OLD.results,
        errors = errors - OLD.errors,
        result_bytes = result_bytes - OLD.result_bytes,
        timed = timed - OLD.timed,
        duration_ms = duration_ms - OLD.duration_ms,
        max_duration_ms = CASE WHEN OLD.max_duration_ms < max_duration_ms THEN max_duration_ms ELSE (SELECT COALESCE(max(x.max_duration_ms), 0) FROM activity_tools_file x WHERE x.kind = OLD.kind AND x.name = OLD.name AND x.active = OLD.active) END
    WHERE kind = OLD.kind AND name = OLD.name AND active = OLD.active;
    DELETE FROM activity_tools_all WHERE kind = OLD.kind AND name = OLD.name AND active = OLD.active AND file_rows = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER activity_quarters_add AFTER INSERT ON activity BEGIN
    INSERT INTO activity_quarters (bucket, active, file_rows, active_ms, user_turns)
    VALUES (NEW.bucket, NEW.active, 1, NEW.active_ms, NEW.user_turns)
    ON CONFLICT (bucket, active) DO UPDATE SET
        file_rows = file_rows + 1,
        active_ms = active_ms + excluded.active_ms,
        user_turns = user_turns + excluded.user_turns;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER activity_quarters_subtract AFTER DELETE ON activity BEGIN
    UPDATE activity_quarters SET
        file_rows = file_rows - 1,
        active_ms = active_ms - OLD.active_ms,
        user_turns = user_turns - OLD.user_turns
    WHERE bucket = OLD.bucket AND active = OLD.active;
    DELETE FROM activity_quarters WHERE bucket = OLD.bucket AND active = OLD.active AND file_rows = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER activity_hours_add AFTER INSERT ON activity WHEN NEW.bucket >= 0 BEGIN
    INSERT INTO activity_hours (hour, active, file_rows, active_ms, user_turns)
    VALUES (NEW.bucket / 4, NEW.active, 1, NEW.active_ms, NEW.user_turns)
    ON CONFLICT (hour, active) DO UPDATE SET
        file_rows = file_rows + 1,
        active_ms = active_ms + excluded.active_ms,
        user_turns = user_turns + excluded.user_turns;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER activity_hours_subtract AFTER DELETE ON activity WHEN OLD.bucket >= 0 BEGIN
    UPDATE activity_hours SET
        file_rows = file_rows - 1,
        active_ms = active_ms - OLD.active_ms,
        user_turns = user_turns - OLD.user_turns
    WHERE hour = OLD.bucket / 4 AND active = OLD.active;
    DELETE FROM activity_hours WHERE hour = OLD.bucket / 4 AND active = OLD.active AND file_rows = 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER activity_hours_subtract;
DROP TRIGGER activity_hours_add;
DROP TABLE activity_hours;
DROP TRIGGER activity_quarters_subtract;
DROP TRIGGER activity_quarters_add;
DROP TABLE activity_quarters;
DROP TRIGGER activity_tools_all_subtract;
DROP TRIGGER activity_tools_all_add;
DROP TABLE activity_tools_all;
DROP TRIGGER activity_all_subtract;
DROP TRIGGER activity_all_add;
DROP TABLE activity_all;
DROP TRIGGER sessions_branch_points;
DROP TRIGGER session_activity_branch_points;
ALTER TABLE session_activity DROP COLUMN branch_points;
