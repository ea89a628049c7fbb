-- A workspace's document frequencies go with it, as before, but by a
-- trigger on the workspaces deleted rather than by a reference checked
-- for every row inserted, as the term index's entries go with their
-- articles since 0019: a save's upsert inserts a row per term new to the
-- week (hundreds in a workspace's first polls of a week), each of which
-- the reference looked the workspace up for and locked, while workspaces
-- are deleted rarely. Rows are only ever inserted by a save, after its
-- articles, whose own reference locks the workspace until the save
-- commits: no row can name a workspace that is gone.
-- (SQLite keeps its reference, as it does for the term index.)
ALTER TABLE story_doc_freq DROP CONSTRAINT story_doc_freq_workspace_id_fkey;
CREATE FUNCTION story_doc_freq_forget_workspaces() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM story_doc_freq WHERE workspace_id IN (SELECT id FROM gone);
    RETURN NULL;
END
$$;
CREATE TRIGGER workspaces_story_doc_freq AFTER DELETE ON workspaces
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION story_doc_freq_forget_workspaces();
