-- Reading the term index follows each entry's story through
-- stories.merged_into (mirrors ../postgres). Most stories are never
-- merged, yet that join read a story's row (its centroid beside it, most
-- of a page) per entry: a few thousand pages a poll, most of the index
-- read's time. This index holds the merged stories only, small and
-- cached, so an entry of a story that was never merged is settled by it
-- without reading stories.
CREATE INDEX stories_merged_id ON stories (id, merged_into) WHERE merged_into IS NOT NULL;
