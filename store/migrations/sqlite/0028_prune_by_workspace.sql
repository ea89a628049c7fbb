-- Both tables of the story index lead their primary key with the
-- workspace and then the time (0019, 0027): story_terms by reported
-- time, story_doc_freq by week. Their second indexes on the time alone
-- served only the hourly prune, which found old rows across workspaces
-- through them, and every save paid for them: an entry in each for every
-- term row and every new week's frequency, inserted at a place of their
-- own. The prune now goes workspace by workspace along the primary key
-- (store.PruneStoryTerms), so the indexes go. On news-like text, a
-- workspace per source, the two tables took 1.5 times the bytes with
-- them, and the saves 2 to 6 per cent more CPU.
DROP INDEX story_doc_freq_period;
DROP INDEX story_terms_reported;
